import { describe, it } from 'vitest';
import { differential, report } from './agreement.ts';

// The heavy tier's share of the differential test (the fast tier's sample is agreement.test.ts): other seeds, more configurations, up to 10,000 states each.
describe('the fast path, the general successors and step agree on random configurations at real sizes', () => {
  it.each([22, 4096])('seed %i: 100 configurations, up to 10,000 states each', { timeout: 900_000 }, (seed) => {
    report(`agreement (heavy tier, seed ${seed})`, differential(seed, 100, 10_000));
  });
});
