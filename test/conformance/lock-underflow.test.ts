/**
 * validate-log under fault `lock-underflow` with eviction: C hits the cached `sys` prefix
 * page, but its lock goes to another node, so an allocation short of pages evicts the page
 * C still reads. Under the fault that eviction breaks `ExclusiveHold` at its line (the page
 * is free while C's table holds it); without it C's lock keeps the entry and the `evict`
 * line is a deviation. An `evict` line's pages must be those the cache freed.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validate, type SourceLine } from '../../conformance/index.ts';
import { pagecheck } from '../support/cli.ts';

const EXAMPLE = 'examples/logs/lock-underflow.jsonl';
const lines = (): string[] => readFileSync(EXAMPLE, 'utf8').trim().split('\n');
const asSource = (text: readonly string[]): SourceLine[] => text.map((t, i) => ({ file: 'lu.jsonl', line: i + 1, text: t }));

describe('validate-log with lock-underflow and eviction', () => {
  it('the eviction of a page a live hit reads: ExclusiveHold at the evict line, confirmed by the spec trace', async () => {
    const r = await pagecheck('validate-log', EXAMPLE);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`violation of ExclusiveHold at ${EXAMPLE}:13`);
    expect(r.out).toContain('evict(B) freed page 0, the cached prefix page that C (live, a cache hit) still reads');
    expect(r.out).toContain('actions: allocate(A) prefill(A) handoff(A) decode(A) insert(A) free(A) allocate(C) prefill(C) evict(B)');
  });

  it('without the fault C locks the entry: the evict line is a deviation', () => {
    const r = validate({ files: [], lines: asSource(lines()), overrides: { faults: [] }, window: 8 });
    expect([r.verdict, r.at?.line]).toEqual(['deviation', 13]);
    expect(r.refusals[0]?.why).toBe('evict(B) is not enabled: B is new');
  });

  it("an evict line must name the pages the cache freed", () => {
    const text = lines().map((l) => l.replace('"kind":"evict","id":"B","pages":[0]', '"kind":"evict","id":"B","pages":[2]'));
    const r = validate({ files: [], lines: asSource(text), overrides: {}, window: 8 });
    expect([r.verdict, r.at?.line]).toEqual(['deviation', 13]);
    expect(r.refusals[0]?.why).toBe('evict(B) frees one cached page; the log says [2], which is not what it freed');
  });
});
