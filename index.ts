/**
 * pagecheck as a library, for a user's own test suite: the spec, the checker, trace
 * replay and printers, and the TypedArray page pool.
 */
export * from './spec/index.ts';
export * from './binding/index.ts';
export {
  check,
  checkParallel,
  simulate,
  mergeSimulations,
  violationOrder,
  DEADLOCK,
  type Accelerator,
  type Checkable,
  type ModelFactory,
  type ModelProperty,
  type CheckOptions,
  type CheckResult,
  type ParallelOptions,
  type SimulationResult,
  type Violation,
  type WitnessResult,
} from './checker/index.ts';
export { runMatrix } from './matrix/matrix.ts';
export { formatTrace, formatItf, replayItf, ReplayError, TraceInputError, type ReplayResult } from './trace/index.ts';
export { PagePool, type PoolOptions } from './impl/index.ts';
