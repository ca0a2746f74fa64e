/**
 * The scheduler's agenda: which in-flight request acts next. A binary min-heap of slots on
 * typed arrays, ordered by simulated time and then by the order events were scheduled, so
 * that ties break the same way on every run.
 */

/** A min-heap of (time, slot) events, at most one per slot. */
export class EventQueue {
  private readonly time: Float64Array;
  private readonly seq: Float64Array;
  private readonly slot: Int32Array;
  private n = 0;
  private counter = 0;

  constructor(capacity: number) {
    this.time = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.slot = new Int32Array(capacity);
  }

  /** Number of pending events. */
  get size(): number {
    return this.n;
  }

  /** The time of the earliest event; only meaningful when {@link size} > 0. */
  peekTime(): number {
    return this.time[0] ?? 0;
  }

  /** Schedules `slot` to act at `time`. */
  push(time: number, slot: number): void {
    let i = this.n++;
    const seq = this.counter++;
    // Sift up: move parents down until the new event's place is found.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(time, seq, parent)) break;
      this.move(parent, i);
      i = parent;
    }
    this.time[i] = time;
    this.seq[i] = seq;
    this.slot[i] = slot;
  }

  /** Removes the earliest event and returns its slot; -1 when empty. */
  pop(): number {
    if (this.n === 0) return -1;
    const top = this.slot[0] ?? -1;
    const last = --this.n;
    if (last === 0) return top;
    const time = this.time[last] ?? 0;
    const seq = this.seq[last] ?? 0;
    const slot = this.slot[last] ?? 0;
    let i = 0;
    // Sift down: move the earlier child up until the last event fits.
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && this.earlier(right, left) ? right : left;
      if (this.before(time, seq, child)) break;
      this.move(child, i);
      i = child;
    }
    this.time[i] = time;
    this.seq[i] = seq;
    this.slot[i] = slot;
    return top;
  }

  /** Whether an event at (time, seq) comes before the one at heap index `j`. */
  private before(time: number, seq: number, j: number): boolean {
    const tj = this.time[j] ?? 0;
    return time < tj || (time === tj && seq < (this.seq[j] ?? 0));
  }

  /** Whether the event at heap index `i` comes before the one at `j`. */
  private earlier(i: number, j: number): boolean {
    return this.before(this.time[i] ?? 0, this.seq[i] ?? 0, j);
  }

  /** Copies the event at heap index `from` to `to`. */
  private move(from: number, to: number): void {
    this.time[to] = this.time[from] ?? 0;
    this.seq[to] = this.seq[from] ?? 0;
    this.slot[to] = this.slot[from] ?? 0;
  }
}
