import { describe, expect, it } from 'vitest';
import { fingerprint, FingerprintSet } from '../../checker/fingerprints.ts';
import { ScratchState } from '../../checker/scratch.ts';
import { ParentLinks, StateQueue } from '../../checker/store.ts';
import { strideOf, wordState } from '../../checker/words.ts';
import { check } from '../../checker/bfs.ts';
import { compile, configFrom } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';

describe('FingerprintSet', () => {
  it('adds each distinct state once, across many growths of the table', () => {
    const set = new FingerprintSet(4);
    const s = wordState(13);
    const h = new Int32Array(2);
    let added = 0;
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 20000; i++) {
        s.bytes[0] = i & 0xff;
        s.bytes[1] = i >>> 8;
        s.bytes[12] = 7; // the last byte, in a padded word
        fingerprint(s.words, 0, s.words.length, h, 0);
        if (set.add(h[0]!, h[1]!)) added++;
      }
    }
    expect(added).toBe(20000);
    expect(set.size).toBe(20000);
    expect(set.byteLength).toBe(2 ** 15 * 8);
  });

  it('keeps every fingerprint findable through in-place growth, whatever the clusters (random and wrap-around homes)', () => {
    let x = 0x2545f491;
    const next = (): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x | 0;
    };
    const lost: number[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const set = new FingerprintSet(2);
      const entries: Array<[number, number]> = [];
      // Half uniform; half homed in the top 16 slots of whatever size the table has, so clusters wrap.
      for (let i = 0; i < 1500; i++) entries.push([next(), next() | 1], [next() | 0xfff0, next() | 1]);
      const added = entries.filter(([h1, h2]) => set.add(h1, h2)).length;
      const again = entries.filter(([h1, h2]) => set.add(h1, h2)).length;
      if (again !== 0 || added !== set.size) lost.push(seed);
    }
    expect(lost).toEqual([]);
  });

  it('hashes words at an offset as it hashes the same words alone; one changed bit changes both halves', () => {
    const words = Int32Array.from({ length: 12 }, (_, i) => Math.imul(i + 1, 0x9e3779b1));
    const out = new Int32Array(4);
    fingerprint(words, 3, 5, out, 0);
    fingerprint(words.slice(3, 8), 0, 5, out, 1);
    expect([out[2], out[3]]).toEqual([out[0], out[1]]);
    words[5]! ^= 1;
    fingerprint(words, 3, 5, out, 1);
    expect(out[2]).not.toBe(out[0]);
    expect(out[3]).not.toBe(out[1]);
    expect(out[1]).not.toBe(0);
  });
});

describe('StateQueue and ParentLinks', () => {
  it('gives back every state pushed, across recycled chunks, and the path of parent links', () => {
    const size = 100_001; // ten states per 1 MiB chunk, and a padded last word
    const q = new StateQueue(strideOf(size));
    const s = wordState(size);
    const out = wordState(size);
    const links = new ParentLinks();
    const wrong: number[] = [];
    for (let i = 0; i < 40; i++) {
      s.bytes[0] = i;
      s.bytes[size - 1] = 255 - i;
      q.push(s.words);
      if (i > 0) links.set(i, Math.floor((i - 1) / 2), i % 7);
      if (i >= 5) {
        q.take(i - 5, out.words);
        if (out.bytes[0] !== i - 5 || out.bytes[size - 1] !== 255 - (i - 5)) wrong.push(i - 5);
      }
    }
    expect(wrong).toEqual([]);
    // Six states queued behind the one being expanded.
    expect(q.peakQueued).toBe(7);
    expect(links.pathTo(10)).toEqual([1 % 7, 4 % 7, 10 % 7]);
    expect(links.pathTo(0)).toEqual([]);
  });
});

describe('ScratchState', () => {
  it('slice() copies into one shared successor buffer; a ranged slice and derived arrays are ordinary', () => {
    const s = new ScratchState(6);
    s.set([1, 2, 3, 4, 5, 6]);
    const t = s.slice();
    expect(t).toBe(s.successor);
    expect([...t]).toEqual([1, 2, 3, 4, 5, 6]);
    t[0] = 9;
    expect(s[0]).toBe(1);
    expect(s.slice()).toBe(t);
    expect(t[0]).toBe(1);
    expect([...s.slice(1, 3)]).toEqual([2, 3]);
    expect(s.subarray(2).constructor).toBe(Uint8Array);
    expect([...s.successorWords].slice(1)).toEqual([6 << 8 | 5]);
  });
});

describe('ScratchState.target', () => {
  it('slice() writes into the buffer last targeted, and a search through it counts and traces as one without it', () => {
    const s = new ScratchState(5);
    s.set([1, 2, 3, 4, 5]);
    const words = new Int32Array(2);
    const bytes = new Uint8Array(words.buffer, 0, 5);
    s.target(bytes, words);
    expect(s.slice()).toBe(bytes);
    expect([...bytes]).toEqual([1, 2, 3, 4, 5]);
    expect(words[1]).toBe(5);
    // The spec declares slicesOnce; the same search without it copies every successor and must agree.
    const m = compile(configFrom({ pages: 4, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] }));
    for (const symmetry of [true, false]) {
      const direct = check(checkedModel(m), { symmetry, continueAfterViolation: true });
      const model = checkedModel(m);
      const copied = check({ ...model, fast: { ...model.fast, slicesOnce: false } }, { symmetry, continueAfterViolation: true });
      const summary = (r: typeof direct) => [r.distinctStates, r.depth, r.violations.map((v) => [v.invariant, v.trace.steps.map((x) => x.action)])];
      expect(summary(direct)).toEqual(summary(copied));
    }
    // 880: the README's table of live and naive counts (test/spec/liveness.test.ts pins it too).
    expect(check(checkedModel(m), { symmetry: false, continueAfterViolation: true }).distinctStates).toBe(880);
  });
});
