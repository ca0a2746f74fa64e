// The pool's eviction against the spec at its full count (heavy tier); test/impl/eviction.test.ts runs a sample.
import { evictionRefinement } from './eviction-refinement.ts';

evictionRefinement(3_000);
