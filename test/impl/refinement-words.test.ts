/**
 * What a refinement failure says (impl/abstraction.ts `refinementDiff`): the field that
 * differs, in words, with both values. npm run mutation's seed-27 sample found the words of
 * the release-list line (`'the'`, `'release list'` emptied) checked by no test of impl/.
 */
import { describe, expect, it } from 'vitest';
import { PagePool, runMbt } from '../../impl/index.ts';
import type { Config } from '../../spec/index.ts';

/** SGLang's P/D order: a freed request's pages wait in the release list. */
const CONFIG: Config = { pages: 4, prefillLimit: 4, requests: [{ name: 'A', length: 2 }], variant: 'buggy', faults: [], allocator: 'sglang' };

/** Reports released pages as if they were on the free list proper: the release list reads empty. */
class ReleaseListHidden extends PagePool {
  override freeCopies(p: number): number {
    return super.freeCopies(p) + super.releaseCopies(p);
  }
  override releaseCopies(): number {
    return 0;
  }
}

describe('a refinement failure in words', () => {
  it('a release list read as the free list: both lines name the list and give both values', () => {
    const r = runMbt({ config: CONFIG, runs: 200, seed: 1, makePool: (o) => new ReleaseListHidden(o) });
    expect(r.failure?.property).toBe('Refinement');
    expect(r.failure?.commands.at(-1)).toBe('free(A)');
    expect(r.failure?.message.split('\n').slice(1).map((l) => l.trim())).toEqual(['the free list: spec [3,4], impl [1,2,3,4]', 'the release list: spec [1,2], impl []']);
  });
});
