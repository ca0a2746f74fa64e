/**
 * What the proofs are expected to come to, pinned once and checked twice: by z3 over
 * unbounded sorts, and by the exhaustive universe of the executable spec. That the two
 * agree obligation for obligation is what ties the encoding to `step`.
 */
import type { ActionKind } from '../../spec/index.ts';
import type { ProofFault } from '../../proofs/coverage.ts';

/** Dropping length-fix conjunct N: the obligations that then fail. */
export const LENGTH_FIX_DROPS: Readonly<Record<number, readonly ActionKind[]>> = {
  1: ['allocate'],
  2: ['prefill'],
  3: ['prefill', 'free'],
  4: ['decode'],
  5: ['decode'],
  6: ['decode', 'insert'],
  7: ['prefill'],
};

/** Dropping owner-check conjunct N: the obligations that then fail. */
export const OWNER_CHECK_DROPS: Readonly<Record<number, readonly ActionKind[]>> = {
  1: ['decode'],
};

/** The length fix with one fault of the proof on (proofs/coverage.ts; prove refuses the others, and the checker's bounded runs stand in): the obligations that fail (the fix stops only the silent stub). */
export const LENGTH_FIX_FAULTS: Readonly<Record<ProofFault, readonly ActionKind[]>> = {
  'silent-stub': [],
  'early-free': ['timeout'],
  'stale-free': ['free'],
  'prefix-poison': ['insert'],
  'double-free': ['allocate'],
  'lock-underflow': [],
  // Not tried: the length fix's proof is about no faults at all; torn writes are proved for hardened (expected-torn.ts).
  'torn-write': [],
};
