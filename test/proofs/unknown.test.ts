import { describe, expect, it } from 'vitest';
import { formatReport, toJson } from '../../cli/commands/prove.ts';
import { invariantFor } from '../../proofs/invariant.ts';
import { retryable, type ProofReport } from '../../proofs/obligations.ts';
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
