import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionKind } from '../../spec/index.ts';
import { checkConformance } from '../../proofs/conformance.ts';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { PREFIX_PAGE_MUTANTS, mutantStep } from './mutants.ts';
import { solve } from '../../proofs/z3-cleanups.ts';

// The proof covers prefixes of any number of pages: its vocabulary leaves a prefix's
// length open, and the encoding check runs on a universe whose prefix sys has 2 pages.

let z3: Z3Session;
beforeAll(async () => {
  z3 = await openZ3();
}, 60_000);
afterAll(async () => {
  await z3.close();
});

describe('a prefix of several pages', () => {
  it('is allowed by the vocabulary: a prefix may cover slot 1 too, and its pages are distinct labels', async () => {
    const v = z3.v;
    const { ctx } = v;
    const r = ctx.Const('r', v.Req);
    const solver = new ctx.Solver();
    solver.add(...v.axioms, v.hasPrefix(r), v.inPrefix(v.group(r), v.slot1), v.len(r).eq(3));
    expect(await solve(solver)).toBe('sat');
    // and the axioms keep it shorter than the request: a prefix covering a 2-page request's last slot is ruled out
    const short = new ctx.Solver();
    short.add(...v.axioms, v.hasPrefix(r), v.inPrefix(v.group(r), v.slot1), v.len(r).eq(2));
    expect(await solve(short)).toBe('unsat');
    const distinct = new ctx.Solver();
    distinct.add(v.prefix(v.group(r), v.slot0).eq(v.prefix(v.group(r), v.slot1)), ctx.Not(v.slot0.eq(v.slot1)));
    expect(await solve(distinct)).toBe('unsat');
  }, 60_000);

  // That the prefix of two pages is in the encoding check's universe, and that the spec's step and the encoding agree
  // there on every kind, is cli.test.ts's first test (owner-check, end to end: its universe line names `sys of 2 pages`).

  it('catches every mutant that confuses one page of a prefix with another, at the action it breaks', async () => {
    const caught: string[] = [];
    for (const mutant of PREFIX_PAGE_MUTANTS) {
      const kinds = [...new Set([...mutant.caughtAt.split(','), 'handoff'])] as ActionKind[];
      const report = await checkConformance(z3, 'owner-check', [...OWNER_CHECK_FAULTS], await mutantStep(mutant), kinds);
      caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
    }
    expect(caught).toEqual(PREFIX_PAGE_MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
  }, 120_000);

  // That `prove` reports such a disagreement as DISAGREES, exit 1, at the action named, is mutants.test.ts's, end to end.
});
