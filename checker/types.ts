/** The checker's contract: what a caller may ask for and what it gets back. */
import type { Property, Trace } from '../spec/index.ts';

/** How to search. */
export interface CheckOptions {
  /** Merge states that differ only by renaming interchangeable requests; default true. */
  readonly symmetry?: boolean;
  /** Stop with verdict `incomplete` once this many distinct states are stored. */
  readonly maxStates?: number;
  /** Record violations and keep exploring, successors of violating states included, so the count is the whole reachable space. */
  readonly continueAfterViolation?: boolean;
  /** The invariants to check; default `DEFAULT_INVARIANTS` (every one but `Integrity`). */
  readonly invariants?: readonly Property[];
  /** Called about every 65,536 new states. */
  readonly onProgress?: (p: { states: number; queue: number; depth: number }) => void;
}

/** The shortest counterexample found for one invariant. */
export interface Violation {
  /** The invariant's name. */
  readonly invariant: string;
  /** Number of actions from the initial state to the violating one. */
  readonly depth: number;
  /** A genuine execution, replayed from the initial state with real actions. */
  readonly trace: Trace;
}

/** Whether a non-vacuity witness was reached. */
export interface WitnessResult {
  /** The witness's name. */
  readonly name: string;
  /** Whether it is expected to be reachable in this configuration. */
  readonly applies: boolean;
  /** Whether some explored state satisfied it; only a witness that applies is looked for. */
  readonly reached: boolean;
}

/** What a search found. */
export interface CheckResult {
  /** `violation` if any invariant failed; otherwise `incomplete` if the state budget ran out; otherwise `holds`. */
  readonly verdict: 'holds' | 'violation' | 'incomplete';
  /** The first (shortest) violation of each invariant, in breadth-first order. */
  readonly violations: readonly Violation[];
  /** Distinct states stored (after symmetry reduction, when on). */
  readonly distinctStates: number;
  /** The greatest depth of a stored state: the longest shortest path explored. */
  readonly depth: number;
  /** Every witness of the spec, reached or not. */
  readonly witnesses: readonly WitnessResult[];
  /** Peak bytes of the search's stores per distinct state: the fingerprint table as allocated, parent links and the queue at its longest. */
  readonly bytesPerState: number;
  /** Whether symmetry reduction was on. */
  readonly symmetry: boolean;
}
