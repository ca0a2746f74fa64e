/**
 * The sliding window of request slots. A log names requests by any string; the pool has a
 * fixed number of slots. A request gets a slot at its arrival and keeps it until no action
 * of the spec can touch it again (its pages released, its write landed); the slot then
 * waits in a first-in-first-out queue and is reused as late as possible, so that a late
 * second release of a recently freed request (fault `stale-free`) still finds its table.
 * The ids, lengths and log lines of a slot's request live here, as they are the log's
 * facts, the same in every state the system may be in. Finished requests are remembered,
 * by serial, in a bounded ring, so that a violation can still name who wrote a page.
 */
import type { SourceLine } from './lines.ts';

/** A release whose allocator calls are still being logged: the table entries it frees, and which of them a call has named. */
export interface OpenRelease {
  /** The page ids of the entries the release frees, in table order. */
  readonly row: Int32Array;
  /** Per entry: 1 once a logged call has named it. */
  readonly named: Uint8Array;
  /** Entries not yet named. */
  left: number;
}

/** A request's facts from the log. */
export interface RequestInfo {
  /** The log's id. */
  readonly id: string;
  /** Length in pages. */
  readonly length: number;
  /** Length in tokens (the pages times the page size when the log gives pages). */
  readonly tokens: number;
  /** The prefix group, or -1. */
  readonly group: number;
  /** Its arrival index, 0-based (the spec's request index when the log is small enough). */
  readonly index: number;
  /** The serial the pool gave it at allocation (0 before). */
  serial: number;
  /** Whether its slot was handed back to the window. */
  released: boolean;
  /** Its log lines, with their sequence numbers. */
  readonly lines: Array<SourceLine & { readonly seq: number }>;
  /** Its last release while some of its pages are not yet named by a logged allocator call (step-release.ts); none when every call was logged. */
  release: OpenRelease | undefined;
  /** Whether P gave up its write (an `abort` line): the write will never land. */
  dropped: boolean;
  /** P's source pages of its write, as its `posted` lines name them (`sources`; config `sourcePages`). */
  sources?: number[];
  /** Whether P freed those source pages while its write was still outstanding in some state (a `sourceFree` line, fault `source-early-free`). */
  sourcesFreed?: boolean;
}

/** More requests in flight than the window has slots: bad input, with the flag that fixes it. */
export class WindowFull extends Error {
  constructor(slots: number) {
    super(`more than ${slots} requests are in flight at once; raise --window`);
    this.name = 'WindowFull';
  }
}

/** How many finished requests are remembered for explanations. */
const RETIRED = 4096;

/** Request slots by id. */
export class RequestWindow {
  /** Slots. */
  readonly slots: number;
  private readonly bySlot: Array<RequestInfo | undefined>;
  private readonly byId = new Map<string, number>();
  private readonly idle: number[] = [];
  private idleHead = 0;
  private fresh = 0;
  private arrivals = 0;
  private readonly retired = new Map<number, RequestInfo>();
  private readonly groups = new Map<string, number>();

  constructor(slots: number) {
    this.slots = slots;
    this.bySlot = new Array<RequestInfo | undefined>(slots);
  }

  /** Requests that have arrived so far. */
  get arrived(): number {
    return this.arrivals;
  }

  /** Prefix groups seen so far. */
  get prefixGroups(): readonly string[] {
    return [...this.groups.keys()];
  }

  /** The slot of a request in the window, or -1. */
  slotOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  /** The request in a slot. */
  info(slot: number): RequestInfo | undefined {
    return this.bySlot[slot];
  }

  /** The group index of a prefix name, new or known; -1 when the table of groups is full. */
  groupOf(prefix: string, max: number): number {
    const known = this.groups.get(prefix);
    if (known !== undefined) return known;
    if (this.groups.size >= max) return -1;
    this.groups.set(prefix, this.groups.size);
    return this.groups.size - 1;
  }

  /** Admits a request into a slot: a never-used one first, else the one finished longest ago. */
  arrive(id: string, length: number, group: number, tokens: number): number {
    let slot: number;
    if (this.fresh < this.slots) slot = this.fresh++;
    else if (this.idleHead < this.idle.length) slot = this.idle[this.idleHead++] ?? 0;
    else throw new WindowFull(this.slots);
    if (this.idleHead > 1024 && this.idleHead * 2 > this.idle.length) {
      this.idle.splice(0, this.idleHead);
      this.idleHead = 0;
    }
    const old = this.bySlot[slot];
    if (old !== undefined) this.retire(old);
    const info: RequestInfo = { id, length, tokens, group, index: this.arrivals++, serial: 0, released: false, lines: [], release: undefined, dropped: false };
    this.bySlot[slot] = info;
    this.byId.set(id, slot);
    return slot;
  }

  /** Marks a slot reusable: its request is finished in every state; a second call changes nothing. */
  release(slot: number): void {
    const info = this.bySlot[slot];
    if (info === undefined || info.released) return;
    info.released = true;
    this.idle.push(slot);
  }

  /** The request that had `serial`, live or recently finished. */
  bySerial(serial: number): RequestInfo | undefined {
    for (const info of this.bySlot) if (info !== undefined && info.serial === serial) return info;
    return this.retired.get(serial);
  }

  /** A request's name for messages: its id, or `#serial` when it was forgotten. */
  nameOf(serial: number): string {
    return this.bySerial(serial)?.id ?? `#${serial}`;
  }

  private retire(info: RequestInfo): void {
    this.byId.delete(info.id);
    if (info.serial === 0) return;
    this.retired.set(info.serial, info);
    if (this.retired.size > RETIRED) {
      const oldest = this.retired.keys().next();
      if (oldest.done !== true) this.retired.delete(oldest.value);
    }
  }
}
