import { describe, it } from 'vitest';
import { differential, report } from './agreement.ts';

// The sample of the fast tier; test/binding/agreement-heavy.test.ts runs more configurations, and larger parts of their spaces, in the heavy tier.
describe('the fast path, the general successors and step agree on random configurations at real sizes (a sample)', () => {
  it('seed 27: 30 configurations, up to 1,000 states each', { timeout: 120_000 }, () => {
    report('agreement (fast tier, seed 27)', differential(27, 30, 1000));
  });
});
