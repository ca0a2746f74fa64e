import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { OBLIGATIONS, PROOF_FAULTS } from '../../proofs/obligations.ts';
import { pagecheckApart } from './apart.ts';
import { HOLD_NAMES } from './torn-write-support.ts';

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
      obligations: { name: string; result: string; ms: number; counterexample?: { violated: string; step: string; witnesses: Record<string, string>; story: string[] } }[];
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
    // the counterexample in the spec's words: the reader decodes a page holding another request's data
    const cti = report.obligations[5]?.counterexample;
    expect(cti?.violated).toBe('Isolation');
    const reader = cti?.witnesses['reader'] ?? '';
    // z3 picks the model: the data is another request's, or a prefix's at a position that is not the prefix's
    const other = /^(r\d|prefix g\d(?:\[slot [^\]]+\])?)'s data$/.exec(cti?.witnesses['label'] ?? '')?.[1];
    const position = cti?.witnesses['position'] ?? '?';
    expect(position).toMatch(/^\d$/);
    expect(reader).toMatch(/^r\d$/);
    expect(other).toMatch(/^(r\d|prefix g\d(?:\[slot [^\]]+\])?)$/);
    expect(other).not.toBe(reader);
    // A prefix's data is the reader's own only at position 0 and only for the reader's own prefix: z3 may pick either way of breaking that.
    expect(cti?.step).toBe(`decode(${reader})`);
    const story = cti?.story.join('\n') ?? '';
    // Before the step it was handed off, or is between two decode steps.
    expect(story).toMatch(new RegExp(`request ${reader}: (handedOff|decoding);`));
    // a prefix page past the first is named with its position, in brackets that a pattern must escape
    expect(story).toMatch(new RegExp(`page p\\d in its slot \\d holds ${(other ?? '').replace(/[[\]]/g, '\\$&')}'s data`));
    // one decode step: the last one (decoded) or not (decoding)
    expect(story).toMatch(new RegExp(`request ${reader}: decod(ed|ing);`));
    expect(cti?.story.at(-1)).toBe(
      `Isolation fails (reader ${reader}, position ${position}, label ${other}'s data): request ${reader} has read ${other}'s data at position ${position}, which is not its own there.`,
    );
  }, 330_000);

  // One run per semantics whose encoding check no other file repeats: length-fix without faults and hardened with every
  // fault are checked against step here, end to end, and not again in conformance.test.ts. (Owner-check's --drop 1 is
  // proved apart in drop.test.ts; here --drop on length-fix, whose default faults are none.)
  it('length-fix --drop 4 leaves SharedPageCached out and decode fails; the encoding of length-fix agrees with step', async () => {
    const { code, out } = await pagecheckApart(['prove', '--variant', 'length-fix', '--drop', '4']);
    expect(code).toBe(1);
    expect(out).toContain('variant length-fix, faults none');
    expect(out).toContain('(dropped 4.SharedPageCached)');
    const encoding = /^ {2}encoding +agrees +\d+ ms {3}\(with step: (\d+) steps and (\d+) disabled actions; 6 pages; A \(1\), B \(4, sys of 2 pages\), C \(5, sys of 2 pages\), D \(2, tmp\); prefill limit 4\)$/m.exec(out);
    expect(Number(encoding?.[1])).toBeGreaterThan(300);
    expect(Number(encoding?.[2])).toBeGreaterThan(700);
    // the counterexample's story under its obligation: the state before, in the spec's words, indented under it
    expect(out).toMatch(/^ {2}decode +counterexample +\d+ ms\n {6}before decode\((r\d)\), a state that satisfies the invariant:\n {8}request r\d: /m);
    expect(out).toMatch(/^ {2}timeout +proved +\d+ ms {3}\(never enabled: early-free is off\)$/m);
    expect(out).toMatch(/^not proved: decode \(counterexample\)\.$/m);
  }, 330_000);

  it('hardened --json: proved with every fault, torn-write included, by the hold invariant, none vacuously; its encoding agrees with step', async () => {
    const { code, out } = await pagecheckApart(['prove', '--variant', 'hardened', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as { faults: string[]; invariant: string[]; proved: boolean; conformance: { steps: number; disabled: number; mismatches: unknown[] }; obligations: { name: string; result: string; vacuous?: boolean }[] };
    expect(report.faults).toEqual([...PROOF_FAULTS]);
    expect(report.invariant).toEqual(['Isolation', ...HOLD_NAMES]);
    expect(report.conformance.mismatches).toEqual([]);
    // the part landings are compared with step too: more steps than any semantics without torn writes
    expect(report.conformance.steps).toBeGreaterThan(900);
    expect(report.conformance.disabled).toBeGreaterThan(700);
    expect(report.obligations.map((o) => `${o.name}:${o.result}`)).toEqual(OBLIGATIONS.map((name) => `${name}:proved`));
    // every action can happen: timeout (early-free) and the part landings (torn-write) are real obligations
    expect(report.obligations.filter((o) => o.vacuous === true)).toEqual([]);
    expect(report.proved).toBe(true);
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
