// The refinement with token slots at fuller counts (heavy tier); test/impl/mbt-slots.test.ts runs a sample of each.
// Kill runs of test/impl/mutants.ts's ten and mbt-slots.test.ts's two slot mutants on these seeds (issue 28): every one
// that the variants' runs (seed 23) can show fails by run 355, the every-fault runs' (seed 22) by run 10, and under hardened
// (seed 21) a dropped late write fails only at run 1,549, the others by run 19: hence 2,000 hardened runs, 1,000 of the rest
// (3,000 and 2,000 before: 21 s of CPU).
import { slotRefinement } from './mbt-slots-refinement.ts';

slotRefinement({ hardened: 2_000, everyFault: 1_000, variants: 1_000 });
