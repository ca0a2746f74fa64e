import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { cellConfig } from '../../matrix/matrix.ts';
import { actionLabel, compile, Integrity, Isolation, matrixConfig, MECHANISM_DOCS, MECHANISMS, REMOVAL_LIST, withoutMechanism, type Config, type Mechanism } from '../../spec/index.ts';
import { pagecheck } from '../support/cli.ts';
import { configWarnings } from '../../cli/warnings.ts';
import { configArgs } from '../../spec/config-flags.ts';

/** What the checker finds for each mechanism: hardened's states and depth with it, and without it the first violation (states, invariant, trace). */
const PINNED: Readonly<Record<Mechanism, { holds: [number, number]; without: [number, string, string] }>> = {
  'revoke-writer': { holds: [202, 14], without: [244, 'Isolation', 'allocate(A) prefill(A) timeout(A) allocate(B) prefill(B) landData(B) landData(A) landTag(B) handoff(B) decode(B)'] },
  'release-checks-holder': { holds: [427, 24], without: [64, 'ExclusiveHold', 'allocate(A) prefill(A) landData(A) landTag(A) handoff(A) decode(A) free(A) allocate(B) free(A)'] },
  'tag-counts-tokens': { holds: [21, 10], without: [9, 'Isolation', 'allocate(B) prefill(B) handoff(B) decode(B)'] },
  'copy-carries-tag': { holds: [1534, 27], without: [183, 'Isolation', 'allocate(A) prefill(A) handoff(A) retract(A) allocate(B) prefill(B) offload(A) resume(A) decode(A)'] },
  'unlock-once': { holds: [72, 15], without: [24, 'ExclusiveHold', 'allocate(A) prefill(A) handoff(A) allocate(B) decode(A) free(A) evict(C)'] },
  'hold-source': { holds: [11, 7], without: [15, 'Isolation', 'allocate(A) prefill(A) landTag(A) abortSource(A) landData(A) handoff(A) decode(A)'] },
  'commit-counts-landed': { holds: [81, 14], without: [584, 'Isolation', 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) prefill(B) handoff(B) landData(A) landTag(B) decode(B)'] },
  'draft-fills-hit': { holds: [131, 13], without: [111, 'Isolation', 'allocate(A) prefill(A) landDraft(A) handoff(A) decode(A) free(A) allocate(B) prefill(B) landDraft(B) handoff(B) decode(B)'] },
  'slot-freed-with-request': { holds: [51, 10], without: [26, 'Isolation', 'allocate(A) prefill(A) handoff(A) allocate(B) prefill(B) decode(A)'] },
  'metadata-alloc-checks-holder': { holds: [51, 10], without: [13, 'Isolation', 'allocate(A) allocate(B) prefill(A) prefill(B) handoff(A)'] },
  'protect-host': { holds: [90, 13], without: [37, 'Isolation', 'allocate(B) prefill(B) handoff(B) evictHost(B) loadBack(B) decode(B)'] },
  // Without it nothing leaks: B's early decode fails loudly on the tags its allocation cleared.
  'wait-own-load': { holds: [90, 13], without: [123, 'FailsLoudly', ''] },
  'room-lands-last': { holds: [36, 14], without: [46, 'Isolation', 'allocate(A) prefill(A) landRoom(A) landPayload(A) handoff(A) allocate(B) prefill(B) landRoom(B) handoff(B)'] },
};

describe('each mechanism of hardened, removed: the counterexample it stops (spec/removals.ts)', () => {
  it('every mechanism has its removal, in the documented order', () => {
    expect(REMOVAL_LIST.map((r) => r.mechanism)).toEqual([...MECHANISMS]);
  });

  it('every mechanism is documented: what it does, where in SGLang, and its cost, each at least a sentence', () => {
    for (const k of MECHANISMS) for (const part of ['what', 'where', 'cost'] as const) expect(MECHANISM_DOCS[k][part].length, `${k}.${part}`).toBeGreaterThan(20);
  });

  it("each removal's configuration turns on a fault its mechanism stops (the faults the designs table names for it)", () => {
    for (const r of REMOVAL_LIST) expect(r.stops.filter((f) => r.config.faults.includes(f)).length, r.mechanism).toBeGreaterThan(0);
  });

  it.each(REMOVAL_LIST.map((r) => [r.mechanism, r] as const))('%s: hardened holds; without it, the pinned counterexample', (k, r) => {
    const a = check(checkedModel(compile(r.config)));
    expect([a.verdict, a.distinctStates, a.depth]).toEqual(['holds', ...PINNED[k].holds]);
    const m = compile(withoutMechanism(k));
    expect(m.mechanism[k]).toBe(false);
    expect(MECHANISMS.filter((x) => x !== k).every((x) => m.mechanism[x])).toBe(true);
    const b = check(checkedModel(m));
    if (r.loud === true) {
      const loud = b.witnesses.find((w) => w.name === 'FailsLoudly')?.reached === true;
      expect([b.verdict, b.distinctStates, loud ? 'FailsLoudly' : 'quiet', '']).toEqual(['holds', ...PINNED[k].without]);
      return;
    }
    const v = b.violations[0]!;
    expect([b.verdict, b.distinctStates, v.invariant, v.trace.steps.map((s) => actionLabel(m, s.action)).join(' ')]).toEqual(['violation', ...PINNED[k].without]);
  });
});

describe("a mechanism's other faults: each gets past hardened without it on the matrix's configuration", () => {
  const others = REMOVAL_LIST.flatMap((r) => r.stops.filter((f) => !r.config.faults.includes(f)).map((f) => [r.mechanism, f] as const));
  it('they are release-checks-holder\'s double-free and segment-overlap (revoke-writer\'s torn-write is in its own configuration, with early-free as in its matrix column)', () => {
    expect(others.map(([k, f]) => [k, f])).toEqual([['release-checks-holder', 'double-free'], ['release-checks-holder', 'segment-overlap']]);
  });

  it.each(others.map(([k, f]) => [k, f, 'Integrity'] as const))('hardened without %s: %s breaks %s in its matrix cell; with it, Isolation and Integrity hold', (k, f, first) => {
    const config: Config = cellConfig(matrixConfig('hardened'), 'hardened', f);
    expect(check(checkedModel(compile(config)), { invariants: [Isolation, Integrity] }).verdict).toBe('holds');
    const bare = check(checkedModel(compile({ ...config, without: [k] })), { invariants: [Isolation, Integrity] });
    expect([bare.verdict, bare.violations[0]?.invariant]).toEqual(['violation', first]);
  });
});

describe("a fault hardened's mechanism stops where it is made is not called vacuous", () => {
  it('names the mechanism, for each removal whose fault never fires under hardened', () => {
    const named = REMOVAL_LIST.flatMap((r) => configWarnings(compile(r.config)).filter((w) => w.includes('never fires here')).map((w) => w.split(':')[0] + ': ' + w.split("hardened's ")[1]!.split(' ')[0]));
    expect(named).toEqual([
      'fault premature-success never fires here: commit-counts-landed',
      'fault aux-torn never fires here: room-lands-last',
      'fault state-slot-reuse never fires here: slot-freed-with-request',
      'fault metadata-collision never fires here: metadata-alloc-checks-holder',
      'fault host-evict-during-load never fires here: protect-host',
      'fault read-before-load never fires here: wait-own-load',
    ]);
  });

  it('and without the mechanism the warning is gone: the fault fires', () => {
    for (const r of REMOVAL_LIST) expect(configWarnings(compile(withoutMechanism(r.mechanism))).filter((w) => w.includes(r.mechanism)), r.mechanism).toEqual([]);
  });

  it('a fault that cannot fire for the configuration\'s own reasons is still called so', () => {
    const m = compile({ ...REMOVAL_LIST.find((r) => r.mechanism === 'slot-freed-with-request')!.config, pages: 1 });
    expect(configWarnings(m)).toEqual([
      "fault state-slot-reuse cannot fire in this configuration: no two requests fit D's pages together: a slot is reused, or a row shared, only by a request allocated while another is in flight; a verdict says nothing about it",
    ]);
  });
});

describe('check --without', () => {
  it('gives the removal from the command line, and its replay line keeps --without', async () => {
    const r = REMOVAL_LIST.find((x) => x.mechanism === 'revoke-writer')!;
    const args = configArgs({ ...r.config, without: ['revoke-writer'] }, true);
    expect(args.join(' ')).toBe('--variant hardened --pages 2 --prefill-limit 2 --requests 1,1 --faults early-free,torn-write --without revoke-writer');
    const run = await pagecheck('check', ...args);
    expect(run.code).toBe(1);
    expect(run.out).toContain('Isolation violated after 10 steps');
    expect(run.out).toContain('--without revoke-writer');
    expect((await pagecheck('check', ...configArgs(r.config, true))).code).toBe(0);
  });

  it.each([
    [['--without', 'revoke-writer'], "invalid model configuration: --without: switches off mechanisms of variant hardened, and variant buggy has none: use --variant hardened"],
    [['--variant', 'hardened', '--without', 'revoke'], 'invalid model configuration: --without[0]: expected one of revoke-writer, release-checks-holder'],
    [['--variant', 'hardened', '--without', ''], "--without: expected hardened's mechanisms, comma-separated"],
    [['--variant', 'hardened', '--without', 'revoke-writer,'], "--without: expected hardened's mechanisms, comma-separated"],
  ])('%j is refused with exit 2', async (args, message) => {
    const run = await pagecheck('check', ...args);
    expect([run.code, run.out]).toEqual([2, '']);
    expect(run.err).toContain(message);
    expect(run.err.trim().split('\n')).toHaveLength(1);
  });
});
