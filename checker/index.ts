/** The explicit-state model checker: its public surface. It knows no particular model: a model implements {@link Checkable}. */
export type { CheckOptions, CheckResult, Trace, TraceStep, Violation, WitnessResult } from './types.ts';
export { DEADLOCK } from './types.ts';
export type { Accelerator, Checkable, Conjunction, ModelFactory, ModelProperty, SuccessorSink } from './model.ts';
export { enabledActions, successorsOf } from './model.ts';
export { ACTION_LIMIT, DEFAULTS } from './options.ts';
export { check } from './bfs.ts';
export { runActions } from './replay.ts';
export { ScratchState } from './scratch.ts';
export { strideOf, wordState, type WordState } from './words.ts';
export { simulate, mergeSimulations, violationOrder, type SimulateOptions, type SimulatedViolation, type SimulationResult } from './simulate.ts';
export { shrinkActions } from './shrink.ts';
export { checkParallel, type ParallelOptions } from './parallel.ts';
export type { FingerprintSink, HashedSuccessors } from './model.ts';
export { Zobrist } from './zobrist.ts';
