import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { configFrom, type Config } from '../../spec/index.ts';
import { PROOF_FAULTS, type ProofReport } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { checkConformance } from '../../proofs/conformance.ts';
import type { ActionKind } from '../../spec/index.ts';
import { LANDING_MUTANTS, mutantStep, mutantTree, pagecheckIn, removeTree, TORN_WRITE_MUTANTS } from './mutants.ts';

let z3: Z3Session;
/**
 * A z3 session of its own for each proof: many proofs in one z3 context (here, dozens in a
 * row) crash z3's WebAssembly build now and then ("memory access out of bounds"), where
 * the same proofs in fresh contexts do not; `prove` itself opens one session a run.
 */
const fresh = (): Promise<Z3Session> => openZ3();
beforeAll(async () => {
  z3 = await openZ3();
}, 60_000);
afterAll(async () => {
  await z3.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

export const failing = (report: ProofReport): string[] => report.obligations.filter((o) => o.result !== 'proved').map((o) => o.name);

/** The hold invariant's ten conjuncts, in order: `--drop N` names them. */
export const HOLD_NAMES = [
  'NewIsBlank',
  'NoLateParts',
  'OwnPagesHeld',
  'SharedPageCached',
  'DistinctSlots',
  'FreeListUnheld',
  'UntaggedUntilLanded',
  'LandedPartsHold',
  'OwnTagNamesContent',
  'CacheTagNamesContent',
];

/** check's shortest leak under owner-check with early-free and torn-write (2 pages, requests 1,1). */
export const TORN: Config = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] });

/** Runs `pagecheck …` in-process; its exit code and what it printed. */
export async function pagecheck(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const capture = (chunk: string | Uint8Array): boolean => {
    out += String(chunk);
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  process.exitCode = undefined;
  const code = await main(argv);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, out };
}


describe('prove on a copy of the project whose hardened has lost a torn-write mechanism fails', () => {
  it('without revoke-writer the invariant breaks (exit 1 at timeout); a late write that ignores it disagrees with the encoding (exit 1 at prefill)', async () => {
    const dirs = TORN_WRITE_MUTANTS.map(mutantTree);
    try {
      const [off, ignored] = await Promise.all(dirs.map((dir) => pagecheckIn(dir, ['prove', '--variant', 'hardened', '--faults', 'early-free,torn-write'])));
      expect(off?.code).toBe(1);
      expect(off?.out).toMatch(/^ {2}encoding +agrees/m);
      expect(off?.out).toMatch(/^not proved: prefill \(counterexample\), timeout \(counterexample\)\.$/m);
      expect(off?.out).toMatch(/^ {6}NoLateParts fails \(request r\d\)\.$/m);
      expect(ignored?.code).toBe(1);
      expect(ignored?.out).toMatch(/^ {2}encoding +DISAGREES/m);
      expect(ignored?.out).toMatch(/^not proved: the encoding disagrees with the spec's step at prefill\([A-D]\)/m);
    } finally {
      dirs.forEach(removeTree);
    }
  }, 240_000);
});

describe('the encoding check covers the part landings: it disagrees with a spec whose landings are wrong past the third page', () => {
  it('at landData and at landTag, and nowhere else', async () => {
    const caught: string[] = [];
    for (const mutant of LANDING_MUTANTS) {
      const dir = mutantTree(mutant);
      try {
        const kinds: ActionKind[] = ['landData', 'landTag', 'handoff'];
        const report = await checkConformance(await fresh(), 'hardened', [...PROOF_FAULTS], await mutantStep(dir), kinds);
        caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
      } finally {
        removeTree(dir);
      }
    }
    expect(caught).toEqual(LANDING_MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
  }, 180_000);
});
