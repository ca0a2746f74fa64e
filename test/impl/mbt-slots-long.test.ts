// The refinement with token slots at its full counts (heavy tier); test/impl/mbt-slots.test.ts runs a sample of each.
import { slotRefinement } from './mbt-slots-refinement.ts';

slotRefinement({ hardened: 3_000, everyFault: 2_000, variants: 2_000 });
