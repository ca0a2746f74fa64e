import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionKind } from '../../spec/index.ts';
import { checkConformance } from '../../proofs/conformance.ts';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { PREFIX_PAGE_MUTANTS, mutantStep, mutantTree, pagecheckIn, removeTree } from './mutants.ts';
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

  it('is in the encoding check’s universe, where the spec’s step and the encoding agree', async () => {
    const report = await checkConformance(z3, 'owner-check', [...OWNER_CHECK_FAULTS], undefined, ['allocate', 'prefill', 'decode', 'insert']);
    expect(report.universe).toBe('6 pages; A (1), B (4, sys of 2 pages), C (5, sys of 2 pages), D (2, tmp); prefill limit 4');
    expect(report.mismatches).toEqual([]);
    expect(report.steps).toBeGreaterThan(100);
  }, 120_000);

  it('catches every mutant that confuses one page of a prefix with another, at the action it breaks', async () => {
    const caught: string[] = [];
    for (const mutant of PREFIX_PAGE_MUTANTS) {
      const dir = mutantTree(mutant);
      try {
        const kinds = [...new Set([...mutant.caughtAt.split(','), 'handoff'])] as ActionKind[];
        const report = await checkConformance(z3, 'owner-check', [...OWNER_CHECK_FAULTS], await mutantStep(dir), kinds);
        caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
      } finally {
        removeTree(dir);
      }
    }
    expect(caught).toEqual(PREFIX_PAGE_MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
  }, 120_000);

  it('`prove --variant owner-check` on a spec that accepts prefix page j at another prefix position: exit 1 at decode', async () => {
    const mutant = PREFIX_PAGE_MUTANTS[0];
    if (mutant === undefined) throw new Error('no prefix-page mutant');
    const dir = mutantTree(mutant);
    try {
      const run = await pagecheckIn(dir, ['prove', '--variant', 'owner-check']);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^ {2}encoding +DISAGREES/m);
      expect(run.out).toMatch(/^not proved: the encoding disagrees with the spec's step at decode\([B-C]\)\.$/m);
    } finally {
      removeTree(dir);
    }
  }, 180_000);
});
