/**
 * Injected defects of the draft pool (impl/draft-pool.ts), one per thing the draft model's
 * KV adds: the commit's wait for the draft part, the draft part's labels, the decode step's
 * read of the draft, and a later token's draft write. Each must fail the model-based test
 * on random configurations with `draft` (test/impl/mbt-draft.test.ts).
 */
import { SlotPool } from '../../impl/index.ts';

/** A mutant whose commit does not wait for the draft part. */
export class HandoffIgnoresDraft extends SlotPool {
  override handoff(slot: number): boolean {
    const pending = this.draftPending[slot] ?? 0;
    this.draftPending[slot] = 0;
    const accepted = super.handoff(slot);
    if (!accepted) this.draftPending[slot] = pending;
    return accepted;
  }
}

/** A mutant whose draft part lands the request's own label everywhere, the prefix's positions included. */
export class DraftOwnLabelOnly extends SlotPool {
  override landDraft(slot: number): boolean {
    const before = this.draft.slice();
    if (!super.landDraft(slot)) return false;
    for (let p = 0; p < this.draft.length; p++) if (this.draft[p] !== before[p]) this.draft[p] = this.serials[slot] ?? 0;
    return true;
  }
}

/** A mutant whose decode steps read the target's KV only: the pages' draft labels look like the reader's own while it reads. */
export class StepSkipsDraft extends SlotPool {
  override decode(slot: number): boolean {
    const [draft, data, fill] = [this.draft.slice(), this.data.slice(), this.fill.slice()];
    this.draft.fill(this.serials[slot] ?? 0);
    const accepted = super.decode(slot);
    // Every page gets its draft back but the one the step's token wrote (its draft is the reader's, as the real pool's).
    for (let p = 0; p < this.draft.length; p++) if (this.data[p] === data[p] && this.fill[p] === fill[p]) this.draft[p] = draft[p] ?? 0;
    return accepted;
  }
}

/** A mutant whose later steps write the token's target KV but not its draft. */
export class TokenWithoutDraft extends SlotPool {
  override decode(slot: number): boolean {
    const before = this.draft.slice();
    const accepted = super.decode(slot);
    this.draft.set(before);
    return accepted;
  }
}

/** Each mutant, by what it gets wrong, with the random configurations that show it. */
export const DRAFT_MUTANTS = [
  ['commits before the draft part lands', HandoffIgnoresDraft, {}],
  ['lands its own label at the prefix\'s positions', DraftOwnLabelOnly, {}],
  ['reads no draft at a decode step', StepSkipsDraft, {}],
  ['writes no draft with a later token', TokenWithoutDraft, { life: { decodeSteps: [2, 3] } }],
] as const;
