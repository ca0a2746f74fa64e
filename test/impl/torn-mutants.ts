/**
 * Injected defects of the torn-write pool (impl/torn-pool.ts), one per thing it adds: the
 * parts landing apart, each into its own page, the timeout leaving parts in flight, the
 * commit waiting for the last part, (`premature-success`) a release leaving them in flight, and
 * (`aux-torn`) the metadata slot's payload left by the commit and its gate on the room. Each must fail the model-based test on random
 * configurations with `torn-write` (test/impl/mbt-torn.test.ts).
 */
import { Ph } from '../../spec/index.ts';
import { SlotPool } from '../../impl/index.ts';

/** A mutant whose content part brings the page's tag with it: the tag never lands apart. */
export class TagRidesWithData extends SlotPool {
  override landData(slot: number): boolean {
    const k = this.tagParts[slot] ?? 0;
    if (!super.landData(slot)) return false;
    if (this.behaviour.ownerCheck && (this.dataParts[slot] ?? 0) > k) this.landTag(slot);
    return true;
  }
}

/** A mutant whose parts all land in the write's first page. */
export class PartsInFirstPage extends SlotPool {
  override landData(slot: number): boolean {
    const table = this.pageTable(slot);
    const saved = table.slice();
    table.fill(table[0] ?? -1);
    const accepted = super.landData(slot);
    table.set(saved);
    return accepted;
  }
}

/** A mutant whose timeout drops the parts in flight, as if P's access were revoked. */
export class TimeoutDropsParts extends SlotPool {
  override timeout(slot: number): boolean {
    const writing = this.phases[slot] === Ph.writing;
    if (!super.timeout(slot)) return false;
    if (writing) this.phases[slot] = Ph.landed;
    return true;
  }
}

/** A mutant whose commit comes while parts are still landing (premature-success, always). */
export class CommitsEarly extends SlotPool {
  override handoff(slot: number): boolean {
    if (this.phases[slot] !== Ph.writing) return super.handoff(slot);
    this.phases[slot] = Ph.written;
    if (super.handoff(slot)) return true;
    this.phases[slot] = Ph.writing;
    return false;
  }
}

/** A mutant whose release of an early-committed request forgets its parts in flight (`freed`, not `landing`): they never land. */
export class FreeForgetsParts extends SlotPool {
  override free(slot: number): boolean {
    if (!super.free(slot)) return false;
    if (this.phases[slot] === Ph.landing) this.phases[slot] = Ph.freed;
    return true;
  }
}

/** A mutant whose end of a transfer clears the metadata slot's payload with its room (`aux-torn`): the stale token is gone. */
export class ReleaseClearsPayload extends SlotPool {
  override handoff(slot: number): boolean {
    const held = this.aux[0] === this.serials[slot];
    if (!super.handoff(slot)) return false;
    if (held) this.aux[2] = 0;
    return true;
  }
}

/** A mutant whose gate lets Success through before the room lands (`aux-torn`). */
export class GateSkipsRoom extends SlotPool {
  override handoff(slot: number): boolean {
    const room = this.aux[1] ?? 0;
    if (this.aux[0] === this.serials[slot]) this.aux[1] = this.serials[slot] ?? 0;
    if (super.handoff(slot)) return true;
    this.aux[1] = room;
    return false;
  }
}

/** Each mutant, by what it gets wrong, with the variant and seed whose 200 random runs catch it. */
export const TORN_MUTANTS = [
  ['lands the tag with the content', 'owner-check', 91, TagRidesWithData],
  ['lands every part in the first page', 'buggy', 91, PartsInFirstPage],
  ['drops the parts in flight at a timeout', 'buggy', 91, TimeoutDropsParts],
  ['commits before the last part lands', 'buggy', 91, CommitsEarly],
  ['forgets the parts in flight at an early-committed release', 'buggy', 91, FreeForgetsParts],
  ['clears the metadata payload at the commit', 'buggy', 91, ReleaseClearsPayload],
  ['commits before the metadata room lands', 'buggy', 91, GateSkipsRoom],
] as const;

/** A mutant whose content parts always read the request's own KV: P's freed source page is never reused (hold-source, always). */
export class SourceNeverReused extends SlotPool {
  override landData(slot: number): boolean {
    const freed = this.sourceFreed[slot] ?? 0;
    this.sourceFreed[slot] = 0;
    const accepted = super.landData(slot);
    // The abort stays on record until the last content part, as in the real pool.
    if (!accepted || (this.dataParts[slot] ?? 0) < (this.partCount[slot] ?? 0)) this.sourceFreed[slot] = freed;
    return accepted;
  }
}

/** A mutant whose abort frees the source pages again and again (no guard on an earlier abort). */
export class AbortTwice extends SlotPool {
  override abortSource(slot: number): boolean {
    const freed = this.sourceFreed[slot] ?? 0;
    this.sourceFreed[slot] = 0;
    if (super.abortSource(slot)) return true;
    this.sourceFreed[slot] = freed;
    return false;
  }
}

/** The source-page mutants, as {@link TORN_MUTANTS}. */
export const SOURCE_MUTANTS = [
  ['never reuses a freed source page', 'buggy', 93, SourceNeverReused],
  ['lets P abort a request twice', 'buggy', 93, AbortTwice],
] as const;
