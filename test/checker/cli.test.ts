import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { pagecheck } from '../support/cli.ts';
import { autoWorkers } from '../../cli/commands/check.ts';
import { MINIMAL_LEAK } from '../spec/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});


describe('pagecheck check', () => {
  it('the acceptance line: buggy on 3 pages, limit 2, requests 2,3 is a 9-action Isolation violation, exit 1', async () => {
    const { code, out, err } = await pagecheck('check', '--variant', 'buggy', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--json');
    expect(code).toBe(1);
    expect(err).toBe('');
    const r = JSON.parse(out);
    expect(r).toMatchObject({ verdict: 'violation', invariant: 'Isolation', traceLength: 9, distinctStates: 18, depth: 9, symmetry: true, trace: [...MINIMAL_LEAK] });
    expect(typeof r.elapsedMs).toBe('number');
    expect(typeof r.statesPerSecond).toBe('number');
    expect(typeof r.bytesPerState).toBe('number');
    expect(r.witnesses.filter((w: { applies: boolean; reached: boolean }) => w.applies && !w.reached)).toEqual([]);
  });

  it('length-fix and owner-check hold on the same configuration with every witness reached, exit 0', async () => {
    for (const [variant, states] of [['length-fix', 16], ['owner-check', 21]] as const) {
      const { code, out } = await pagecheck('check', '--variant', variant, '--json');
      expect(code, variant).toBe(0);
      const r = JSON.parse(out);
      expect([r.verdict, r.invariant, r.traceLength, r.distinctStates, r.warnings]).toEqual(['holds', null, null, states, []]);
      expect(r.witnesses.filter((w: { applies: boolean; reached: boolean }) => w.applies && !w.reached)).toEqual([]);
    }
  });

  it('--continue explores the whole space and lists every violation; --no-symmetry the raw one; --no-por every interleaving', async () => {
    const { code, out } = await pagecheck('check', '--pages', '4', '--requests', '2,2,3', '--continue', '--json');
    expect(code).toBe(1);
    const r = JSON.parse(out);
    // The reduced graph's whole space (partial-order reduction is on by default), with the plain search's shortest trace.
    expect([r.distinctStates, r.depth, r.symmetry, r.por]).toEqual([77, 15, true, { inEffect: true, reducedStates: 77, reducedDepth: 15, reducedViolations: [{ invariant: 'Isolation', depth: 9 }], plainStates: 49 }]);
    expect(r.violations).toEqual([{ invariant: 'Isolation', traceLength: 9, trace: expect.any(Array) }]);
    const raw = JSON.parse((await pagecheck('check', '--pages', '4', '--requests', '2,2,3', '--continue', '--no-symmetry', '--no-por', '--json')).out);
    expect([raw.distinctStates, raw.depth, raw.symmetry, raw.por]).toEqual([186, 15, false, { inEffect: false, offReason: 'not asked for (--no-por)' }]);
    const plain = JSON.parse((await pagecheck('check', '--pages', '4', '--requests', '2,2,3', '--continue', '--no-por', '--json')).out);
    expect([plain.distinctStates, plain.violations]).toEqual([96, r.violations]);
  });

  it('--workers defaults to the cores the load average leaves free, at least one; the JSON says how many', async () => {
    expect([autoWorkers(2, 0.3), autoWorkers(2, 0.6), autoWorkers(2, 1.4), autoWorkers(2, 4.6), autoWorkers(8, 2.4), autoWorkers(1, 0)]).toEqual([2, 1, 1, 1, 6, 1]);
    expect(JSON.parse((await pagecheck('check', '--workers', '2', '--json')).out).workers).toBe(2);
  });

  it('--por where the model offers no reduction (retraction: a cyclic graph) says so on stderr and searches every successor', async () => {
    const { code, out, err } = await pagecheck('check', '--retraction', '--pages', '3', '--requests', '1,2', '--por');
    expect(code).toBe(0);
    expect(err).toBe('pagecheck: --por: off here: retraction makes the state graph cyclic (retract, resume, retract, ...), and the reduction is sound here only on an acyclic graph (docs/POR.md)\n');
    expect(out).toContain('distinct states  353 (symmetry on, partial-order reduction off under retraction)');
    const json = JSON.parse((await pagecheck('check', '--retraction', '--pages', '3', '--requests', '1,2', '--json')).out);
    expect([json.distinctStates, json.por.inEffect, json.por.offReason]).toEqual([353, false, expect.stringMatching(/^retraction makes the state graph cyclic/)]);
  });

  it('--max-states cuts the search: verdict incomplete, exit 3', async () => {
    const { code, out } = await pagecheck('check', '--variant', 'owner-check', '--max-states', '5', '--json');
    expect(code).toBe(3);
    expect(JSON.parse(out)).toMatchObject({ verdict: 'incomplete', distinctStates: 5, invariant: null, maxStates: 5 });
  });

  it('--invariant restricts the invariants checked', async () => {
    const { code, out } = await pagecheck('check', '--invariant', 'ExclusiveHold,Conservation', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ verdict: 'holds', distinctStates: 21 });
  });

  it('prints the verdict, the figures and the counterexample in words, with a replay line and no colour when piped', async () => {
    const { code, out } = await pagecheck('check');
    expect(code).toBe(1);
    expect(out).toContain('verdict          VIOLATION of Isolation');
    expect(out).toContain('distinct states  18 (symmetry on, partial-order reduction on)');
    expect(out).toContain('reduction        reduced search: Isolation at depth 9 after 18 states; shortest trace found again without it (18 states)');
    expect(out).toMatch(/time {13}[\d.]+ ms, [\d,]+ states\/s/);
    expect(out).toContain('counterexample: Isolation (9 actions)');
    expect(out).toContain('replay: pagecheck check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3 --invariant Isolation');
    expect(out).not.toMatch(/\u001b\[/);
  });

  it('--itf, --mermaid and --html write the counterexample, and the ITF trace replays to the same violation', async () => {
    const [itf, mmd, html] = ['leak.itf.json', 'leak.mmd', 'leak.html'].map((f) => join(dir, f));
    const { code, out } = await pagecheck('check', '--itf', itf!, '--mermaid', mmd!, '--html', html!);
    expect(code).toBe(1);
    expect(out).toContain(`wrote ${itf}, ${mmd}, ${html}`);
    expect(readFileSync(mmd!, 'utf8')).toContain('sequenceDiagram');
    expect(existsSync(html!)).toBe(true);
    const replayed = await pagecheck('replay', itf!, '--json');
    expect(replayed.code).toBe(1);
    expect(JSON.parse(replayed.out)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });

  it('a trace of --invariant Isolation replays though unchecked invariants break first; a default check lists the default invariants', async () => {
    const file = join(dir, 'double-free.itf.json');
    const args = ['check', '--faults', 'double-free', '--pages', '3', '--prefill-limit', '2', '--requests', '2,2,1', '--itf', file];
    expect((await pagecheck(...args, '--invariant', 'Isolation')).code).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))['#meta'].invariants).toEqual(['Isolation']);
    const replayed = await pagecheck('replay', file, '--json');
    expect([replayed.code, replayed.err]).toEqual([1, '']);
    // Conservation and NoDuplicateFree break at step 6, unchecked; B reads C's data at step 12.
    expect(JSON.parse(replayed.out)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 12, steps: 12 });
    expect((await pagecheck(...args)).code).toBe(1);
    const meta = JSON.parse(readFileSync(file, 'utf8'))['#meta'];
    expect(meta.invariants).toEqual(['Isolation', 'ExclusiveHold', 'Conservation', 'ReadsOwnPages', 'NoDuplicateFree', 'NoUseAfterFree']);
    expect((await pagecheck('replay', file, '--json')).code).toBe(1);
  });

  it('a deadlock trace replays to the deadlock', async () => {
    const file = join(dir, 'deadlock.itf.json');
    expect((await pagecheck('check', '--pages', '2', '--prefill-limit', '2', '--requests', '2:sys,2', '--itf', file)).code).toBe(1);
    const replayed = await pagecheck('replay', file, '--json');
    expect([replayed.code, replayed.err]).toEqual([1, '']);
    expect(JSON.parse(replayed.out)).toMatchObject({ outcome: 'violation', invariant: 'Deadlock', step: 6 });
  });

  it('writes no trace file when there is no counterexample, and says so', async () => {
    const file = join(dir, 'none.itf.json');
    const { code, err } = await pagecheck('check', '--variant', 'owner-check', '--itf', file);
    expect(code).toBe(0);
    expect(err).toContain('no counterexample, so no trace file was written');
    expect(existsSync(file)).toBe(false);
  });

  it('warns about a witness that applies but is never reached', async () => {
    // With no request over the limit nothing is ever stubbed; with one request no page is ever reused.
    const { code, out } = await pagecheck('check', '--requests', '2', '--json');
    expect(code).toBe(0);
    // No witness warning; but the variant's own bug cannot fire, and that is said (issue 12).
    expect(JSON.parse(out).warnings).toEqual([
      "fault silent-stub (the buggy variant's own) cannot fire in this configuration: no request is longer than the prefill limit 2 (the longest is 2 pages); a verdict says nothing about it",
    ]);
    // A lone over-long request under the owner check is stubbed and fails loudly: no decode ever succeeds.
    const text = (await pagecheck('check', '--pages', '2', '--prefill-limit', '1', '--requests', '2', '--variant', 'owner-check')).out;
    expect(text).toContain('witness DecodeSucceeds applies here but was not reached');
  });

  it('rejects bad flags with exit 2 and a message naming the flag and the value', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--max-states', '0'], /--max-states: expected a positive whole number, got "0"/],
      [['--max-states', 'lots'], /--max-states: expected a positive whole number, got "lots"/],
      [['--max-states', '2.5'], /--max-states: expected a positive whole number, got "2.5"/],
      [['--invariant', 'Isolaton'], /--invariant: unknown invariant "Isolaton"; expected one or more of Isolation, ExclusiveHold, Conservation, ReadsOwnPages/],
      [['--pages', 'x'], /--pages.*"x"/],
      [['--variant', 'fixed'], /--variant.*"fixed"/],
    ];
    for (const [args, message] of cases) {
      const { code, out, err } = await pagecheck('check', ...args);
      expect(code, args.join(' ')).toBe(2);
      expect(err, args.join(' ')).toMatch(message);
      expect(out).toBe('');
    }
  });
});

describe('pagecheck matrix and demo', () => {
  it('matrix --json: one cell per variant and fault, Integrity beside Isolation, exit 0 with leaks', async () => {
    const { code, out } = await pagecheck('matrix', '--json');
    expect(code).toBe(0);
    const cells = JSON.parse(out);
    // 4 variants × 19 faults (issue 23: segment-overlap, which leaks nowhere on this configuration, and retraction's two, whose cells turn retraction on; issue 24: source-early-free, whose cells turn --source-pages and torn-write on, premature-success, whose cells turn torn-write on, aux-torn, draft-stale, whose cells turn --draft on, state-slot-reuse and metadata-collision, whose cells turn --state-slots on and run on 4 pages, where A and C are in flight together, and the host cache's two, whose cells turn --loadback on).
    expect(cells).toHaveLength(76);
    expect(cells[0]).toMatchObject({ variant: 'buggy', fault: 'silent-stub', pages: 3, isolation: 'leak', traceLength: 9, integrity: 'garbage', integrityTraceLength: 4, distinctStates: 156, brokenInvariants: [] });
    // A column whose fault cannot fire on the matrix's 3 pages carries its own: the state-slot columns run on 4.
    expect(cells.filter((c: { pages: number }) => c.pages !== 3).map((c: { variant: string; fault: string; pages: number; distinctStates: number }) => `${c.variant} ${c.fault} ${c.pages} ${c.distinctStates}`)).toEqual([
      'buggy state-slot-reuse 4 443',
      'buggy metadata-collision 4 561',
      'length-fix state-slot-reuse 4 443',
      'length-fix metadata-collision 4 561',
      'owner-check state-slot-reuse 4 461',
      'owner-check metadata-collision 4 582',
      'hardened state-slot-reuse 4 384',
      'hardened metadata-collision 4 384',
    ]);
    expect(cells.filter((c: { isolation: string }) => c.isolation === 'leak').map((c: { variant: string; fault: string }) => `${c.variant} ${c.fault}`)).toEqual([
      'buggy silent-stub',
      'buggy early-free',
      'buggy stale-free',
      'buggy prefix-poison',
      'buggy torn-write',
      'buggy auto-truncate',
      'buggy offload-after-free',
      'buggy resume-stale',
      'buggy source-early-free',
      'buggy premature-success',
      'buggy aux-torn',
      'buggy draft-stale',
      'buggy state-slot-reuse',
      'buggy metadata-collision',
      'buggy host-evict-during-load',
      'buggy read-before-load',
      'length-fix early-free',
      'length-fix stale-free',
      'length-fix prefix-poison',
      'length-fix torn-write',
      'length-fix auto-truncate',
      'length-fix offload-after-free',
      'length-fix resume-stale',
      'length-fix source-early-free',
      'length-fix premature-success',
      'length-fix aux-torn',
      'length-fix draft-stale',
      'length-fix state-slot-reuse',
      'length-fix metadata-collision',
      'length-fix host-evict-during-load',
      'length-fix read-before-load',
      'owner-check torn-write',
      'owner-check offload-after-free',
      'owner-check source-early-free',
      'owner-check premature-success',
      'owner-check aux-torn',
      'owner-check draft-stale',
      'owner-check state-slot-reuse',
      'owner-check metadata-collision',
      'owner-check host-evict-during-load',
    ]);
  });

  it('matrix prints the table and a reproducing command per leak, which check confirms', async () => {
    const { code, out } = await pagecheck('matrix', '--variant', 'length-fix', '--faults', 'early-free,silent-stub');
    expect(code).toBe(0);
    expect(out).toMatch(/length-fix +holds \(83 states\) +leak \(7 actions\)/);
    const hint = /length-fix × early-free: +pagecheck check (.*)$/m.exec(out);
    expect(hint?.[1]).toBe('--variant length-fix --pages 3 --prefill-limit 2 --requests 2,3:sys,2:sys --faults early-free --invariant Isolation');
    const confirmed = await pagecheck('check', ...hint![1]!.split(' '), '--json');
    expect(JSON.parse(confirmed.out)).toMatchObject({ verdict: 'violation', invariant: 'Isolation', traceLength: 7 });
  });

  it('matrix says which columns run on pages of their own, and why; their replay lines carry them', async () => {
    const { code, out } = await pagecheck('matrix', '--variant', 'owner-check', '--faults', 'metadata-collision');
    expect(code).toBe(0);
    expect(out).toContain("Column metadata-collision runs on 4 pages, the fewest on which its fault can fire (on 3: no two requests fit D's pages together");
    expect(/owner-check × metadata-collision: +pagecheck check (.*)$/m.exec(out)?.[1]).toBe('--variant owner-check --pages 4 --prefill-limit 2 --requests 2,3:sys,2:sys --faults metadata-collision --state-slots --invariant Isolation');
  });

  it('matrix rejects an empty set of columns', async () => {
    const { code, err } = await pagecheck('matrix', '--faults', 'none');
    expect(code).toBe(2);
    expect(err).toContain('--faults: the matrix needs at least one fault');
  });

  it('the replay line of a multi-step configuration checks that configuration again: same config, 20 states, not 1-step\'s 18', async () => {
    const args = ['check', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--decode-steps', '2'];
    const first = JSON.parse((await pagecheck(...args, '--json')).out);
    expect([first.verdict, first.distinctStates, first.config.decodeSteps]).toEqual(['violation', 20, 2]);
    const line = /^replay: (.*)$/m.exec((await pagecheck(...args)).out)?.[1] ?? '';
    expect(line).toContain('--decode-steps 2');
    const rerun = await pagecheck(...line.slice(line.indexOf(' check ') + 1).split(' '), '--json');
    expect(rerun.err).toBe('');
    const again = JSON.parse(rerun.out);
    expect([again.verdict, again.distinctStates, again.config]).toEqual([first.verdict, first.distinctStates, first.config]);
  });

  it('demo: buggy leaks with its 9-action trace, the fixes hold; exit 0', async () => {
    const { code, out } = await pagecheck('demo');
    expect(code).toBe(0);
    expect(out).toContain('buggy: Isolation VIOLATED — shortest counterexample, 9 actions');
    expect(out).toContain(`actions: ${MINIMAL_LEAK.join(' ')}`);
    expect(out).toMatch(/length-fix: HOLDS — every invariant, 16 states, depth 8; witnesses reached: DecodeSucceeds, PageReused, OverLongRefused\n/);
    expect(out).toMatch(/owner-check: HOLDS — every invariant, 21 states, depth 10; witnesses reached: DecodeSucceeds, PageReused, OverLongStubbed, FailsLoudly\n/);
    expect(out).toContain('replay: pagecheck check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3');
    expect(out).toContain('as expected');
  });
});
