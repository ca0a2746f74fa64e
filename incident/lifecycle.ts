/**
 * A request's life in the replay (`replay.ts` schedules it): admitted into a free slot as
 * soon as `allocate` succeeds, then written (prefill, or a stub when P refuses it), handed
 * off, decoded and released: one method per event, each checked against what the spec
 * says the pool must decide and against the monitor, and each putting the slot's next
 * event on the agenda at a time drawn from the schedule's stream. What each request
 * became is recorded here.
 */
import { Ph, type LengthRule } from '../spec/index.ts';
import { pagesOf } from './arrivals.ts';
import type { EventQueue } from './event-queue.ts';
import type { ReadMonitor } from './monitor.ts';
import type { Prng } from './prng.ts';
import { Outcome, type ReplayAction, type ReplayOptions, type ReplayPool } from './replay-types.ts';

/** What a slot does at its next event (serving.ts adds its own codes above these). */
export const Next = { write: 1, handoff: 2, decode: 3, free: 4 } as const;
const { write: WRITE, handoff: HANDOFF, decode: DECODE, free: FREE } = Next;

/** What the spec says the pool must decide, for the variant replayed; the pool is checked against it at every step. */
export interface PoolRules {
  /** Whether a prompt of `t` tokens is too long for P's memory. */
  readonly overLong: (t: number) => boolean;
  /** The length rule, as the messages name it. */
  readonly lengthRule: LengthRule;
  /** Whether a stub leaves the request to decode rather than refusing it. */
  readonly silentStub: boolean;
  /** Whether decode checks the owner of each page it reads. */
  readonly ownerCheck: boolean;
  /** hardened's tag-counts-tokens: decode also fails a read past a page's fill. */
  readonly countsTokens: boolean;
}

/** What the lifecycle acts on and with. */
export interface LifecycleSetup {
  /** Per request, in arrival order: its prompt length in tokens. */
  readonly tokens: Int32Array;
  readonly pageTokens: number;
  /** Most requests in flight: the pool's slots. */
  readonly slots: number;
  readonly pool: ReplayPool;
  readonly monitor: ReadMonitor;
  readonly rules: PoolRules;
  /** The events to come, by slot. */
  readonly agenda: EventQueue;
  /** The schedule's stream of times. */
  readonly clock: Prng;
  /** Who is told of progress and of every action. */
  readonly listeners: Pick<ReplayOptions, 'onAction' | 'onProgress'>;
  /** With `--prefixes`: per request, its prefix (-1: none). */
  readonly prefixOf?: Int32Array;
}

/** The requests of one replay, slot by slot, from admission to release. */
export class Lifecycle {
  /** Per request: its {@link Outcome}. */
  readonly outcome: Uint8Array;
  /** Per request: foreign pages its decode read, as the monitor says. */
  readonly foreign: Int32Array;
  /** Per request: pages its decode read that no one wrote for it there. */
  readonly garbage: Int32Array;
  /** Owner check only: per request, 1 when the pages its decode was about to read held another request's data. */
  readonly wouldLeak: Uint8Array | undefined;
  /** Requests admitted so far, in arrival order. */
  admitted = 0;
  /** Requests released so far. */
  done = 0;
  /** Requests admitted and not yet released. */
  inFlight = 0;
  /** The most requests in flight at once. */
  peakInFlight = 0;
  /** How many times the head of the queue found too few free pages and waited. */
  waits = 0;
  /** Simulated time of the event being handled, set by the scheduler. */
  now = 0;
  /** Per slot: the request in it, or -1. */
  protected readonly request: Int32Array;
  /** Per slot: what it does at its next event. */
  protected readonly next: Uint8Array;
  private readonly idle: Int32Array;
  private idleCount = 0;

  constructor(protected readonly s: LifecycleSetup) {
    const n = s.tokens.length;
    this.outcome = new Uint8Array(n);
    this.foreign = new Int32Array(n);
    this.garbage = new Int32Array(n);
    this.wouldLeak = s.rules.ownerCheck ? new Uint8Array(n) : undefined;
    this.request = new Int32Array(s.slots).fill(-1);
    this.next = new Uint8Array(s.slots);
    this.idle = new Int32Array(s.slots);
    for (let slot = s.slots - 1; slot >= 0; slot--) this.idle[this.idleCount++] = slot;
  }

  /** Arrival: admits requests in arrival order while a slot and enough pages are free. */
  admit(): void {
    if (!this.mayAdmit()) return;
    const { tokens, pool, pageTokens } = this.s;
    while (this.idleCount > 0 && this.admitted < tokens.length) {
      const slot = this.idle[this.idleCount - 1] ?? 0;
      const t = tokens[this.admitted] ?? 1;
      const length = pagesOf(t, pageTokens);
      const g = this.s.prefixOf?.[this.admitted] ?? -1;
      // D's budget check (`pop_preallocated`) comes before the allocation: a request that does not fit waits, and the allocator is never asked (a failed attempt would merge sglang's release list).
      if (!this.room(slot, length, g) || !pool.allocate(slot, length, g >= 0 ? g : undefined, t)) {
        this.waits++;
        return;
      }
      this.idleCount--;
      this.s.listeners.onAction?.({ kind: 'allocate', slot, request: this.admitted, tokens: t, time: this.now });
      this.s.monitor.allocate(this.admitted, pool.pageTable(slot), length, t, g);
      this.request[slot] = this.admitted++;
      this.next[slot] = WRITE;
      this.s.agenda.push(this.now + this.s.clock.next(), slot);
      if (++this.inFlight > this.peakInFlight) this.peakInFlight = this.inFlight;
    }
  }

  /** The event due in `slot`: its request's next step. */
  step(slot: number): void {
    const r = this.request[slot] ?? -1;
    switch (this.next[slot]) {
      case WRITE:
        return this.write(slot, r);
      case HANDOFF:
        return this.handoff(slot, r);
      case DECODE:
        return this.decode(slot, r);
      case FREE:
        return this.free(slot, r);
      default:
        return this.stepMore(slot, r, this.next[slot] ?? 0);
    }
  }

  /** An event code of a subclass's own (serving.ts); here none. */
  protected stepMore(slot: number, _r: number, _code: number): void {
    throw new Error(`slot ${slot} has no pending action`);
  }

  /** Whether the pool has room for the next request's `length` pages (prefix `g`, -1: none) in `slot` (serving.ts evicts the prefix cache's leaves to make it). */
  protected room(_slot: number, length: number, _g: number): boolean {
    return this.s.pool.freePages >= length;
  }

  /** Whether new requests may be admitted now (serving.ts holds them back while a retracted request waits, as SGLang's budget counts it). */
  protected mayAdmit(): boolean {
    return true;
  }

  /** Prefill, or the stub P writes for a prompt it refuses; then the handoff, or the release of a refused request. */
  protected write(slot: number, r: number): void {
    const { pool, rules, agenda, clock } = this.s;
    // The pool, not the replay, knows P's limit: prefill is not enabled for an over-long prompt.
    const length = pagesOf(this.s.tokens[this.request[slot] ?? 0] ?? 1, this.s.pageTokens);
    const prefilled = pool.prefill(slot);
    const t = this.s.tokens[r] ?? 1;
    this.agree(prefilled !== rules.overLong(t), `prefill ${prefilled ? 'accepted' : 'refused'} a prompt of ${t} tokens under the ${rules.lengthRule} rule`, slot);
    if (!prefilled) this.must(pool.stub(slot), 'stub', slot);
    this.told('write', slot, r);
    if (!prefilled) this.agree((pool.phase(slot) === Ph.refused) !== rules.silentStub, `stub left phase ${pool.phase(slot)}`, slot);
    if (prefilled || rules.silentStub) this.s.monitor.write(r, !prefilled);
    if (pool.phase(slot) === Ph.refused) {
      this.outcome[r] = Outcome.refused;
      this.next[slot] = FREE;
      agenda.push(this.now + 2 * clock.next(), slot);
    } else {
      this.next[slot] = HANDOFF;
      const cost = prefilled ? length : 1;
      agenda.push(this.now + cost * (0.5 + clock.next()), slot);
    }
  }

  /** The handoff; decode follows after the request's output tokens. */
  protected handoff(slot: number, r: number): void {
    this.must(this.s.pool.handoff(slot), 'handoff', slot);
    this.told('handoff', slot, r);
    this.next[slot] = DECODE;
    this.s.agenda.push(this.now + this.s.clock.logUniform(16, 4096), slot);
  }

  /** Decode: what it read, by the monitor, decides the request's outcome; the release follows. */
  protected decode(slot: number, r: number): void {
    this.read(slot, r);
    this.next[slot] = FREE;
    this.s.agenda.push(this.now + 2 * this.s.clock.next(), slot);
  }

  /** The first decode step: the pool reads, and what it read is held against the monitor; it decides the request's outcome. */
  protected read(slot: number, r: number): void {
    const { pool, rules } = this.s;
    this.must(pool.decode(slot), 'decode', slot);
    this.told('decode', slot, r);
    const read = this.s.monitor.decode(r);
    const failed = pool.phase(slot) === Ph.failed;
    // hardened's tag-counts-tokens also fails a read past a page's fill.
    this.agree(failed === (rules.ownerCheck && (!read.allOwn || (rules.countsTokens && read.staleTail))), `decode ${failed ? 'failed' : 'passed'}`, slot);
    if (!failed) this.agree(pool.foreignReads(slot) === read.foreign, `the pool counted ${pool.foreignReads(slot)} foreign pages, the monitor ${read.foreign}`, slot);
    this.foreign[r] = failed ? 0 : read.foreign;
    this.garbage[r] = failed ? 0 : pool.garbageReads(slot);
    this.outcome[r] = failed ? Outcome.failed : read.foreign > 0 ? Outcome.leaked : Outcome.served;
    if (this.wouldLeak !== undefined) this.wouldLeak[r] = read.foreign > 0 ? 1 : 0;
  }

  /** The release: the slot is idle again, and the queue's head may be admitted. */
  protected free(slot: number, r: number): void {
    this.must(this.s.pool.free(slot), 'free', slot);
    this.told('free', slot, r);
    this.finish(slot, r);
  }

  /** The request in `slot` is gone (released, or aborted with its pages): the slot is idle again, and the queue's head may be admitted. */
  protected finish(slot: number, r: number): void {
    this.s.monitor.free(r);
    this.request[slot] = -1;
    this.next[slot] = 0;
    this.idle[this.idleCount++] = slot;
    this.inFlight--;
    if (++this.done % 4096 === 0) this.s.listeners.onProgress?.(this.done, this.inFlight);
    this.admit();
  }

  /** Tells the listener of an action the pool accepted. */
  protected told(kind: ReplayAction['kind'], slot: number, r: number, detail?: number): void {
    this.s.listeners.onAction?.({ kind, slot, request: r, tokens: this.s.tokens[r] ?? 1, time: this.now, ...(detail === undefined ? {} : { detail }) });
  }

  /** Stops the replay when the pool refused an action the schedule may take. */
  protected must(ok: boolean, what: string, slot: number): void {
    if (!ok) throw new Error(`pool refused ${what} for request ${this.request[slot]} in slot ${slot} (phase ${this.s.pool.phase(slot)})`);
  }

  /** Stops the replay when the pool decided otherwise than the spec or the monitor. */
  protected agree(ok: boolean, what: string, slot: number): void {
    if (!ok) throw new Error(`the pool and the spec disagree for request ${this.request[slot]} in slot ${slot}: ${what}`);
  }
}
