/**
 * The binding between the protocol (`spec/`) and the engine (`checker/`): the spec as a
 * model the checker can search (`checkedModel`), the spec's transitions arranged for the
 * search (`expanders.ts`), the symmetry reductions, and the fast encodings of the
 * family of configurations that run at full speed (`family.ts`, `successors.ts`,
 * `properties.ts`), each with an agreement test against the readable spec. `spec/`
 * imports nothing from here or from `checker/`; `checker/` imports nothing from either.
 */
export * from './symmetry.ts';
export * from './expanders.ts';
export * from './checked-model.ts';
