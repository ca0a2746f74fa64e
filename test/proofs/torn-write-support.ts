/** What the torn-write proof tests share: a z3 session per proof, the hold invariant's names, an in-process `pagecheck`. */
import { afterAll, afterEach, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { configFrom, type Config } from '../../spec/index.ts';
import type { ProofReport } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';

/**
 * A z3 session of its own for each proof: many proofs in one z3 context (here, dozens in a
 * row) crash z3's WebAssembly build now and then ("memory access out of bounds"), where
 * the same proofs in fresh contexts do not; `prove` itself opens one session a run.
 */
export const fresh = (): Promise<Z3Session> => openZ3();

/** The hooks every torn-write test file needs: mocks restored after each test, z3's threads ended after the file. */
export function tornHooks(): void {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await (await openZ3()).close();
  });
}

/** The obligations of a report that are not proved. */
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
