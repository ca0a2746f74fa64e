import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { pagecheckApart } from './apart.ts';

/** Runs `pagecheck …` in-process (for the bad-flag cases, which never start z3); its exit code and what it printed. */
async function pagecheck(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  process.exitCode = undefined;
  const code = await main(argv);
  vi.restoreAllMocks();
  process.exitCode = undefined;
  return { code, out, err };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('pagecheck prove', () => {
  it('owner-check: prints each obligation proved with its time, exits 0', async () => {
    const { code, out } = await pagecheckApart(['prove', '--variant', 'owner-check']);
    expect(code).toBe(0);
    expect(out).toContain('variant owner-check, faults silent-stub, early-free, stale-free, prefix-poison');
    expect(out).toContain('invariant: Isolation ∧ 1.TagNamesContent');
    expect(out).toMatch(/^ {2}encoding +agrees +\d+ ms {3}\(with step: \d+ steps and \d+ disabled actions; 6 pages; A \(1\), B \(4, sys of 2 pages\), C \(5, sys of 2 pages\), D \(2, tmp\); prefill limit 4\)$/m);
    for (const name of ['init', 'allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert']) {
      expect(out).toMatch(new RegExp(`^  ${name} +proved +\\d+ ms$`, 'm'));
    }
    // owner-check's default leaves torn-write out (under it the owner check alone fails), so the part landings never happen
    for (const name of ['landData', 'landTag']) expect(out).toMatch(new RegExp(`^  ${name} +proved +\\d+ ms {3}\\(never enabled: torn-write is off\\)$`, 'm'));
    expect(out).toContain('all 11 obligations proved');
  }, 330_000);

  it('buggy --json: the report with decode’s counterexample, exits 1', async () => {
    const { code, out } = await pagecheckApart(['prove', '--variant', 'buggy', '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(out) as {
      variant: string;
      proved: boolean;
      conformance?: { mismatches: unknown[] };
      obligations: { name: string; result: string; ms: number; counterexample?: { violated: string; story: string[] } }[];
    };
    expect(report.variant).toBe('buggy');
    expect(report.proved).toBe(false);
    expect(report.conformance?.mismatches).toEqual([]);
    expect(report.obligations.map((o) => `${o.name}:${o.result}`)).toEqual([
      'init:proved',
      'allocate:proved',
      'prefill:proved',
      'stub:proved',
      'handoff:proved',
      'decode:counterexample',
      'free:proved',
      'timeout:proved',
      'insert:proved',
      'landData:proved',
      'landTag:proved',
    ]);
    expect(report.obligations.every((o) => Number.isInteger(o.ms) && o.ms >= 0)).toBe(true);
    const decode = report.obligations[5]?.counterexample;
    expect(decode?.violated).toBe('Isolation');
    // z3 picks the model: the data is another request's, or a prefix's at a position or for a reader it is not valid for
    const label = String.raw`(r\d|prefix g\d(?:\[slot [^\]]+\])?)`;
    expect(decode?.story.at(-1)).toMatch(new RegExp(String.raw`^Isolation fails \(reader (r\d), position (\d), label ${label}'s data\): request \1 has read \3's data at position \2, which is not its own there\.$`));
  }, 330_000);

  it('--drop 1 leaves TagNamesContent out and decode fails; length-fix proves without faults', async () => {
    const dropped = await pagecheckApart(['prove', '--variant', 'owner-check', '--drop', '1']);
    expect(dropped.code).toBe(1);
    expect(dropped.out).toContain('(dropped 1.TagNamesContent)');
    expect(dropped.out).toMatch(/^ {2}decode +counterexample/m);
    const lengthFix = await pagecheckApart(['prove', '--variant', 'length-fix']);
    expect(lengthFix.code).toBe(0);
    expect(lengthFix.out).toContain('variant length-fix, faults none');
    expect(lengthFix.out).toMatch(/^ {2}timeout +proved +\d+ ms {3}\(never enabled: early-free is off\)$/m);
  }, 330_000);

  it('hardened: proved with every fault, torn-write included, by the hold invariant', async () => {
    const hardened = await pagecheckApart(['prove', '--variant', 'hardened']);
    expect(hardened.code).toBe(0);
    expect(hardened.out).toContain('variant hardened, faults silent-stub, early-free, stale-free, prefix-poison, double-free, lock-underflow, torn-write');
    expect(hardened.out).toContain('invariant: Isolation ∧ 1.NewIsBlank ∧ 2.NoLateParts');
    expect(hardened.out).toMatch(/^ {2}encoding +agrees/m);
    // the part landings are real obligations now
    for (const name of ['landData', 'landTag']) expect(hardened.out).toMatch(new RegExp(`^  ${name} +proved +\\d+ ms$`, 'm'));
    expect(hardened.out).toContain('all 11 obligations proved');
  }, 330_000);

  it('names the flag and the value in its errors, exit 2', async () => {
    expect(await pagecheck('prove', '--variant', 'fast')).toMatchObject({
      code: 2,
      err: 'pagecheck: --variant: expected one of buggy, length-fix, owner-check, hardened, got "fast"\n',
    });
    expect(await pagecheck('prove', '--drop', '2')).toMatchObject({ code: 2, err: 'pagecheck: --drop: expected a whole number from 1 to 1, got "2"\n' });
    expect(await pagecheck('prove', '--variant', 'length-fix', '--drop', 'x')).toMatchObject({
      code: 2,
      err: 'pagecheck: --drop: expected a whole number from 1 to 7, got "x"\n',
    });
    expect((await pagecheck('prove', '--faults', 'early-free,late')).err).toBe(
      'pagecheck: --faults: expected a comma-separated list of silent-stub, early-free, stale-free, prefix-poison, double-free, lock-underflow, torn-write (or all, none), got "late"\n',
    );
  }, 330_000);
});
