/**
 * The z3 session: one wasm instance and one context for a whole run. z3's worker threads
 * keep Node alive, so whoever opens a session must close it (`killThreads`).
 */
import { killThreads } from 'z3-solver';
import { initHolding } from './z3-cleanups.ts';
import { vocabulary, type Bounds, type Vocabulary } from './vocabulary.ts';

/** An open z3 context with the encoding's vocabulary declared in it. */
export interface Z3Session {
  /** The vocabulary over unbounded sorts, in the session's main context. */
  readonly v: Vocabulary;
  /** The vocabulary over a bounded universe, each in a context of its own (made once per bounds). */
  readonly bounded: (bounds: Bounds) => Vocabulary;
  /** Ends z3's worker threads; the session is unusable afterwards. */
  readonly close: () => Promise<void>;
}

/** Starts z3 and declares the vocabulary. */
export async function openZ3(): Promise<Z3Session> {
  // z3's cleanups wait while it solves (z3-cleanups.ts): every check goes through `solve`.
  const api = await initHolding();
  const made = new Map<string, Vocabulary>();
  return {
    v: vocabulary(api.Context('main')),
    bounded: (bounds) => {
      const key = JSON.stringify(bounds);
      const known = made.get(key);
      if (known !== undefined) return known;
      const v = vocabulary(api.Context('main'), bounds);
      made.set(key, v);
      return v;
    },
    close: () => killThreads(api.em),
  };
}
