import { Either } from 'effect';
import { afterEach, describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel, createCanonicalizer, identityLabelMap, renameRequests } from '../../binding/index.ts';
import { conjunctionOf, fastFormOf } from '../../binding/properties.ts';
import { fastSuccessorsOf } from '../../binding/successors.ts';
import {
  compile,
  configFrom,
  decodeConfig,
  Integrity,
  INVARIANTS,
  Isolation,
  LAYOUT,
  lastState,
  parseAction,
  readRecordOf,
  readsLabel,
  run,
  tagOf,
  view,
  type Action,
  type Model,
  type State,
} from '../../spec/index.ts';
import { pagecheck } from '../support/cli.ts';

/*
 * The layout table (spec/layout.ts) and the widths that follow the configuration. The
 * offsets pinned below for a configuration of one-byte widths are the hand-compiled
 * layout's (read from the previous compile on the same configuration): the table lays
 * it out byte for byte as before.
 */

const messages = (input: unknown): string[] => {
  const r = decodeConfig(input);
  return Either.isLeft(r) ? r.left.issues.map((i) => `${i.path}: ${i.message}`) : [];
};

/** Walks `labels` from the initial state; the last state. */
function walk(m: Model, labels: readonly string[]): State {
  const actions = labels.map((l): Action => {
    const a = parseAction(m, l);
    if (a === undefined) throw new Error(`no action ${l}`);
    return a;
  });
  const r = run(m, actions);
  if ('notEnabled' in r) throw new Error(`not enabled: ${r.notEnabled.action}`);
  return lastState(r.trace);
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('the layout table', () => {
  it('lays a one-byte configuration out as the hand-compiled layout did (the bench family: 9 pages, requests 1,2,2,3,3,4,5)', () => {
    const m = compile(configFrom({ pages: 9, prefillLimit: 4, requests: [1, 2, 2, 3, 3, 4, 5].map((length) => ({ length })), variant: 'length-fix' }));
    const at = [m.holderAt, m.dataAt, m.phaseAt, m.flagsAt, m.observedAt, m.dataPosAt, m.stepsAt, m.size, m.labelBytes];
    expect(at).toEqual([0, 9, 18, 25, 32, 59, 68, 95, 18]);
    expect([...m.tableAt]).toEqual([39, 40, 42, 44, 47, 50, 54]);
    expect([...m.readAt]).toEqual([75, 76, 78, 80, 83, 86, 90]);
    // Absent: the tags (no owner check) and the counts of landed parts (no torn-write) take no bytes and have no field.
    expect([m.layout.fields.tag, m.layout.fields.dataParts, m.layout.fields.tagParts]).toEqual([undefined, undefined, undefined]);
    expect(m.layout.widths).toEqual({ label: 1, page: 1, position: 1, parts: 1, labelSet: 1, record: 1, byte: 1 });
    expect(fastSuccessorsOf(m)).toBeDefined();
  });

  it('has one row per variable, and a field for exactly the present ones', () => {
    expect(LAYOUT.map((v) => v.name)).toEqual(['holder', 'data', 'tag', 'auxHolder', 'auxRoom', 'auxPayload', 'draft', 'stateHolder', 'stateOf', 'metaHolder', 'metaOf', 'phase', 'flags', 'observed', 'table', 'dataPos', 'steps', 'dataParts', 'tagParts', 'reads', 'free', 'release', 'list', 'lock', 'fill', 'tagFill', 'savedData', 'savedPos', 'savedTag', 'savedFill', 'savedTagFill', 'nodeLock', 'depth', 'sourceFreed', 'draftPending', 'stateIdx', 'metaIdx', 'hostCopy', 'load']);
    const m = compile(configFrom({ pages: 6, prefillLimit: 5, requests: [{ length: 4, prefix: 'sys' }, { length: 6, prefix: 'sys' }, { length: 3 }], variant: 'hardened', faults: ['torn-write', 'double-free'], allocator: 'sglang', pageSize: 2, eviction: true }));
    // The saved copy is retraction's, refused with prefixes: its rows are absent here and present below; the radix tree's are absent without `radix`.
    const saved = ['savedData', 'savedPos', 'savedTag', 'savedFill', 'savedTagFill'];
    // The radix tree's rows are absent without `radix`, P's source pages without `sourcePages`, the metadata slot without fault aux-torn.
    const radix = ['nodeLock', 'depth'];
    const slot = ['auxHolder', 'auxRoom', 'auxPayload'];
    // The draft model's rows are absent without `draft`, D's state slots and metadata rows without `stateSlots`, the host tier's without `loadback`.
    const draft = ['draft', 'draftPending'];
    const pool = ['stateHolder', 'stateOf', 'metaHolder', 'metaOf', 'stateIdx', 'metaIdx'];
    const host = ['hostCopy', 'load'];
    expect(Object.keys(m.layout.fields)).toEqual(LAYOUT.map((v) => v.name).filter((name) => name !== 'list' && name !== 'sourceFreed' && !saved.includes(name) && !radix.includes(name) && !slot.includes(name) && !draft.includes(name) && !pool.includes(name) && !host.includes(name)));
    expect(m.layout.dying.map((f) => f.name)).toEqual(['table']);
    expect(m.requestFields.map((f) => f.name)).toEqual(['phase', 'flags', 'observed', 'table', 'steps', 'dataParts', 'tagParts', 'reads']);
    const r = compile(configFrom({ pages: 6, prefillLimit: 5, requests: [{ length: 4 }, { length: 6 }], variant: 'hardened', allocator: 'sglang', pageSize: 2, retraction: true }));
    expect(saved.every((name) => name in r.layout.fields)).toBe(true);
    expect(r.layout.dying.map((f) => f.name)).toEqual(['table', ...saved]);
    expect(r.requestFields.map((f) => f.name)).toEqual(['phase', 'flags', 'observed', 'table', 'steps', 'reads', ...saved]);
    // The radix tree's rows take the place of the per-prefix lock: a lock_ref per page, a depth per request (moved with it under symmetry).
    const t = compile(configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'buggy', eviction: true, radix: true }));
    expect([radix.every((name) => name in t.layout.fields), 'lock' in t.layout.fields]).toEqual([true, false]);
    expect(t.requestFields.map((f) => f.name)).toEqual(['phase', 'flags', 'observed', 'table', 'steps', 'reads', 'depth']);
  });
});

describe('widths follow the configuration', () => {
  it('a position past 255 is stored in two bytes: a request of 258 pages reads its own pages, Integrity holds (6 states, depth 5)', () => {
    const m = compile(configFrom({ pages: 260, prefillLimit: 300, requests: [{ length: 258 }], variant: 'length-fix' }));
    expect(m.layout.widths.position).toBe(2);
    // The fast successors read positions as bytes: they refuse, and the spec's step runs. The fast invariants read only labels and records, still one byte here.
    expect([fastSuccessorsOf(m), typeof fastFormOf(m, Integrity)]).toEqual([undefined, 'function']);
    const r = check(checkedModel(m), { invariants: [Isolation, Integrity] });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 6, 5]);
    const s = walk(m, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)']);
    expect(view(m, s).pages[257]?.position).toBe(257);
    expect(readRecordOf(m, s, 0, 257)).toBe(0x8000 | 1);
  });

  it('accepts 250 requests; 300 take two-byte labels, read sets of 38 bytes and two-byte read records', () => {
    const many = (n: number) => configFrom({ pages: n, prefillLimit: 2, requests: Array.from({ length: n }, () => ({ length: 1 })), variant: 'buggy' });
    const m250 = compile(many(250));
    expect([m250.n, m250.layout.widths.record, m250.observedBytes]).toEqual([250, 2, 32]);
    const m = compile(many(300));
    expect(m.layout.widths).toMatchObject({ label: 2, page: 2, record: 2, labelSet: 38 });
    const last = `R${m.n - 1}`;
    const s = walk(m, [`allocate(${last})`, `prefill(${last})`, `handoff(${last})`, `decode(${last})`, 'allocate(A)']);
    expect(view(m, s).requests[m.n - 1]).toMatchObject({ phase: 'decoded', table: [0], read: [last] });
    expect([readsLabel(m, s, m.n - 1, m.n), readsLabel(m, s, m.n - 1, 1), tagOf(m, s, 0)]).toEqual([true, false, 0]);
    expect(INVARIANTS.filter((p) => !p.holds(m, s)).map((p) => p.name)).toEqual([]);
    expect(conjunctionOf(m).holds(s)).toBe(true);
  });

  it('renames requests of two-byte labels and wide read sets: a state and its renaming have one canonical form', () => {
    const m = compile(configFrom({ pages: 300, prefillLimit: 2, requests: Array.from({ length: 300 }, () => ({ length: 1 })), variant: 'buggy' }));
    const s = walk(m, ['allocate(R299)', 'prefill(R299)', 'handoff(R299)', 'decode(R299)', 'allocate(B)']);
    const canon = createCanonicalizer(m)!;
    const form = canon.canonical(s).slice();
    const perm = Int32Array.from({ length: m.n }, (_, r) => m.n - 1 - r);
    const renamed = new Uint8Array(m.size);
    renameRequests(m, s, perm, identityLabelMap(m), renamed);
    expect(view(m, renamed).requests[0]).toMatchObject({ phase: 'decoded', read: ['A'] });
    expect(canon.canonical(renamed)).toEqual(form);
  });
});

describe('a configuration past a width limit is refused, naming the limit', () => {
  it('in the decoder', () => {
    expect(messages({ pages: 65_536, prefillLimit: 2, requests: [{ length: 1 }] })).toEqual(['pages: expected a number of pages: a whole number from 1 to 65535, got 65536']);
    expect(messages({ pages: 65_535, prefillLimit: 2, requests: [{ length: 1 }], allocator: 'sglang' })).toEqual([
      'pages: allocator "sglang" adds the padding page 0, and page ids are at most two bytes: at most 65534 pages, got 65535',
    ]);
    const requests = Array.from({ length: 255 }, () => ({ length: 1 }));
    expect(messages({ pages: 300, prefillLimit: 2, requests, faults: ['double-free'] })).toEqual([
      'requests: a page\'s free-list copies and a prefix\'s lock count are one byte: at most 254 requests with allocator "sglang", fault "double-free" or eviction, got 255',
    ]);
  });

  it('on the command line: exit 2 and the limit in the message', async () => {
    const { code, err } = await pagecheck('check', '--pages', '65536', '--requests', '1');
    expect(code).toBe(2);
    expect(err).toMatch(/--pages: expected a number of pages: a whole number from 1 to 65535, got 65536/);
    // 50 requests are a model, but more actions than the search indexes: check refuses them, naming the limit.
    const many = await pagecheck('check', '--variant', 'length-fix', '--pages', '60', '--requests', Array.from({ length: 50 }, () => '1').join(','));
    expect([many.code, many.err.trim()]).toEqual([2, 'pagecheck: --requests: 300 actions, more than the 256 the checker indexes (an action index is a byte); use fewer requests, or simulate']);
  });
});
