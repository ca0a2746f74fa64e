/**
 * Injected defects of the slot pool (impl/slot-pool.ts), one per thing the slots add: the
 * commit's free of the metadata row, the request's release of its state slot, the write's
 * first token into the row, and the decode step's read of the state slot. Each must fail the
 * model-based test on random configurations with the slots (test/impl/mbt-state-slots.test.ts).
 */
import { SlotPool } from '../../impl/index.ts';

/** A mutant whose commit reads the row but leaves it held: the next allocation takes another row. */
export class CommitKeepsRow extends SlotPool {
  override handoff(slot: number): boolean {
    const held = this.metaHolder.slice();
    if (!super.handoff(slot)) return false;
    this.metaHolder.set(held);
    return true;
  }
}

/** A mutant whose release frees the pages but not the state slot. */
export class FreeKeepsStateSlot extends SlotPool {
  override free(slot: number): boolean {
    const held = this.stateHolder.slice();
    if (!super.free(slot)) return false;
    this.stateHolder.set(held);
    return true;
  }
}

/** A mutant whose write lands the state but not the first token: the commit reads what the row held before. */
export class WriteSkipsRow extends SlotPool {
  override prefill(slot: number): boolean {
    const rows = this.metaOf.slice();
    if (!super.prefill(slot)) return false;
    this.metaOf.set(rows);
    return true;
  }
}

/** A mutant whose decode steps read the pages only, not the state slot: what a step read of another's state is lost. */
export class StepSkipsState extends SlotPool {
  override decode(slot: number): boolean {
    const k = (this.stateIdx[slot] ?? 0) - 1;
    const own = k >= 0 ? (this.stateOf[k] ?? 0) : 0;
    if (k >= 0) this.stateOf[k] = this.serials[slot] ?? 0;
    const accepted = super.decode(slot);
    if (k >= 0) this.stateOf[k] = own;
    return accepted;
  }
}

/** Each mutant, by what it gets wrong. */
export const SLOT_MUTANTS = [
  ['keeps the metadata row held after the commit', CommitKeepsRow],
  ['keeps the state slot held after the release', FreeKeepsStateSlot],
  ['lands no first token in the metadata row', WriteSkipsRow],
  ['reads no state slot at a decode step', StepSkipsState],
] as const;
