import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCode, formatReport, toJson } from '../../cli/commands/prove.ts';
import { invariantFor } from '../../proofs/invariant.ts';
import { prove, retryable, type ProofReport } from '../../proofs/obligations.ts';
import type { Vocabulary } from '../../proofs/vocabulary.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { Z3_CRASH } from './apart.ts';

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

/**
 * A stand-in for z3 that states every query as z3 would (the session's own contexts) but
 * answers each check `unknown`, for `reason`, and counts the checks: the only way to have
 * z3 undecided on demand, since its real unknowns come and go with the order of terms.
 */
function undecided(real: Z3Session, reason: string): { session: Z3Session; checks: () => number } {
  let checks = 0;
  const wrap = (v: Vocabulary): Vocabulary => {
    const ctx = new Proxy(v.ctx, {
      get(target, key, receiver) {
        if (key !== 'Solver') return Reflect.get(target, key, receiver);
        // A constructor whose solvers are the real ones but for their answer.
        return function StandIn() {
          const solver = new target.Solver();
          return new Proxy(solver, {
            get(s, k) {
              if (k === 'check') {
                return () => {
                  checks++;
                  return Promise.resolve('unknown');
                };
              }
              if (k === 'reasonUnknown') return () => reason;
              const x: unknown = Reflect.get(s, k);
              return typeof x === 'function' ? (x as (...a: unknown[]) => unknown).bind(s) : x;
            },
          });
        };
      },
    });
    return { ...v, ctx };
  };
  const v = wrap(real.v);
  const bounded = new Map<string, Vocabulary>();
  const session: Z3Session = {
    v,
    bounded: (b) => {
      const key = JSON.stringify(b);
      const known = bounded.get(key) ?? wrap(real.bounded(b));
      bounded.set(key, known);
      return known;
    },
    close: () => Promise.resolve(),
  };
  return { session, checks: () => checks };
}

describe('prove, with a z3 that answers unknown (the real path: prove, its report, its exit code)', () => {
  let z3: Z3Session;
  beforeAll(async () => {
    z3 = await openZ3();
  }, 60_000);
  afterAll(async () => {
    await z3.close();
  });

  it('an unknown for incomplete quantifiers: asked three times over the unbounded sorts, never proved, exit 3', async () => {
    const stand = undecided(z3, '(incomplete quantifiers)');
    const report = await prove(stand.session, { variant: 'length-fix', faults: [], only: ['init'], checkEncoding: false });
    expect(report.obligations).toEqual([{ name: 'init', result: 'unknown', ms: expect.any(Number), unknownReasons: ['(incomplete quantifiers)', '(incomplete quantifiers)', '(incomplete quantifiers)'], attempts: 3 }]);
    // the bounded search once, then three seeds
    expect(stand.checks()).toBe(4);
    expect(report.proved).toBe(false);
    expect(exitCode(report)).toBe(3);
    expect(formatReport(report)).toContain('not proved: init (unknown).');
  }, 60_000);

  it('an unknown for the time limit: asked once, never proved, exit 3', async () => {
    const stand = undecided(z3, 'timeout');
    const report = await prove(stand.session, { variant: 'length-fix', faults: [], only: ['init', 'free'], checkEncoding: false });
    expect(report.obligations.map((o) => [o.name, o.result, o.unknownReasons, o.attempts])).toEqual([
      ['init', 'unknown', ['timeout'], 1],
      ['free', 'unknown', ['timeout'], 1],
    ]);
    expect(stand.checks()).toBe(4);
    expect([report.proved, exitCode(report)]).toEqual([false, 3]);
  }, 60_000);

  it('the same obligations with z3 itself are proved, exit 0', async () => {
    const report = await prove(z3, { variant: 'length-fix', faults: [], only: ['init', 'free'], checkEncoding: false });
    expect(report.obligations.map((o) => o.result)).toEqual(['proved', 'proved']);
    expect([report.proved, exitCode(report)]).toEqual([true, 0]);
  }, 60_000);
});

/** A process that installs `prove`'s handler and then throws, uncaught, the RuntimeError `message` as z3's threads do: its exit code and standard error. */
async function crashWith(message: string): Promise<{ code: number | null; err: string }> {
  const { execFile } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const prove = fileURLToPath(new URL('../../cli/commands/prove.ts', import.meta.url));
  const script = `const { z3Crashed } = await import(${JSON.stringify(prove)}); process.on('uncaughtException', z3Crashed); setTimeout(() => { throw new WebAssembly.RuntimeError(${JSON.stringify(message)}); });`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (error, _out, err) => resolve({ code: error === null ? 0 : (error.code as number | null), err }));
  });
}

describe('a z3 crash', () => {
  it('prove says so in one line and exits 3, with no stack trace', async () => {
    // what z3's wasm threads throw when its heap is corrupted, thrown the same way: uncaught, after the command started
    const ran = await crashWith('memory access out of bounds');
    expect(ran.code).toBe(3);
    expect(ran.err).toBe('pagecheck prove: z3 crashed (memory access out of bounds); its WebAssembly build does so now and then. Nothing was proved or refuted: run the command again.\n');
  }, 30_000);

  it('a z3 out of memory is said as such, in one line, exit 3; the proof tests start such a process once more', async () => {
    // what z3's build aborts with past its 2 GB heap (seen in a CI run), thrown the same way
    const abort = 'Aborted(Cannot enlarge memory arrays to size 2211852288 bytes (OOM). Either (1) compile with -sINITIAL_MEMORY=X with X higher than the current value 2147483648)';
    const ran = await crashWith(abort);
    expect(ran.code).toBe(3);
    expect(ran.err).toBe('pagecheck prove: z3 ran out of memory (its WebAssembly build stops at 2 GB). Nothing was proved or refuted: run the command again.\n');
    expect(Z3_CRASH.test(ran.err)).toBe(true);
    // as Node prints a crash in one of z3's threads, and an abort in the main one
    expect(Z3_CRASH.test('Error [RuntimeError]: memory access out of bounds')).toBe(true);
    expect(Z3_CRASH.test(`RuntimeError: ${abort}`)).toBe(true);
  }, 30_000);
});
