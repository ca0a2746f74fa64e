import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom, FAULT_REREADS_FINISHED_TABLE, FAULTS, tableOf, type Config } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';

const full = { symmetry: false, continueAfterViolation: true, deadlock: false } as const;
const count = (config: Config, keepDeadState: boolean): number => check(checkedModel(compile(config, { keepDeadState })), full).distinctStates;

/** Live-state counts against the naive encoding that keeps every dead table (both regression pins; the live ones are also SPIN's, see test/spin/cross-check.test.ts). */
const CASES = [
  { name: '6 pages, requests 2,3,2,3,2, buggy', input: { pages: 6, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 2 }, { length: 3 }, { length: 2 }] }, live: 45164, naive: 70352 },
  { name: '6 pages, requests 1,2,2,3, length-fix', input: { pages: 6, prefillLimit: 2, requests: [{ length: 1 }, { length: 2 }, { length: 2 }, { length: 3 }], variant: 'length-fix' }, live: 9329, naive: 12816 },
  { name: '4 pages, requests 2,2,2, early-free and stale-free', input: { pages: 4, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] }, live: 880, naive: 1126 },
] as const;

describe('only live state', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.live} states, ${c.naive} when dead tables are kept`, () => {
      const config = configFrom(c.input);
      expect([count(config, false), count(config, true)]).toEqual([c.live, c.naive]);
    }, 30_000);
  }

  it('the two encodings give the same verdicts and shortest counterexample depths', () => {
    for (const c of CASES) {
      const config = configFrom(c.input);
      const found = (keepDeadState: boolean): string[] =>
        check(checkedModel(compile(config, { keepDeadState })), full).violations.map((v) => `${v.invariant}@${v.depth}`);
      expect(found(false), c.name).toEqual(found(true));
    }
  }, 60_000);

  it("a freed request's table is reset, unless a configured fault can release it again", () => {
    const labels = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)'];
    const plain = runLabels(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }] }), labels);
    expect(tableOf(plain.m, plain.last, 0)).toEqual([]);
    const stale = runLabels(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }], faults: ['stale-free'] }), labels);
    expect(tableOf(stale.m, stale.last, 0)).toEqual([0, 1]);
    const twice = runLabels(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }], faults: ['stale-free'] }), [...labels, 'free(A)']);
    expect(tableOf(twice.m, twice.last, 0)).toEqual([]);
  });

  it('every fault declares whether it re-reads a finished table: the two late second releases, stale-free and double-free', () => {
    expect(FAULTS.filter((f) => FAULT_REREADS_FINISHED_TABLE[f])).toEqual(['stale-free', 'double-free']);
  });
});
