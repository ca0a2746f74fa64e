/**
 * `prove --timeout 1ms`: the CLI makes z3 run out of time for real. Every obligation that is
 * not vacuous comes back unknown for z3's reason `timeout`, is asked once (another seed
 * would only time out again), and the proof is not called proved: exit 3. The encoding
 * check keeps its own limit, so it still agrees.
 */
import { describe, expect, it } from 'vitest';
import { pagecheckApart } from './apart.ts';

interface Json {
  readonly obligations: ReadonlyArray<{ readonly name: string; readonly result: string; readonly vacuous?: true; readonly attempts?: number; readonly unknownReasons?: readonly string[] }>;
  readonly proved: boolean;
  readonly conformance?: { readonly mismatches: readonly unknown[] };
}

describe('prove --timeout in milliseconds', () => {
  it('1ms: z3 times out on every obligation that can happen; unknown, not proved, exit 3', async () => {
    // the command line bundled, in a process of its own (apart.ts): in vitest's module runner the encoding check's spec
    // calls ran several times slower
    const r = await pagecheckApart(['prove', '--variant', 'length-fix', '--timeout', '1ms', '--json']);
    expect(r.code).toBe(3);
    const json = JSON.parse(r.out) as Json;
    expect(json.proved).toBe(false);
    expect(json.conformance?.mismatches).toEqual([]);
    // The vacuous ones (a guard that is false under length-fix) z3 refutes before any search.
    expect(json.obligations.filter((o) => o.vacuous === true).map((o) => [o.name, o.result])).toEqual([
      ['timeout', 'proved'],
      ['landData', 'proved'],
      ['landTag', 'proved'],
    ]);
    const real = json.obligations.filter((o) => o.vacuous !== true);
    expect(real.map((o) => o.name)).toEqual(['init', 'allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'insert']);
    for (const o of real) expect([o.name, o.result, o.unknownReasons, o.attempts]).toEqual([o.name, 'unknown', ['timeout'], 1]);
  }, 240_000);
});
