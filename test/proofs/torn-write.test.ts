import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { compile, configFrom, matrixConfig, type Config } from '../../spec/index.ts';
import { HOLD_INVARIANT } from '../../proofs/invariant.ts';
import { OBLIGATIONS, prove, PROOF_FAULTS, type ProofReport } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { checkReachable } from './enumerate.ts';
import { HOLD_DROPS } from './expected-torn.ts';

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

const failing = (report: ProofReport): string[] => report.obligations.filter((o) => o.result !== 'proved').map((o) => o.name);

/** The hold invariant's ten conjuncts, in order: `--drop N` names them. */
const HOLD_NAMES = [
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

describe('hardened under torn writes: the hold invariant is inductive for any size, every fault on', () => {
  it('the encoding agrees with step, and all 11 obligations are proved, none of them vacuously', async () => {
    const report = await prove(await fresh(), { variant: 'hardened', faults: [...PROOF_FAULTS] });
    expect(report.invariant.conjuncts.map((c) => c.name)).toEqual(HOLD_NAMES);
    expect(report.conformance?.mismatches).toEqual([]);
    // landData and landTag are compared with step too: the counts include the torn-write phases
    expect(report.conformance?.steps).toBeGreaterThan(900);
    expect(OBLIGATIONS).toHaveLength(11);
    expect(report.obligations.map((o) => [o.name, o.result])).toEqual(OBLIGATIONS.map((name) => [name, 'proved']));
    // every action can happen: timeout (early-free) and the part landings (torn-write) are real obligations
    expect(report.obligations.filter((o) => o.vacuous).map((o) => o.name)).toEqual([]);
    expect(report.proved).toBe(true);
  }, 180_000);

  it('no conjunct is dead weight: dropping any one makes z3 find a counterexample to induction', async () => {
    const found: Record<number, string[]> = {};
    for (const c of HOLD_INVARIANT.conjuncts) {
      const report = await prove(await fresh(), { variant: 'hardened', faults: [...PROOF_FAULTS], drop: c.id, checkEncoding: false });
      expect(report.obligations.filter((o) => o.result === 'unknown')).toEqual([]);
      found[c.id] = failing(report);
    }
    expect(found).toEqual(HOLD_DROPS);
  }, 180_000);

  it('the executable invariant holds on every reachable state of hardened with every fault, and breaks on owner-check', () => {
    const acceptance = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults: [...PROOF_FAULTS], decodeSteps: 2 });
    // regression pins, counted by enumerate.ts's own breadth-first search (no symmetry)
    for (const [config, states] of [[matrixConfig('hardened', [...PROOF_FAULTS]), 26996], [acceptance, 27492]] as const) {
      expect(checkReachable(compile(config))).toEqual({ states, breaches: [] });
    }
    const owner = checkReachable(compile(matrixConfig('owner-check', ['early-free', 'torn-write'])));
    expect(owner.states).toBe(7640);
    expect(owner.breaches.some((b) => b.parts.includes('NoLateParts'))).toBe(true);
  }, 60_000);
});
