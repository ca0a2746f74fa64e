import { describe, expect, it } from 'vitest';
import { formatReport, toJson } from '../../cli/commands/prove.ts';
import { invariantFor } from '../../proofs/invariant.ts';
import { retryable, type ProofReport } from '../../proofs/obligations.ts';

// An unknown from z3 is asked again with another seed unless z3 ran out of time; the report
// says how it was settled. (z3's unknowns come and go with the order of terms, so a real one
// cannot be summoned on demand: here the report is built by hand.)
describe('an obligation z3 answers unknown', () => {
  it('is asked again for incomplete quantifiers, not for a timeout', () => {
    expect(retryable('(incomplete quantifiers)')).toBe(true);
    expect(retryable('smt tactic failed to show goal to be sat/unsat (incomplete quantifiers)')).toBe(true);
    expect(retryable('timeout')).toBe(false);
    expect(retryable('canceled')).toBe(false);
  });

  it('the report gives z3’s reasons, or that another seed settled it', () => {
    const report: ProofReport = {
      variant: 'owner-check',
      faults: ['early-free', 'torn-write'],
      invariant: invariantFor('owner-check', ['early-free', 'torn-write']),
      obligations: [
        { name: 'landData', result: 'unknown', ms: 900, unknownReasons: ['(incomplete quantifiers)', 'timeout'], attempts: 2 },
        { name: 'landTag', result: 'proved', ms: 700, attempts: 2 },
      ],
      proved: false,
    };
    const text = formatReport(report);
    expect(text).toMatch(/^ {2}landData +unknown +900 ms {3}\(z3: \(incomplete quantifiers\); timeout\)$/m);
    expect(text).toMatch(/^ {2}landTag +proved +700 ms {3}\(z3 answered unknown 1x first; settled with another seed\)$/m);
    expect(text).toContain('not proved: landData (unknown).');
    expect(toJson(report)).toMatchObject({ obligations: [{ name: 'landData', attempts: 2, unknownReasons: ['(incomplete quantifiers)', 'timeout'] }, { name: 'landTag', attempts: 2 }] });
  });
});
