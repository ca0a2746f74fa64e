/**
 * The adapter protocol's version 2: a request's life on D (docs/ADAPTER.md). The reference
 * adapter follows decode steps, table growth and retraction under every variant; a
 * version-1 adapter is refused such configurations with exit 2; and two broken lives are
 * caught and shrunk. Runs a few hundred random runs per variant, pinned by seed.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTER_COVERAGE, ADAPTER_KINDS, ADAPTER_LIFE_KINDS, runAdapterMbt, type AdapterMbtOptions } from '../../conformance/adapter/index.ts';
import { coveredKinds, type Variant } from '../../spec/index.ts';
import { pagecheck } from '../support/cli.ts';

const REFERENCE = 'python3 examples/adapters/python/adapter.py';
const BROKEN = 'python3 examples/adapters/python/broken_life_adapter.py';
const SEED = 20261207;
const LIFE = { decodeSteps: [3], tableGrowth: true, retraction: true };

/** `runs` random runs of `command` with the whole life on, under `variant`. */
const lifeRuns = (command: string, variant: Variant, runs: number, more: Partial<AdapterMbtOptions> = {}) =>
  runAdapterMbt({ command, variant, life: LIFE, runs, seed: SEED, maxCommands: 40, timeoutMs: 10_000, ...more });

describe('version 2 carries a request\'s life on D', () => {
  it('its coverage has the life\'s switches, faults and actions; version 1\'s named actions are unchanged', () => {
    for (const f of ['decodeSteps', 'tableGrowth', 'retraction', 'fault:offload-after-free', 'fault:resume-stale'] as const) expect(ADAPTER_COVERAGE.covers(f), f).toBe(true);
    expect(coveredKinds(ADAPTER_COVERAGE).filter((k) => ADAPTER_LIFE_KINDS.includes(k))).toEqual(['grow', 'retract', 'offload', 'resume']);
    expect(ADAPTER_KINDS).toEqual(['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert']);
  });
});

describe('the reference adapter follows the life (300 runs each, --decode-steps 3 --table-growth --retraction)', () => {
  // buggy, length-fix and owner-check leak in the spec itself (owner-check: the load stamps the copy's foreign pages, docs/LIFE.md): refinement and enabledness alone.
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, without Isolation', async (variant) => {
    const r = await lifeRuns(REFERENCE, variant, 300, { isolation: false });
    expect([r.verdict, r.runs]).toEqual(['pass', 300]);
    // The runs reach every action of the life (offload only where offload-after-free is drawn).
    for (const k of ['grow', 'retract', 'offload', 'resume'] as const) expect(r.exercised[k] ?? 0, k).toBeGreaterThan(20);
  }, 60_000);

  it('hardened, with Isolation held', async () => {
    const r = await lifeRuns(REFERENCE, 'hardened', 300);
    expect([r.verdict, r.runs]).toEqual(['pass', 300]);
    expect([r.exercised.grow, r.exercised.retract, r.exercised.offload, r.exercised.resume]).toEqual(EXERCISED_HARDENED);
  }, 60_000);

  // sglang: alloc_extend's shortage test at resume, alloc_decode's at growth; lifo: a release's batches land in front, the segment first.
  it.each([['sglang', 4], ['lifo', 2]] as const)('hardened under allocator %s, %i tokens a page', async (allocator, size) => {
    const r = await lifeRuns(REFERENCE, 'hardened', 300, { allocators: [allocator], slots: true, slotSizes: [size] });
    expect([r.verdict, r.runs]).toEqual(['pass', 300]);
    expect(r.exercised.resume ?? 0).toBeGreaterThan(20);
  }, 60_000);
});

describe('the spec\'s own leak under owner-check, through the adapter', () => {
  it('a stubbed request retracted and resumed reads A\'s data, in the checker\'s 10 actions (docs/LIFE.md)', async () => {
    const config = { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 3 }], variant: 'owner-check' as const, faults: ['silent-stub' as const], retraction: true };
    // mbt's default seed: the command line without --seed finds the same 10 actions.
    const r = await runAdapterMbt({ command: REFERENCE, config, runs: 300, seed: 20260827, maxCommands: 40, timeoutMs: 10_000 });
    expect(r.failure?.property).toBe('Isolation');
    expect(r.failure?.actions.map((a) => `${a.kind}(${config.requests[a.r]?.name})`)).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
  }, 60_000);
});

describe('a version-1 adapter is not sent the life', () => {
  it('is refused with exit 2, naming the flags, before any reset', async () => {
    const r = await pagecheck('mbt', '--adapter', `${REFERENCE} --protocol 1`, '--variant', 'hardened', '--random', '--decode-steps', '2', '--retraction', '--runs', '5');
    expect(r.code).toBe(2);
    expect(r.err).toContain('answered hello with protocol 1; --decode-steps, --retraction (a request\'s life on D) need protocol 2');
  }, 30_000);

  it('passes version 1\'s runs as before', async () => {
    const r = await pagecheck('mbt', '--adapter', `${REFERENCE} --protocol 1`, '--variant', 'owner-check', '--random', '--runs', '100', '--seed', String(SEED));
    expect(r.code).toBe(0);
  }, 30_000);
});

describe('broken_life_adapter.py: a broken life is caught and shrunk', () => {
  it('retract-frees-prefix: the retraction frees the page the prefix cache shares, in 11 actions', async () => {
    const r = await lifeRuns(`${BROKEN} retract-frees-prefix`, 'hardened', 2000, { life: { decodeSteps: [2], retraction: true, tableGrowth: false } });
    expect(r.verdict).toBe('fail');
    const f = r.failure!;
    expect(f.property).toBe('Refinement');
    expect(f.actions.map((a) => a.kind).slice(-1)).toEqual(['retract']);
    expect(f.actions.length).toBe(RETRACT_FREES_PREFIX_LENGTH);
    expect(f.message).toMatch(/page \d holder: spec cache:\w, adapter none/);
  }, 120_000);

  it('resume-skips-merge: the resume hands out other pages than SGLang\'s allocator, in 5 actions', async () => {
    const r = await lifeRuns(`${BROKEN} resume-skips-merge`, 'hardened', 2000, { life: { decodeSteps: [2], retraction: true, tableGrowth: false }, allocators: ['sglang'], slots: true, slotSizes: [4] });
    expect(r.verdict).toBe('fail');
    const f = r.failure!;
    expect(f.property).toBe('Refinement');
    expect(f.actions.map((a) => a.kind)).toEqual(['allocate', 'prefill', 'handoff', 'retract', 'resume']);
    expect(f.message).toMatch(/\w table: spec \[\d\], adapter \[\d\]/);
  }, 120_000);
});

/** grow, retract, offload and resume taken by the spec over the 300 hardened runs of seed {@link SEED}. */
const EXERCISED_HARDENED = [70, 620, 175, 471];
/** The shrunk length of retract-frees-prefix (seed {@link SEED}): a request inserts its prefix page, another hits it, runs, and is retracted. */
const RETRACT_FREES_PREFIX_LENGTH = 11;
