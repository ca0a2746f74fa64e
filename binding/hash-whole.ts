/**
 * The fingerprint of a fast-family successor that the emitted deltas (`fast-fingerprints.ts`)
 * leave out: a case left to the spec's transition, or a table naming a page twice (one
 * byte written twice, where a delta would take the old value out twice). The successor is
 * written out with `apply` and hashed whole; such cases are never reached in the family's
 * reachable states, so their cost does not matter.
 */
import type { FingerprintSink } from '../checker/model.ts';
import type { Zobrist } from '../checker/zobrist.ts';
import { apply } from './fast-apply.ts';
import type { FastFamily } from './family.ts';
import type { State } from '../spec/state.ts';

/** Action `a`'s fingerprint from its successor, hashed whole: for the cases the deltas leave out. */
export function byHash(f: FastFamily, s: State, a: number, z: Zobrist, sink: FingerprintSink, quiet = false): void {
  const t = Uint8Array.from(s);
  apply(f, s, a, t);
  z.hash(t, f.hash, 0);
  sink(a, f.hash[0]!, f.hash[1]!, quiet);
}
