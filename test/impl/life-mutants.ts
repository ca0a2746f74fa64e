/**
 * Injected defects of the stepping pool (impl/stepping-pool.ts), one per thing a request's
 * life on D adds: the load of a resume, the tag of a grown page, the worst read kept over
 * the steps, a later step's token, the prefix hit and lock a retraction gives up. Each comes with
 * the random configurations that can show it.
 */
import { HIT, INSERTED } from '../../spec/index.ts';
import { SteppingPool } from '../../impl/index.ts';

/** A mutant whose resume loads nothing without the fault: the new pages keep what they held. */
export class ResumeLoadsNothing extends SteppingPool {
  protected override holdAgain(s: number, room: number, tokens?: number): void {
    const [data, position, fill] = [this.data.slice(), this.position.slice(), this.fill.slice()];
    super.holdAgain(s, room, tokens);
    for (const p of this.pageTable(s).subarray(0, room)) [this.data[p], this.position[p], this.fill[p]] = [data[p] ?? 0, position[p] ?? 0, fill[p] ?? 0];
  }
}

/** A mutant whose grow leaves the new page's old tag: the page is not stamped clear for its new holder. */
export class GrowKeepsTag extends SteppingPool {
  override grow(slot: number): boolean {
    const [tag, tagFill] = [this.tag.slice(), this.tagFill.slice()];
    if (!super.grow(slot)) return false;
    const p = this.pageTable(slot)[(this.lengths[slot] ?? 1) - 1] ?? 0;
    [this.tag[p], this.tagFill[p]] = [tag[p] ?? 0, tagFill[p] ?? 0];
    return true;
  }
}

/** A mutant that keeps a position's first read over the steps, not its worst. */
export class KeepsFirstRead extends SteppingPool {
  protected override severity(): number {
    return 0;
  }
}

/** A mutant whose later steps write no token. */
export class NoTokenWrite extends SteppingPool {
  protected override writeToken(): void {}
}

/** A mutant whose retraction keeps the prefix hit: the resumed request still counts its first pages as shared. */
export class RetractKeepsHit extends SteppingPool {
  override retract(slot: number): boolean {
    const flags = (this.flags[slot] ?? 0) & (HIT | INSERTED);
    if (!super.retract(slot)) return false;
    this.flags[slot] = (this.flags[slot] ?? 0) | flags;
    return true;
  }
}

/** A mutant whose retraction keeps the lock its hit or insert holds on the prefix's entry: the entry can never be evicted. */
export class RetractKeepsLock extends SteppingPool {
  override retract(slot: number): boolean {
    const g = this.groups[slot] ?? -1;
    const held = g >= 0 && ((this.flags[slot] ?? 0) & (HIT | INSERTED)) !== 0 ? (this.locks[g] ?? 0) : -1;
    if (!super.retract(slot)) return false;
    if (held >= 0) this.locks[g] = held;
    return true;
  }
}

/** Each mutant, with the life it needs drawn: it must fail on these runs (test/impl/mbt-life.test.ts), which pass on the real pool (test/impl/mbt-life-long.test.ts). */
export const LIFE_MUTANTS = [
  ['resumes without loading the saved copy', ResumeLoadsNothing, { life: { retraction: true } }],
  ['grows its table without clearing the new page\'s tag', GrowKeepsTag, { slots: true, life: { tableGrowth: true, retraction: false } }],
  ['keeps the first read of a position, not the worst', KeepsFirstRead, { life: { decodeSteps: [3], retraction: true } }],
  ['writes no token at later steps', NoTokenWrite, { life: { decodeSteps: [2, 3] } }],
  ['keeps its prefix hit through a retraction', RetractKeepsHit, { life: { retraction: true } }],
  ['keeps its prefix lock through a retraction', RetractKeepsLock, { eviction: true, life: { retraction: true, decodeSteps: [1] } }],
] as const;

