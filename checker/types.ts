/** The checker's contract: what a caller may ask for and what it gets back. */

/** One step of a trace: the action taken and the state it led to. */
export interface TraceStep<A> {
  /** The action taken. */
  readonly action: A;
  /** The state after it. */
  readonly state: Uint8Array;
}

/** An execution: the initial state and the steps taken from it. */
export interface Trace<A> {
  /** State 0. */
  readonly initial: Uint8Array;
  /** Steps 1..n. */
  readonly steps: readonly TraceStep<A>[];
}

/** How to search; `options.ts` holds what a field left out means. */
export interface CheckOptions {
  /** Merge states of one symmetry orbit, when the model has a canonicaliser; default true. */
  readonly symmetry?: boolean;
  /** Stop with verdict `incomplete` once this many distinct states are stored. */
  readonly maxStates?: number;
  /** Record violations and keep exploring, successors of violating states included, so the count is the whole reachable space. */
  readonly continueAfterViolation?: boolean;
  /** The invariants to check, by name; default every `always` property of the model. */
  readonly invariants?: readonly { readonly name: string }[];
  /** Report a state with no enabled action that is not a legitimate end as `Deadlock`; default true. */
  readonly deadlock?: boolean;
  /** Use the model's fingerprint-first successors (`Accelerator.hashed`) where no canonicaliser is in effect; default true. Changes no result, only speed. */
  readonly fingerprintFirst?: boolean;
  /**
   * Partial-order reduction, where the model offers it (`Checkable.reduction`); default
   * false. The verdict, each violation's trace (re-found without the reduction) and the
   * witnesses are those of the plain search; the state count is the reduced graph's.
   */
  readonly por?: boolean;
  /**
   * The one-thread search's memory budget for its queue and parent links, each, past which
   * their chunks go to a temp file (`spill.ts`; default 256 MiB each, 1 MiB chunks). The
   * switch is automatic: nothing changes but where the bytes are.
   */
  readonly spill?: { readonly memoryBytes?: number; readonly chunkBytes?: number; readonly dir?: string };
  /** Called about every 65,536 new states. */
  readonly onProgress?: (p: { states: number; queue: number; depth: number }) => void;
}

/** The name of the violation reported for a state where nothing can happen but the model has not legitimately ended. */
export const DEADLOCK = 'Deadlock';

/** The shortest counterexample found for one invariant (or `Deadlock`). */
export interface Violation<A = unknown> {
  /** The invariant's name, or `Deadlock`. */
  readonly invariant: string;
  /** Number of actions from the initial state to the violating one. */
  readonly depth: number;
  /** A genuine execution, replayed from the initial state with real actions. */
  readonly trace: Trace<A>;
}

/** Whether a non-vacuity witness was reached, and whether it could not have been vacuous. */
export interface WitnessResult {
  /** The witness's name. */
  readonly name: string;
  /** Whether it is expected to be reachable in this configuration. */
  readonly applies: boolean;
  /** Whether some explored state satisfied it; only a witness that applies is looked for. */
  readonly reached: boolean;
  /** Reached, but true in the initial state or in every state explored: it witnesses nothing. */
  readonly trivial: boolean;
}

/** What a search found. */
export interface CheckResult<A = unknown> {
  /** `violation` if any invariant failed (or a deadlock was found); otherwise `incomplete` if the state budget ran out; otherwise `holds`. */
  readonly verdict: 'holds' | 'violation' | 'incomplete';
  /** The first (shortest) violation of each invariant, in breadth-first order. */
  readonly violations: readonly Violation<A>[];
  /** Distinct states stored (after symmetry reduction, when on). */
  readonly distinctStates: number;
  /** The greatest depth of a stored state: the longest shortest path explored. */
  readonly depth: number;
  /** Every witness of the model, reached or not. */
  readonly witnesses: readonly WitnessResult[];
  /** Peak bytes of the search's stores per distinct state: the fingerprint table as allocated, parent links and the queue at its longest. */
  readonly bytesPerState: number;
  /** Bytes the one-thread search wrote to its temp file when its queue or parent links passed their memory budget; absent when nothing spilled. */
  readonly spilledBytes?: number;
  /** Whether symmetry reduction was asked for (it reduces only where the model has a canonicaliser). */
  readonly symmetry: boolean;
  /** Partial-order reduction, when it was in effect (see {@link ReductionReport}). */
  readonly reduction?: ReductionReport;
}

/**
 * What the partial-order reduction did. Without a violation the result's counts are the
 * reduced search's. With one, its shortest trace was found again by the plain search
 * (`reduction.ts`): a search that stops at its first violation then reports the plain
 * search's result whole (that of `por: false`), one that goes on (`continueAfterViolation`)
 * the reduced search's counts with the plain search's traces.
 */
export interface ReductionReport {
  /** States the reduced search stored. */
  readonly states: number;
  /** Its depth. */
  readonly depth: number;
  /** The violations it found, with their depth in the reduced graph (a shortest trace there need not be one in the whole graph). */
  readonly violations: readonly { readonly invariant: string; readonly depth: number }[];
  /** States the plain search stored to find the shortest counterexamples again; absent when the reduced search found none. */
  readonly plainStates?: number;
}
