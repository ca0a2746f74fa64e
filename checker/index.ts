/** The explicit-state model checker: its public surface. */
export type { CheckOptions, CheckResult, Violation, WitnessResult } from './types.ts';
export { check } from './bfs.ts';
export { createCanonicalizer, symmetryClasses, type Canonicalizer } from './symmetry.ts';
export { runMatrix, cellConfig, type MatrixBase, type MatrixCell, type MatrixOptions, type MatrixResult } from './matrix.ts';
