/**
 * The state's arrays as z3 terms: a read, a read as a formula, a write, and an array
 * defined pointwise. The predicates (`predicates.ts`) and the encoding are written with them.
 */
import type { Arr, F, Vocabulary, Z } from './vocabulary-types.ts';

/** `a[i, ...]` as a term. */
export function at(a: Arr, ...ix: (Z | number)[]): Z {
  return (a.select as (...i: (Z | number)[]) => Z)(...ix);
}

/** `a[i, ...]` as a formula (for the Bool-valued arrays). */
export function holds(a: Arr, ...ix: (Z | number)[]): F {
  return at(a, ...ix) as F;
}

/** `a` with `a[i, ...] = x`. */
export function put(a: Arr, ...ixAndValue: (Z | number | boolean)[]): Arr {
  return (a.store as (...x: (Z | number | boolean)[]) => Arr)(...ixAndValue);
}

/** The array `λ vars. body`: a state variable defined pointwise. */
export function lambda(v: Vocabulary, vars: [Z, ...Z[]], body: Z): Arr {
  return (v.ctx.Lambda as (vs: Z[], b: Z) => Arr)(vars, body);
}
