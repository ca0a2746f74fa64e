/** Traces the trace tests share: the minimal leak and one counterexample per fault, built by running the spec. */
import {
  compile,
  incidentConfig,
  matrixConfig,
  parseAction,
  run,
  type Action,
  type Config,
  type Model,
  type Trace,
} from '../../spec/index.ts';

/** A model and a trace of it. */
export interface Sample {
  readonly m: Model;
  readonly trace: Trace;
}

/** Runs the actions, written as `allocate(A) prefill(A) ...`, on the configuration; fails loudly if one is not enabled. */
export function sample(config: Config, actions: string): Sample {
  const m = compile(config);
  const parsed = actions.split(' ').map((label): Action => {
    const a = parseAction(m, label);
    if (a === undefined) throw new Error(`no action ${label}`);
    return a;
  });
  const result = run(m, parsed);
  if ('notEnabled' in result) throw new Error(`step ${result.notEnabled.step}: ${result.notEnabled.action} is not enabled`);
  return { m, trace: result.trace };
}

/** The actions of the minimal leak (docs/BACKGROUND.md, "The minimal leak"). */
export const MINIMAL_LEAK = 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) handoff(B) decode(B)';

/** The minimal leak: B is stubbed and reads A's page 1 (Isolation, 9 steps). */
export const minimalLeak = (): Sample => sample(incidentConfig('buggy'), MINIMAL_LEAK);

/** Fault early-free: A's late write lands in C's pages (Isolation, 7 steps). */
export const earlyFree = (): Sample =>
  sample(matrixConfig('buggy', ['early-free']), 'allocate(A) timeout(A) allocate(C) prefill(C) prefill(A) handoff(C) decode(C)');

/** Fault stale-free: A's second release frees the pages C now holds (ExclusiveHold and Conservation, 7 steps). */
export const staleFree = (): Sample =>
  sample(matrixConfig('buggy', ['stale-free']), 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(C) free(A)');

/** Fault stale-free, carried on until C decodes pages that B holds (ReadsOwnPages, 11 steps). */
export const staleRead = (): Sample =>
  sample(
    matrixConfig('buggy', ['stale-free']),
    'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(C) free(A) allocate(B) prefill(C) handoff(C) decode(C)',
  );

/** Fault prefix-poison: refused B's page 0, holding A's data, is cached for prefix sys and C reads it (Isolation, 13 steps). */
export const prefixPoison = (): Sample =>
  sample(
    matrixConfig('buggy', ['prefix-poison']),
    'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) insert(B) free(B) allocate(C) prefill(C) handoff(C) decode(C)',
  );

/** Owner check with the stub bug and prefix poison: both leaks fail loudly instead (no violation, 15 steps). */
export const ownerCheck = (): Sample =>
  sample(
    matrixConfig('owner-check', ['silent-stub', 'prefix-poison']),
    'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) handoff(B) decode(B) insert(B) free(B) allocate(C) prefill(C) handoff(C) decode(C)',
  );
