import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAST_ACTIONS, type FastAction } from '../../binding/fast-actions.ts';
import { emitFastFamily, isQuiet } from '../../binding/fast-emit.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// In Stryker's own run (bench/mutation/stryker.ts sets PAGECHECK_MUTATION_INSTRUMENTED) the sources are instrumented: the committed text differs from what they emit whatever the mutant, and the dry run would fail. npm run mutation's re-run of each survivor in a clean copy (bench/mutation/static-recheck.ts) leaves it unset, so this test kills the emitter's mutants there.
const INSTRUMENTED = process.env['PAGECHECK_MUTATION_INSTRUMENTED'] !== undefined;

describe('the fast family, emitted from its one description (binding/fast-actions.ts)', () => {
  it.skipIf(INSTRUMENTED)('the committed files are what the description emits now (run `npm run generate` when this fails)', () => {
    const emitted = emitFastFamily();
    expect(Object.keys(emitted).sort()).toEqual(['binding/fast-apply-faults.ts', 'binding/fast-apply.ts', 'binding/fast-fingerprints-faults.ts', 'binding/fast-fingerprints.ts', 'binding/fast-successors-faults.ts', 'binding/fast-successors.ts']);
    for (const [path, text] of Object.entries(emitted)) expect(readFileSync(ROOT + path, 'utf8'), path).toBe(text);
  });

  it('a stale file is seen: a changed description emits other text', () => {
    const before = emitFastFamily()['binding/fast-successors.ts'];
    const actions = FAST_ACTIONS as FastAction[];
    const handoff = actions.findIndex((a) => a.kind === 'handoff');
    const saved = actions[handoff]!;
    actions[handoff] = { ...saved, phases: ['written', 'allocated'] };
    try {
      expect(emitFastFamily()['binding/fast-successors.ts']).not.toBe(before);
    } finally {
      actions[handoff] = saved;
    }
  });

  it('quiet actions follow from the fields written and the phases entered', () => {
    // prefill, stub, handoff and the landing parts (on time) write only page contents and counts of parts and move a request between live phases; the others write what the conjunction reads.
    expect(FAST_ACTIONS.filter(isQuiet).map((a) => a.kind)).toEqual(['prefill', 'stub', 'handoff', 'landData', 'landTag']);
    // A write of a field the conjunction reads (a holder), or a phase change across liveness, is not quiet.
    const handoff = FAST_ACTIONS.find((a) => a.kind === 'handoff')!;
    expect(isQuiet({ ...handoff, effects: [{ set: 'holder', at: '0', to: '0' }, { phase: 'handedOff' }] })).toBe(false);
    expect(isQuiet({ ...handoff, effects: [{ phase: 'freed' }] })).toBe(false);
  });
});
