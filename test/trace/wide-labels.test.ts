import { describe, expect, it } from 'vitest';
import { compile, configFrom, initial, step, tableOf, type Action, type State } from '../../spec/index.ts';
import { writesOf } from '../../trace/facts.ts';

// 260 requests: labels take two bytes (spec/layout.ts). The printers must read pages through
// the spec's accessors: reading the data bytes as one byte per page once described a
// one-page request's write as landing on two pages.
describe('the printers with two-byte labels', () => {
  const m = compile(configFrom({ variant: 'buggy', pages: 3, prefillLimit: 1, requests: [...Array.from({ length: 259 }, () => ({ length: 1 })), { length: 3 }] }));
  const run = (actions: readonly Action[]): State => actions.reduce<State>((s, a) => step(m, s, a) ?? s, initial(m));

  it('lays labels out in two bytes', () => {
    expect(m.layout.widths.label).toBe(2);
  });

  it("names only the page a one-page request's prefill writes", () => {
    const last = 258;
    // A, B and C take and write pages 0, 1 and 2; A finishes and frees page 0, which the last request takes.
    const kinds = ['allocate', 'prefill'] as const;
    const written = kinds.flatMap((kind) => [0, 1, 2].map((r): Action => ({ kind, r })));
    const allocated = run([...written, { kind: 'handoff', r: 0 }, { kind: 'decode', r: 0 }, { kind: 'free', r: 0 }, { kind: 'allocate', r: last }]);
    expect(tableOf(m, allocated, last)).toEqual([0]);
    const table = tableOf(m, allocated, last);
    expect(table).toHaveLength(1);
    expect(writesOf(m, allocated, { kind: 'prefill', r: last })).toEqual(table);
  });
});
