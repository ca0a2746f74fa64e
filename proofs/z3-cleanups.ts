/**
 * z3's cleanups held back while it solves. Its JavaScript binding frees a collected
 * term, solver or model from a `FinalizationRegistry` callback, on the main thread,
 * whenever the event loop is free: exactly while a `check` runs in one of z3's own
 * threads over the same WebAssembly heap. The binding's mutex orders checks, not
 * cleanups, so a free can land in the middle of a check and corrupt z3's heap: the
 * "memory access out of bounds" (and worse) that z3 issue #7723 reports and that our
 * proof runs met now and then, in code that does nothing else concurrently.
 *
 * So the registry z3 makes when it starts ({@link initHolding}) is one whose callbacks
 * wait while a check is running, and every check goes through {@link solve}, which runs
 * what waited once the check has answered. Nothing is freed later than the end of the
 * check it waited for, and nothing is freed during one.
 */
import { init, type CheckSatResult, type Solver } from 'z3-solver';

/** Checks running now (z3 runs them one at a time, but callers may await several). */
let running = 0;
/** Cleanups that fell due while a check ran. */
const held: (() => void)[] = [];

/** A `FinalizationRegistry` whose callbacks wait, while a check runs, until it has answered. */
export class HoldingRegistry<T> extends FinalizationRegistry<T> {
  constructor(cleanup: (value: T) => void) {
    super((value) => {
      if (running > 0) held.push(() => cleanup(value));
      else cleanup(value);
    });
  }
}

/** z3's `init`, with the registry it makes for its cleanups a {@link HoldingRegistry}. */
export async function initHolding(): Promise<Awaited<ReturnType<typeof init>>> {
  const original = globalThis.FinalizationRegistry;
  globalThis.FinalizationRegistry = HoldingRegistry as typeof FinalizationRegistry;
  try {
    return await init();
  } finally {
    globalThis.FinalizationRegistry = original;
  }
}

/** `solver.check(...assumptions)`, with z3's cleanups held back until it answers. */
export async function solve<N extends string>(solver: Solver<N>, ...assumptions: Parameters<Solver<N>['check']>): Promise<CheckSatResult> {
  running++;
  try {
    return await solver.check(...assumptions);
  } finally {
    running--;
    if (running === 0) for (const cleanup of held.splice(0)) cleanup();
  }
}

/** Cleanups waiting now: 0 except during a check (for the tests). */
export function heldCleanups(): number {
  return held.length;
}
