import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { failingParts, HOLD_INVARIANT } from '../../proofs/invariant.ts';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import type { Fault } from '../../spec/index.ts';
import { provePinnedApart } from './pinned.ts';
import { failing, TORN } from './torn-write-support.ts';
import { runLabels } from '../spec/helpers.ts';

describe('owner-check under early-free and torn-write: the proof fails where the design does', () => {
  it('the proof fails with counterexamples to induction at prefill and timeout, told in the spec’s words', async () => {
    // Its encoding is conformance.test.ts's (owner-check with every fault, these two among them): not checked again. How
    // `prove` prints a counterexample's story is cli.test.ts's (length-fix --drop 4), end to end.
    const [report] = await provePinnedApart([{ options: { variant: 'owner-check', faults: ['early-free', 'torn-write'], checkEncoding: false }, fail: ['prefill', 'timeout'] }]);
    // the hold invariant, as hardened's: NewIsBlank, NoLateParts, OwnPagesHeld, …
    expect(report?.invariant.conjuncts.map((c) => c.name)).toEqual(HOLD_INVARIANT.conjuncts.map((c) => c.name));
    expect(report?.invariant.conjuncts.slice(0, 3).map((c) => c.name)).toEqual(['NewIsBlank', 'NoLateParts', 'OwnPagesHeld']);
    expect(report?.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.result}:${o.counterexample?.violated ?? ''}`)).toEqual([
      'prefill:counterexample:NoLateParts',
      'timeout:counterexample:NoLateParts',
    ]);
    const story = (name: string): string => report?.obligations.find((o) => o.name === name)?.counterexample?.story.join('\n') ?? '';
    // the state before: a request writing, its pages held; the step: D frees them with the parts still in flight
    // z3 chooses the model: the timed-out request is one of the requests listed, writing.
    expect(story('timeout')).toMatch(/before timeout\((r\d)\), a state that satisfies the invariant:\n(?: {2}request r\d: .*\n)* {2}request \1: writing;/);
    expect(story('timeout')).toMatch(/timeout\((r\d)\): D times \1 out and frees its pages: p\d now held by nobody \(free\)/);
    expect(story('timeout')).toMatch(/after it:\n {2}request (r\d): landing;/);
    expect(story('timeout')).toMatch(/^NoLateParts fails \(request r\d\)\.$/m);
    // the late write posted after a timeout: the same conjunct
    expect(story('prefill')).toMatch(/prefill\((r\d)\): P posts \1's write; its content and tag parts land later/);
  }, 330_000);

  it('with torn writes, the owner check alone fails exactly with the faults that bring a foreign write to a held page', async () => {
    // the same three that check finds a leak with (2 pages, requests 1,1 or 1,1,1); torn-write alone is proved
    const expected: Record<string, string[]> = {
      'silent-stub': [],
      'early-free': ['prefill:NoLateParts', 'timeout:NoLateParts'],
      'stale-free': ['free:OwnPagesHeld'],
      'prefix-poison': [],
      'double-free': ['free:FreeListUnheld'],
      'lock-underflow': [],
    };
    // early-free with torn-write is the first test's proof (prefill and timeout, NoLateParts): not twice
    const faults = PROOF_FAULTS.filter((x) => x !== 'torn-write' && x !== 'early-free');
    // the obligations pinned to fail searched bounded first, the others only proved (pinned.ts); the last run: torn-write alone
    const runs = [...faults.map((f): Fault[] => [f, 'torn-write']), ['torn-write'] as Fault[]];
    const reports = await provePinnedApart(runs.map((fs) => ({ options: { variant: 'owner-check', faults: fs, checkEncoding: false }, fail: fs.length > 1 ? (expected[fs[0]!] ?? []) : [] })));
    const broken: Record<string, string[]> = {};
    for (const [k, f] of faults.entries()) {
      broken[f] = reports[k]!.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.counterexample?.violated ?? o.result}`);
    }
    expect(broken).toEqual(Object.fromEntries(faults.map((f) => [f, expected[f]])));
    expect(failing(reports[faults.length]!)).toEqual([]);
  }, 360_000);

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
