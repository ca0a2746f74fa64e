/**
 * The one-thread search with its queue and parent links spilled to disk (checker/spill.ts,
 * issue 26 item 3) against the same search in memory: on pinned configurations (named with
 * the file that pins them), with chunks of 64 bytes (a state or two, 16 links) and a
 * budget of 64 bytes, so that nearly every chunk goes to the file, the counts, depths, verdicts, every violation's shortest
 * trace (rebuilt from links read back from disk) and the witnesses are the same. Nothing
 * is left in the spill directory, during the search or after it.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check, type CheckOptions, type CheckResult } from '../../checker/index.ts';
import { fingerprint, FingerprintSet, slotsAfter } from '../../checker/fingerprints.ts';
import { ParentLinks, StateQueue } from '../../checker/store.ts';
import { strideOf, wordState } from '../../checker/words.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, configFrom, incidentConfig, type Config } from '../../spec/index.ts';

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));
const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SMALL = { memoryBytes: 64, chunkBytes: 64, dir };

/** Configuration, options, and the pinned [verdict, states, depth, violations as invariant@depth]. */
const PINNED: readonly (readonly [string, Config, CheckOptions, readonly unknown[]])[] = [
  ['check.test.ts: incident buggy, whole space (symmetry)', incidentConfig('buggy'), { continueAfterViolation: true }, ['violation', 21, 10, ['Isolation@9']]],
  ['6 pages 2,3,2,3,2, stops at the leak', configFrom({ pages: 6, prefillLimit: 2, requests: requests([2, 3, 2, 3, 2]) }), { symmetry: false }, ['violation', 1488, 9, ['Isolation@9']]],
  ['a deadlock, whole space', configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] }), { continueAfterViolation: true }, ['violation', 25, 11, ['Deadlock@6']]],
  ['4 pages 1,2,2,1 owner-check (symmetry)', configFrom({ pages: 4, prefillLimit: 1, requests: requests([1, 2, 2, 1]), variant: 'owner-check' }), {}, ['holds', 2070, 20, []]],
  ['hardened: stale and double releases', configFrom({ pages: 5, prefillLimit: 2, requests: requests([1, 2, 2, 3]), variant: 'hardened', faults: ['silent-stub', 'stale-free', 'double-free'] }), { symmetry: false, continueAfterViolation: true }, ['holds', 32159, 24, []]],
];

const summary = (r: CheckResult): unknown[] => [r.verdict, r.distinctStates, r.depth, r.violations.map((v) => `${v.invariant}@${v.depth}`)];
/** The result without the figures that say where the bytes were. */
const same = (r: CheckResult): unknown => ({ ...r, bytesPerState: 0, spilledBytes: undefined });

describe('check with the queue and parent links spilled to disk', () => {
  it.each(PINNED)('%s: the same result as in memory', (_name, config, options, pinned) => {
    const model = checkedModel(compile(config));
    const inMemory = check(model, options);
    const spilled = check(model, { ...options, spill: SMALL });
    expect(summary(inMemory)).toEqual(pinned);
    expect(same(spilled)).toEqual(same(inMemory));
    expect(inMemory.spilledBytes).toBeUndefined();
    expect(spilled.spilledBytes).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('leaves nothing in the spill directory while it runs', () => {
    const config = configFrom({ pages: 7, prefillLimit: 3, requests: requests([1, 2, 2, 3, 3]), variant: 'length-fix' });
    const during: string[][] = [];
    check(checkedModel(compile(config)), { symmetry: false, spill: { memoryBytes: 4096, chunkBytes: 1024, dir }, onProgress: () => during.push(readdirSync(dir)) });
    expect(during).toEqual([[], []]);
  }, 30_000);
});

describe('StateQueue and ParentLinks over a memory budget', () => {
  it('give back every state and every path, with at most the budget and two chunks in memory', () => {
    const size = 37;
    const q = new StateQueue(strideOf(size), { memoryBytes: 4 * 400, chunkBytes: 400 });
    const links = new ParentLinks({ memoryBytes: 2 * 5 * 64, chunkBytes: 256 });
    const s = wordState(size);
    const out = wordState(size);
    const wrong: number[] = [];
    let head = 0;
    for (let i = 0; i < 5000; i++) {
      s.bytes[0] = i & 255;
      s.bytes[size - 1] = (i >>> 8) & 255;
      q.push(s.words);
      if (i > 0) links.set(i, Math.floor((i - 1) / 3), i % 251);
      // A queue that grows, then drains: the head trails by up to 1,000 states.
      for (; head < i - (i < 3000 ? i / 3 : 1000 - (i - 3000) / 2); head++) {
        q.take(head, out.words);
        if (out.bytes[0] !== (head & 255) || out.bytes[size - 1] !== ((head >>> 8) & 255)) wrong.push(head);
      }
    }
    expect(wrong).toEqual([]);
    expect(q.spilledBytes).toBeGreaterThan(0);
    expect(q.peakBytes).toBeLessThanOrEqual(6 * 400);
    expect(links.spilledBytes).toBeGreaterThan(0);
    expect(links.memoryBytes).toBe(3 * 5 * 64);
    const path: number[] = [];
    for (let i = 4999; i >= 1; i = Math.floor((i - 1) / 3)) path.unshift(i % 251);
    expect(links.pathTo(4999)).toEqual(path);
    q.close();
    links.close();
  });
});

describe('FingerprintSet probe length', () => {
  it('a lookup reads about two slots (Knuth: (1 + 1/(1 - 0.7)) / 2 = 2.17) at the 0.7 load a small table grows at', () => {
    const set = new FingerprintSet(16);
    const words = new Int32Array(1);
    const key = new Int32Array(2);
    for (let k = 1; set.size < Math.floor(0.7 * 65536); k++) {
      words[0] = k;
      fingerprint(words, 0, 1, key, 0);
      set.add(key[0]!, key[1]!);
    }
    expect(set.byteLength).toBe(8 * 65536);
    expect(set.meanProbe()).toBeGreaterThan(1.5);
    expect(set.meanProbe()).toBeLessThan(2.5);
  });
});

describe('FingerprintSet growth', () => {
  it('grows past 0.7 below 2^27 slots and past 0.9 from there: 120,104,990 states fit 1 GiB, 200M fit 2 GiB', () => {
    expect(Math.log2(slotsAfter(46_976_204))).toBe(26); // 0.7 of 2^26
    expect(Math.log2(slotsAfter(46_976_205))).toBe(27);
    expect(Math.log2(slotsAfter(120_104_990))).toBe(27); // 5 pages 1,2,2,3,3,1 (docs/MEASURED.md)
    expect(Math.log2(slotsAfter(120_795_955))).toBe(27); // 0.9 of 2^27
    expect(Math.log2(slotsAfter(120_795_956))).toBe(28);
    expect(Math.log2(slotsAfter(200_000_000))).toBe(28);
    expect(Math.log2(slotsAfter(350_000_000))).toBe(29);
  });
});
