import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { check } from '../../checker/index.ts';
import { main } from '../../cli/main.ts';
import { actionLabel, checkedModel, compile, configFrom, matrixConfig, MECHANISMS, type Config } from '../../spec/index.ts';
import { failingParts, HOLD_INVARIANT } from '../../proofs/invariant.ts';
import { OBLIGATIONS, prove, PROOF_FAULTS, type ProofReport } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { runLabels } from '../spec/helpers.ts';
import { checkReachable } from './enumerate.ts';
import { HOLD_DROPS, HOLD_WITHOUT } from './expected-torn.ts';
import { checkConformance } from '../../proofs/conformance.ts';
import type { ActionKind, Fault } from '../../spec/index.ts';
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
const TORN: Config = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] });

/** Runs `pagecheck …` in-process; its exit code and what it printed. */
async function pagecheck(...argv: string[]): Promise<{ code: number; out: string }> {
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

describe('owner-check under early-free and torn-write: the proof fails where the design does', () => {
  it('prove exits 1 with counterexamples to induction at prefill and timeout, told in the spec’s words', async () => {
    const { code, out } = await pagecheck('prove', '--variant', 'owner-check', '--faults', 'early-free,torn-write');
    expect(code).toBe(1);
    expect(out).toContain('invariant: Isolation ∧ 1.NewIsBlank ∧ 2.NoLateParts ∧ 3.OwnPagesHeld');
    expect(out).toMatch(/^ {2}encoding +agrees/m);
    expect(out).toMatch(/^ {2}timeout +counterexample/m);
    // the state before: a request writing, its pages held; the step: D frees them with the parts still in flight
    expect(out).toMatch(/before timeout\((r\d)\), a state that satisfies the invariant:\n {8}request \1: writing;/);
    expect(out).toMatch(/timeout\((r\d)\): D times \1 out and frees its pages: p\d now held by nobody \(free\)/);
    expect(out).toMatch(/after it:\n {8}request (r\d): landing;/);
    expect(out).toMatch(/^ {6}NoLateParts fails \(request r\d\)\.$/m);
    // the late write posted after a timeout: the same conjunct
    expect(out).toMatch(/prefill\((r\d)\): P posts \1's write; its content and tag parts land later/);
    expect(out).toMatch(/^not proved: prefill \(counterexample\), timeout \(counterexample\)\.$/m);
  }, 120_000);

  it('with torn writes, the owner check alone fails exactly with the faults that bring a foreign write to a held page', async () => {
    const broken: Record<string, string[]> = {};
    for (const f of PROOF_FAULTS.filter((x) => x !== 'torn-write')) {
      const report = await prove(await fresh(), { variant: 'owner-check', faults: [f, 'torn-write'], checkEncoding: false });
      broken[f] = report.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.counterexample?.violated ?? o.result}`);
    }
    // the same three that check finds a leak with (2 pages, requests 1,1 or 1,1,1); torn-write alone is proved
    expect(broken).toEqual({
      'silent-stub': [],
      'early-free': ['prefill:NoLateParts', 'timeout:NoLateParts'],
      'stale-free': ['free:OwnPagesHeld'],
      'prefix-poison': [],
      'double-free': ['free:FreeListUnheld'],
      'lock-underflow': [],
    });
    expect(failing(await prove(await fresh(), { variant: 'owner-check', faults: ['torn-write'], checkEncoding: false }))).toEqual([]);
  }, 120_000);

  it('the counterexample at timeout is reachable: check’s shortest leak (10 actions, 244 states) takes that step at step 3', () => {
    const m = compile(TORN);
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 244, 10]);
    const labels = r.violations[0]?.trace.steps.map((s) => actionLabel(m, s.action)) ?? [];
    expect(labels).toEqual(['allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'landData(A)', 'landTag(B)', 'handoff(B)', 'decode(B)']);
    // replayed: the invariant holds up to A writing, and timeout(A) breaks NoLateParts first; Isolation breaks at the end
    const parts = labels.map((_, i) => failingParts(runLabels(TORN, labels.slice(0, i + 1)).m, runLabels(TORN, labels.slice(0, i + 1)).last, HOLD_INVARIANT));
    expect(parts.slice(0, 2)).toEqual([[], []]);
    expect(parts[2]).toEqual(['NoLateParts']);
    expect(parts[9]).toContain('Isolation');
  }, 60_000);
});

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
