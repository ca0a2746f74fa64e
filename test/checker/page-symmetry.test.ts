/**
 * Allocator `any`: page symmetry, checked against orbits counted by brute force (every
 * renaming of pages times every renaming of interchangeable requests, written out from
 * the state's layout here, independently of binding/page-symmetry.ts).
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, NO_PAGE, type Config, type Model, type State } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { keyOf, reachable, rename, renamings } from './orbits.ts';

/** Every permutation of `0 .. n-1`. */
function pagePerms(n: number): number[][] {
  if (n === 0) return [[]];
  return pagePerms(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

/** `s` with page `p` renamed `perm[p]`: the per-page bytes moved, the table entries relabelled. */
function renamePages(m: Model, s: State, perm: readonly number[]): State {
  const t = new Uint8Array(s);
  for (let p = 0; p < m.pages; p++) {
    const q = perm[p]!;
    t[m.holderAt + q] = s[m.holderAt + p]!;
    t[m.dataAt + q] = s[m.dataAt + p]!;
    t[m.tagAt + q] = s[m.tagAt + p]!;
    t[m.dataPosAt + q] = s[m.dataPosAt + p]!;
    if (m.freeAt >= 0) t[m.freeAt + q] = s[m.freeAt + p]!;
    if (m.fillAt >= 0) t[m.fillAt + q] = s[m.fillAt + p]!;
    if (m.tagFillAt >= 0) t[m.tagFillAt + q] = s[m.tagFillAt + p]!;
  }
  for (let r = 0; r < m.n; r++) {
    for (let i = 0; i < m.len[r]!; i++) {
      const at = m.tableAt[r]! + i;
      t[at] = s[at] === NO_PAGE ? NO_PAGE : perm[s[at]!]!;
    }
  }
  return t;
}

function orbits(m: Model, states: readonly State[]): number {
  const pages = pagePerms(m.pages);
  const requests = renamings(m);
  const seen = new Set<string>();
  for (const s of states) {
    let least: string | undefined;
    for (const rp of requests) {
      const r = rename(m, s, rp);
      for (const pp of pages) {
        const k = keyOf(renamePages(m, r, pp));
        if (least === undefined || k < least) least = k;
      }
    }
    seen.add(least!);
  }
  return seen.size;
}

const CASES: readonly (readonly [string, Config, number, number])[] = [
  ['incident, buggy', { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 3 }], variant: 'buggy', faults: ['silent-stub'], allocator: 'any' }, 304, 52],
  ['incident, owner-check', { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 3 }], variant: 'owner-check', faults: ['silent-stub'], allocator: 'any' }, 286, 49],
  // Token slots: a page's fill counts are per-page bytes that move with it.
  ['2-token pages, requests of 3, 3 and 1 tokens, owner-check, silent-stub, two decode steps', { pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ name: 'A', length: 3 }, { name: 'B', length: 3 }, { name: 'C', length: 1 }], variant: 'owner-check', faults: ['silent-stub'], allocator: 'any', decodeSteps: 2 }, 2623, 229],
  ['1,1,2 on 3 pages, double-free', { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 1 }, { name: 'B', length: 1 }, { name: 'C', length: 2 }], variant: 'buggy', faults: ['double-free'], allocator: 'any' }, 16768, 1451],
];

describe('allocator any: every choice of pages, reduced by page symmetry', () => {
  for (const [name, config, raw, reduced] of CASES) {
    it(`${name}: exactly one state per orbit of pages and requests`, () => {
      const m = compile(config);
      const states = reachable(m);
      const full = check(checkedModel(m), { symmetry: false, continueAfterViolation: true });
      const sym = check(checkedModel(m), { continueAfterViolation: true });
      expect(full.distinctStates).toBe(states.length);
      expect(sym.distinctStates).toBe(orbits(m, states));
      expect([full.distinctStates, sym.distinctStates]).toEqual([raw, reduced]);
      // Same verdict and the same shortest violations, with and without the reduction.
      expect(sym.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(full.violations.map((v) => `${v.invariant}@${v.depth}`));
    }, 60_000);
  }
});
