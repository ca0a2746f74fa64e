/**
 * validate-log with both the host tier's loads (`loadback`) and P's source pages
 * (`sourcePages`) in one log: a request whose prefix load landed from an intact host copy,
 * and whose own pages P wrote from source pages released early (`source-early-free`).
 * The leak's headline must name P's source pages as the cause, not the host copy
 * (conformance/step-tier.ts loadedStale): the load landed, but no copy was evicted.
 */
import { describe, expect, it } from 'vitest';
import { config, ev, runLog, summary } from './log-lines.ts';

const run = (text: readonly string[]): ReturnType<typeof runLog> => runLog('both.jsonl', text);

// A (prefix sys, 3 pages): D loads the prefix into page 0 from host memory; P writes pages 1 and 2 from source pages 10 and 11 and frees them before the write lands.
const story = (evicted: boolean): string[] => [
  config({ pages: 4, prefillLimit: 4, variant: 'buggy', faults: ['torn-write', 'source-early-free', 'host-evict-during-load'], loadback: true, sourcePages: true }),
  ev('arrive', 'A', { length: 3, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [0, 1, 2] }),
  ev('load', 'A', { pages: [0] }),
  ...(evicted ? [JSON.stringify({ kind: 'hostEvict', prefix: 'sys' })] : []),
  ev('posted', 'A', { pages: [1, 2], sources: [10, 11] }),
  ev('sourceFree', 'A', { pages: [10, 11] }),
  ev('done', 'A'),
  ev('loaded', 'A'),
  ev('handoff', 'A'),
  ev('decode', 'A', { pages: [0, 1, 2], step: 0 }),
];

describe('a landed load and P\'s stale source pages in one request', () => {
  it('the host copy intact: the headline names P\'s source pages, not the host copy, at the decode line', () => {
    // npm run mutation's seed-40 sample: loadedStale's `hostReused[group] === 1` made true named the host copy here.
    const r = run(story(false));
    expect([summary(r), ...r.headline]).toEqual(['violation Isolation 10', "A read pages 1, 2, which hold another user's KV (P's source pages, reused before the write landed)."]);
  });

  it('the host copy evicted under the load as well: the headline names the host copy, which covers every stale page', () => {
    const r = run(story(true));
    expect([summary(r), ...r.headline]).toEqual(['violation Isolation 11', "A read pages 0, 1, 2, which hold another user's KV (the host copy of its prefix, evicted and reused while its load read it)."]);
  });
});
