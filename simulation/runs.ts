/**
 * Which runs a shard does, and each run's generator. Run `k` of a simulation seeded `S`
 * draws from the project's seeded generator (incident/prng.ts) built from `S` and `k`
 * alone, so any split of the runs into shards does the same runs, and one run can be
 * replayed by its number.
 */
import { Prng } from '../incident/prng.ts';

/** The generator of run `run` of a simulation seeded `seed`: 32-bit draws. */
export function runRandom(seed: number, run: number): () => number {
  // splitmix32 inside Prng spreads the mixed seed; the golden-ratio step keeps runs apart.
  const prng = new Prng((seed ^ Math.imul(run + 1, 0x9e3779b9)) >>> 0);
  return () => prng.nextU32();
}

/** The runs of shard `index` (1-based) of `of`: run numbers `k < runs` with `k mod of = index - 1`. */
export function shardRuns(runs: number, index: number, of: number): number[] {
  const out: number[] = [];
  for (let k = index - 1; k < runs; k += of) out.push(k);
  return out;
}
