/**
 * The draft model's KV and the host cache's load back together (`--draft --loadback`):
 * the load restores the draft KV with the target's (HiCache manages both since SGLang PR
 * #17338). Before the merge of the two switches, a loaded page kept its old draft, and
 * `hardened` with every fault of issue 24 broke Integrity in 10 actions:
 * allocate(B) prefill(B) landData(B) landTag(B) landPayload(B) landRoom(B) landDraft(B)
 * handoff(B) loadBack(B) decode(B), B's prefix page read with no draft KV.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, configFrom, draftOf, Integrity, Isolation, prefixLabel, type Config, type Fault } from '../../spec/index.ts';
import { runLabels } from './helpers.ts';

const ISSUE_24: readonly Fault[] = ['torn-write', 'early-free', 'premature-success', 'aux-torn', 'source-early-free', 'draft-stale', 'state-slot-reuse', 'metadata-collision', 'host-evict-during-load', 'read-before-load'];

/** hardened with every switch of issue 24 on. */
const everything = (requests: readonly string[]): Config => ({
  ...configFrom({
    pages: 3,
    prefillLimit: 2,
    requests: requests.map((q) => (q.endsWith(':sys') ? { length: Number(q.split(':')[0]), prefix: 'sys' } : { length: Number(q) })),
    variant: 'hardened',
    faults: [...ISSUE_24],
  }),
  sourcePages: true,
  draft: true,
  stateSlots: true,
  loadback: true,
});

describe('the draft model and the load back', () => {
  it('a load back writes the prefix page\'s draft KV with its target KV', () => {
    const config = { ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant: 'owner-check', faults: [] }), draft: true, loadback: true };
    const { m, last } = runLabels(config, ['allocate(B)', 'loadBack(B)']);
    expect(draftOf(m, last, 0)).toBe(prefixLabel(m, 0, 0));
  });

  it('hardened with every fault of issue 24 and all four switches holds Isolation and Integrity (3 pages, requests 1,2:sys: 15,648 states, depth 24), every witness that applies reached', () => {
    const r = check(checkedModel(compile(everything(['1', '2:sys']))), { invariants: [Isolation, Integrity] });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 15648, 24]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    expect(r.witnesses.filter((w) => w.applies).map((w) => w.name)).toEqual(['DecodeSucceeds', 'PageReused', 'LateWriteLands', 'TornPage', 'SourceFreed', 'DraftLanded', 'DraftPrefixHit', 'LoadedBack', 'HostEvicted']);
  });
});
