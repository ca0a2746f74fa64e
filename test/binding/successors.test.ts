import { describe, expect, it } from 'vitest';
import { check, type Checkable } from '../../checker/index.ts';
import { CONJOINED, conjunctionOf } from '../../binding/properties.ts';
import { fastHashedOf, fastSuccessorsOf, inFastFamily } from '../../binding/successors.ts';
import { Zobrist } from '../../checker/zobrist.ts';
import { ScratchState } from '../../checker/scratch.ts';
import { allActions, compile, configFrom, incidentConfig, matrixConfig, step, type Config, type State } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { keyOf, reachable } from '../checker/orbits.ts';

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));

/** Configurations of the fast family, with their reachable states (no symmetry; regression pins, the same as `check --no-symmetry` gives). */
const FAMILY: readonly (readonly [string, Config, number])[] = [
  ['minimal incident, buggy (silent stub)', incidentConfig('buggy'), 21],
  ['minimal incident, length-fix', incidentConfig('length-fix'), 16],
  ['4 pages, requests 1,2,3, buggy', configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'buggy' }), 363],
  ['5 pages, requests 1,2,2,3, length-fix, rule ge', configFrom({ pages: 5, prefillLimit: 3, requests: requests([1, 2, 2, 3]), variant: 'length-fix', lengthRule: 'ge' }), 4759],
  ['4 pages, requests 2,2,4, buggy, no faults', configFrom({ pages: 4, prefillLimit: 3, requests: requests([2, 2, 4]), variant: 'buggy', faults: [] }), 156],
  // The owner check: tags cleared at allocate, stamped by prefill and the silent stub, checked by decode (a foreign tag fails the request).
  ['minimal incident, owner-check', incidentConfig('owner-check'), 21],
  ['4 pages, requests 1,2,3, owner-check', configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'owner-check' }), 363],
  ['4 pages, requests 1,2,2,1, owner-check', configFrom({ pages: 4, prefillLimit: 1, requests: requests([1, 2, 2, 1]), variant: 'owner-check' }), 7887],
  // Early free: timeout frees the pages, the late write lands by page id (and the tag check catches it under owner-check).
  ['minimal incident, owner-check, early-free', incidentConfig('owner-check', ['silent-stub', 'early-free']), 72],
  ['4 pages, requests 1,2,3, owner-check, early-free', configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'owner-check', faults: ['silent-stub', 'early-free'] }), 2703],
  ['4 pages, requests 1,2,3, buggy, early-free only', configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'buggy', faults: ['early-free'] }), 1006],
  // hardened: revoke-writer drops a timed-out request's parts in flight and its late write; release-checks-holder keeps a stale release off another's pages; torn writes land part by part.
  ['minimal incident, hardened', incidentConfig('hardened'), 21],
  ['2 pages, requests 1,1, hardened, early-free, torn-write', configFrom({ pages: 2, prefillLimit: 2, requests: requests([1, 1]), variant: 'hardened', faults: ['early-free', 'torn-write'] }), 401],
  ['2 pages, requests 1,1,1, hardened, stale-free, torn-write', configFrom({ pages: 2, prefillLimit: 2, requests: requests([1, 1, 1]), variant: 'hardened', faults: ['stale-free', 'torn-write'] }), 2494],
  ['3 pages, requests 1,2, hardened, the benchmark\'s four faults', configFrom({ pages: 3, prefillLimit: 1, requests: requests([1, 2]), variant: 'hardened', faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write'] }), 780],
  // Torn writes without timeout and without the owner check: landData is numbered right after free, and there is no landTag.
  ['3 pages, requests 1,2, buggy, torn-write only', configFrom({ pages: 3, prefillLimit: 2, requests: requests([1, 2]), variant: 'buggy', faults: ['torn-write'] }), 111],
];

/** Every successor of `s` as the readable spec gives it: `step` over `allActions`, in order. */
function specSuccessors(m: ReturnType<typeof compile>, s: State): string[] {
  const out: string[] = [];
  allActions(m).forEach((a, i) => {
    const t = step(m, s, a);
    if (t !== undefined) out.push(`${i}:${keyOf(t)}`);
  });
  return out;
}

describe('the fast successors agree with the spec on every reachable state', () => {
  it.each(FAMILY)('%s', { timeout: 60_000 }, (_name, config, expected) => {
    const m = compile(config);
    expect(inFastFamily(m)).toBe(true);
    const fast = fastSuccessorsOf(m)!;
    const states = reachable(m);
    expect(states.length).toBe(expected);
    const scratch = new ScratchState(m.size);
    let successors = 0;
    for (const s of states) {
      scratch.set(s);
      const got: string[] = [];
      fast(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
      expect(got).toEqual(specSuccessors(m, s));
      successors += got.length;
    }
    // Every state but the finished ones has a successor, so the comparison is not vacuous.
    expect(successors).toBeGreaterThanOrEqual(states.length - 1);
    // Fingerprint first: the same actions, each with the fingerprint of the spec's successor, and written out as the spec's.
    const hashed = fastHashedOf(m)!;
    const z = new Zobrist(m.size);
    let quiets = 0;
    const h = new Int32Array(2);
    for (const s of states) {
      z.hash(s, h, 0);
      const got: string[] = [];
      hashed.fingerprints(s, h[0]!, h[1]!, z, (a, h1, h2, quiet) => {
        const t = s.slice();
        hashed.apply(s, a, t);
        const want = step(m, s, allActions(m)[a]!)!;
        z.hash(want, h, 0);
        expect([h1, h2]).toEqual([h[0], h[1]]);
        got.push(`${a}:${keyOf(t)}`);
        // A quiet successor: every conjoined invariant has its parent's value.
        if (quiet === true) {
          quiets++;
          for (const p of CONJOINED) expect(p.holds(m, want), p.name).toBe(p.holds(m, s));
        }
      });
      z.hash(s, h, 0);
      expect(got).toEqual(specSuccessors(m, s));
    }
    expect(quiets).toBeGreaterThan(states.length / 4);
    // The search through the fast form (fingerprint first, without symmetry; through the expanders' path with it) finds the same states.
    const model = checkedModel(m);
    expect(model.fast?.hashed).toBeDefined();
    const [viaHashes, viaSuccessors] = [true, false].map((fingerprintFirst) => check(model, { symmetry: false, continueAfterViolation: true, fingerprintFirst }));
    expect(viaHashes!.distinctStates).toBe(expected);
    // Everything but the bytes per state, which count each queued state's fingerprint too.
    expect({ ...viaHashes, bytesPerState: 0 }).toEqual({ ...viaSuccessors, bytesPerState: 0 });
  });

  it('fingerprint first stops where the search through successors stops: at a deadlock, at a violation, at the state budget', { timeout: 60_000 }, () => {
    const cases: [Config, Parameters<typeof check>[1]][] = [
      [configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'buggy' }), { symmetry: false }],
      [configFrom({ pages: 5, prefillLimit: 3, requests: requests([1, 2, 2, 3]), variant: 'length-fix' }), { symmetry: false, maxStates: 1000 }],
    ];
    const verdicts: string[] = [];
    for (const [config, options] of cases) {
      const model = checkedModel(compile(config));
      const [a, b] = [true, false].map((fingerprintFirst) => check(model, { ...options, fingerprintFirst }));
      expect({ ...a!, bytesPerState: 0 }).toEqual({ ...b!, bytesPerState: 0 });
      verdicts.push(`${a!.verdict}:${a!.violations.map((v) => v.invariant).join(',')}`);
    }
    expect(verdicts).toEqual(['violation:Isolation', 'incomplete:']);
    // The family has no deadlock; a tiny model with fingerprint-first successors has: x counts to 3, y to 2 but only while x < 3, and only y = 2 is an end.
    const tiny = (withHashes: boolean): Checkable<number> => {
      const next = (s: Uint8Array, i: number): Uint8Array | undefined => {
        if (i === 0 ? s[0]! >= 3 : s[0]! >= 3 || s[1]! >= 2) return undefined;
        const t = s.slice();
        t[i] = t[i]! + 1;
        return t;
      };
      const base: Checkable<number> = {
        stateBytes: 2,
        initialStates: () => [new Uint8Array(2)],
        actions: [0, 1],
        nextState: next,
        properties: [{ name: 'Small', kind: 'always', holds: (s) => s[0]! + s[1]! < 9 }],
        isLegitimateEnd: (s) => s[1] === 2,
      };
      if (!withHashes) return base;
      return {
        ...base,
        fast: {
          hashed: {
            fingerprints: (s, h1, h2, z, sink) => {
              for (let i = 0; i < 2; i++) {
                const t = next(s, i);
                if (t === undefined) continue;
                const was = (i << 8) | s[i]!;
                const now = (i << 8) | t[i]!;
                sink(i, h1 ^ z.lo[was]! ^ z.lo[now]!, h2 ^ z.hi[was]! ^ z.hi[now]!);
              }
            },
            apply: (s, i, out) => out.set(next(s, i)!),
          },
        },
      };
    };
    for (const options of [{}, { continueAfterViolation: true }, { deadlock: false }, { maxStates: 5 }]) {
      const [a, b] = [tiny(true), tiny(false)].map((x) => check(x, options));
      expect({ ...a!, bytesPerState: 0 }).toEqual({ ...b!, bytesPerState: 0 });
      verdicts.push(`${a!.verdict}:${a!.violations.map((v) => `${v.invariant}@${v.depth}`).join(',')}:${a!.distinctStates}`);
    }
    expect(verdicts.slice(2)).toEqual(['violation:Deadlock@3:9', 'violation:Deadlock@3:12', 'holds::12', 'incomplete::5']);
  });

  // Off the reachable states: every one-byte change of a holder or a flag byte (a page held by somebody else, a stray flag), so that reads of pages not held are fingerprinted too.
  it.each(FAMILY.slice(0, 3))('both ways agree with the spec off the reachable states too: %s', { timeout: 60_000 }, (_name, config) => {
    const m = compile(config);
    const fast = fastSuccessorsOf(m)!;
    const hashed = fastHashedOf(m)!;
    const z = new Zobrist(m.size);
    const h = new Int32Array(2);
    const scratch = new ScratchState(m.size);
    let unheld = 0;
    for (const s0 of reachable(m)) {
      const bytes = [...Array.from({ length: m.pages }, (_, p) => m.holderAt + p), ...Array.from({ length: m.n }, (_, r) => m.flagsAt + r)];
      for (const at of bytes) {
        for (const v of [0, 1, m.n, 4]) {
          const s = s0.slice();
          s[at] = v;
          const want = specSuccessors(m, s);
          scratch.set(s);
          const viaSlices: string[] = [];
          fast(scratch, (t, a) => viaSlices.push(`${a}:${keyOf(t)}`));
          expect(viaSlices).toEqual(want);
          z.hash(s, h, 0);
          const viaPrints: string[] = [];
          hashed.fingerprints(s, h[0]!, h[1]!, z, (a, h1, h2) => {
            const t = s.slice();
            hashed.apply(s, a, t);
            z.hash(t, h, 0);
            expect([h1, h2]).toEqual([h[0], h[1]]);
            viaPrints.push(`${a}:${keyOf(t)}`);
            if ((t[m.flagsAt + (a % m.n)]! & 4) !== 0 && (s[m.flagsAt + (a % m.n)]! & 4) === 0) unheld++;
          });
          z.hash(s, h, 0);
          expect(viaPrints).toEqual(want);
        }
      }
    }
    expect(unheld).toBeGreaterThan(0);
  });

  it('the naive encoding (dead tables kept) agrees too', { timeout: 60_000 }, () => {
    const m = compile(incidentConfig('buggy'), { keepDeadState: true });
    const fast = fastSuccessorsOf(m)!;
    const scratch = new ScratchState(m.size);
    for (const s of reachable(m)) {
      scratch.set(s);
      const got: string[] = [];
      fast(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
      expect(got).toEqual(specSuccessors(m, s));
    }
  });

  // The family's conjunction (binding/properties.ts) on reachable states and on every one-byte change of a page's holder or a table entry of them, which break the invariants in many ways.
  it.each(FAMILY.slice(0, 3))('the conjunction agrees with the invariants: %s', { timeout: 60_000 }, (_name, config) => {
    const m = compile(config);
    const holds = conjunctionOf(m).holds;
    const spec = (s: State): boolean => CONJOINED.every((p) => p.holds(m, s));
    let broken = 0;
    let checked = 0;
    for (const s of reachable(m)) {
      const variants = [s];
      const bytes = [...Array.from({ length: m.pages }, (_, p) => m.holderAt + p), ...Array.from({ length: m.len.reduce((a, b) => a + b, 0) }, (_, k) => m.tableAt[0]! + k)];
      for (const at of bytes) {
        for (const v of [0, 1, m.n, m.n + 1, 0xff]) {
          const t = s.slice();
          t[at] = v;
          variants.push(t);
        }
      }
      for (const t of variants) {
        const want = spec(t);
        expect(holds(t), keyOf(t)).toBe(want);
        if (!want) broken++;
        checked++;
      }
    }
    expect(broken).toBeGreaterThan(checked / 10);
  });

  it('a configuration outside the family gets the expanders', () => {
    const outside: Config[] = [
      matrixConfig('buggy'),
      { ...incidentConfig('buggy'), allocator: 'sglang' },
      { ...incidentConfig('buggy'), pageSize: 2 },
      { ...incidentConfig('buggy'), decodeSteps: 2 },
      incidentConfig('buggy', ['silent-stub', 'double-free']),
      incidentConfig('owner-check', ['silent-stub', 'torn-write', 'premature-success']),
      { ...incidentConfig('hardened'), pageSize: 2 },
    ];
    for (const c of outside) expect(fastSuccessorsOf(compile(c)), JSON.stringify(c)).toBeUndefined();
  });
});
