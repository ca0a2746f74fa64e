/**
 * Proofs whose outcome a test pins, each obligation searched the way its pin says. z3
 * finds a counterexample to induction at once in the small bounded universe, and over the
 * unbounded sorts often not within its time limit (dropping hold conjunct 1 or 2: 60 s,
 * then unknown); an obligation that holds is proved over the unbounded sorts, and the
 * bounded search before it (about 60% of a proved obligation's CPU) finds nothing. So the
 * obligations pinned to fail are searched bounded first, as `prove` does; the others are
 * only proved. An outcome other than the pin still shows: a pinned failure that is proved
 * comes back proved, an obligation pinned to hold that fails comes back unknown (or, from
 * a model z3 finds, a counterexample).
 */
import { OBLIGATIONS, type ObligationName, type ProofReport, type ProveOptions } from '../../proofs/obligations.ts';
import { proveEachApart } from './apart.ts';

/** A proof and the obligations it is pinned to fail (`name` or `name:conjunct`). */
export interface PinnedRun {
  /** What to prove. */
  readonly options: Omit<ProveOptions, 'step' | 'only' | 'bounded'>;
  /** The obligations expected to fail; all others are expected proved. */
  readonly fail: readonly string[];
}

/**
 * Each run proved apart (`proveEachApart`, in a mutant's `child` if given), split by its pin; the reports in the order
 * of `runs`, obligations in {@link OBLIGATIONS}' order. The encoding, if checked, is checked once, with the searched half.
 */
export async function provePinnedApart(runs: readonly PinnedRun[], child?: string): Promise<ProofReport[]> {
  const split = runs.flatMap(({ options, fail }) => {
    const failing = new Set(fail.map((f) => f.replace(/:.*/, '')));
    const searched = OBLIGATIONS.filter((name) => failing.has(name));
    const proved = OBLIGATIONS.filter((name) => !failing.has(name));
    return [
      { ...options, only: searched },
      { ...options, only: proved, bounded: false, checkEncoding: false },
    ];
  });
  const reports = await proveEachApart(split, child);
  return runs.map((_, k) => merged(reports[2 * k]!, reports[2 * k + 1]!));
}

/** One report of the two halves of a run. */
function merged(searched: ProofReport, proved: ProofReport): ProofReport {
  const all = [...searched.obligations, ...proved.obligations];
  const order = (name: ObligationName): number => OBLIGATIONS.indexOf(name);
  const obligations = all.sort((a, b) => order(a.name) - order(b.name));
  return { ...searched, obligations, proved: searched.proved && proved.proved };
}
