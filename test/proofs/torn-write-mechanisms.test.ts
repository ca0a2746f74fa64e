import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { configFrom, MECHANISMS, type Config } from '../../spec/index.ts';
import { prove, PROOF_FAULTS, type ProofReport } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { HOLD_WITHOUT } from './expected-torn.ts';
import type { Fault } from '../../spec/index.ts';

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

describe('hardened under torn writes: each mechanism and each fault', () => {
  it('each mechanism is what one obligation rests on: switched off, z3 finds the counterexample there', async () => {
    for (const off of MECHANISMS) {
      const report = await prove(await fresh(), { variant: 'hardened', faults: [...PROOF_FAULTS], without: [off], checkEncoding: false });
      const broken = report.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.counterexample?.violated ?? o.result}`);
      expect({ off, broken }).toEqual({ off, broken: HOLD_WITHOUT[off] });
    }
  }, 120_000);

  it('proves it with each fault alone and with none', async () => {
    for (const faults of [[], ...PROOF_FAULTS.map((f): Fault[] => [f])]) {
      const report = await prove(await fresh(), { variant: 'hardened', faults, checkEncoding: false });
      expect({ faults, failing: failing(report) }).toEqual({ faults, failing: [] });
    }
  }, 120_000);

});
