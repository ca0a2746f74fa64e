import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Solver } from 'z3-solver';
import { describe, expect, it } from 'vitest';
import { heldCleanups, HoldingRegistry, solve } from '../../proofs/z3-cleanups.ts';

// A collection on demand, as `node --expose-gc` gives it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Lets the event loop run `turns` times: a registry's callbacks run in such turns after a collection. */
const turns = async (n: number): Promise<void> => {
  for (let k = 0; k < n; k++) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** Registers a fresh object (dropped at once) whose cleanup appends `name` to `log`. */
function registerDropped(registry: HoldingRegistry<string>, name: string): void {
  registry.register({ name }, name);
}

describe("z3's cleanups while it solves", () => {
  it('a cleanup that falls due during a check waits until the check has answered, and one outside a check runs at once', async () => {
    const log: string[] = [];
    const registry = new HoldingRegistry<string>((name) => log.push(name));
    let answer: (value: 'sat') => void = () => undefined;
    // A solver whose check answers when the test says, as z3's does from its own thread.
    const solver = { check: () => new Promise<'sat'>((resolve) => (answer = resolve)) } as unknown as Solver;
    const checking = solve(solver);
    registerDropped(registry, 'during');
    gc();
    await turns(20);
    expect(log).toEqual([]);
    expect(heldCleanups()).toBe(1);
    answer('sat');
    expect(await checking).toBe('sat');
    expect(log).toEqual(['during']);
    expect(heldCleanups()).toBe(0);
    registerDropped(registry, 'after');
    gc();
    await turns(20);
    expect(log).toEqual(['during', 'after']);
  });
});
