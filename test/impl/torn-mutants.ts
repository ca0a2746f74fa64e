/**
 * Injected defects of the torn-write pool (impl/torn-pool.ts), one per thing it adds: the
 * parts landing apart, each into its own page, the timeout leaving parts in flight, the
 * commit waiting for the last part, and (`premature-success`) a release leaving them in flight. Each must fail the model-based test on random
 * configurations with `torn-write` (test/impl/mbt-torn.test.ts).
 */
import { Ph } from '../../spec/index.ts';
import { TornPool } from '../../impl/index.ts';

/** A mutant whose content part brings the page's tag with it: the tag never lands apart. */
export class TagRidesWithData extends TornPool {
  override landData(slot: number): boolean {
    const k = this.tagParts[slot] ?? 0;
    if (!super.landData(slot)) return false;
    if (this.behaviour.ownerCheck && (this.dataParts[slot] ?? 0) > k) this.landTag(slot);
    return true;
  }
}

/** A mutant whose parts all land in the write's first page. */
export class PartsInFirstPage extends TornPool {
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
export class TimeoutDropsParts extends TornPool {
  override timeout(slot: number): boolean {
    const writing = this.phases[slot] === Ph.writing;
    if (!super.timeout(slot)) return false;
    if (writing) this.phases[slot] = Ph.landed;
    return true;
  }
}

/** A mutant whose commit comes while parts are still landing (premature-success, always). */
export class CommitsEarly extends TornPool {
  override handoff(slot: number): boolean {
    if (this.phases[slot] !== Ph.writing) return super.handoff(slot);
    this.phases[slot] = Ph.written;
    if (super.handoff(slot)) return true;
    this.phases[slot] = Ph.writing;
    return false;
  }
}

/** A mutant whose release of an early-committed request forgets its parts in flight (`freed`, not `landing`): they never land. */
export class FreeForgetsParts extends TornPool {
  override free(slot: number): boolean {
    if (!super.free(slot)) return false;
    if (this.phases[slot] === Ph.landing) this.phases[slot] = Ph.freed;
    return true;
  }
}

/** Each mutant, by what it gets wrong, with the variant and seed whose 200 random runs catch it. */
export const TORN_MUTANTS = [
  ['lands the tag with the content', 'owner-check', 91, TagRidesWithData],
  ['lands every part in the first page', 'buggy', 91, PartsInFirstPage],
  ['drops the parts in flight at a timeout', 'buggy', 91, TimeoutDropsParts],
  ['commits before the last part lands', 'buggy', 91, CommitsEarly],
  ['forgets the parts in flight at an early-committed release', 'buggy', 91, FreeForgetsParts],
] as const;
