import { describe, expect, it } from 'vitest';
import { incidentConfig } from '../../spec/index.ts';
import { formatTrace, shouldColor } from '../../trace/index.ts';
import { narrate } from '../../trace/narrate.ts';
import { earlyFree, minimalLeak, ownerCheck, prefixPoison, sample } from './traces.ts';

const ANSI = /\u001b\[[0-9;]*m/;

describe('formatTrace on the minimal leak', () => {
  const { m, trace } = minimalLeak();
  const text = formatTrace(m, trace, { color: false, violation: 'Isolation' });
  const lines = text.split('\n');

  it('heads the trace with the violation in words and the model', () => {
    expect(lines[0]).toBe("Isolation violated after 9 steps: B read page 1, which holds A's data written at step 2.");
    expect(lines[1]).toBe('model: buggy, 3 pages, prefill limit 2, requests A (2 pages), B (3 pages); faults silent-stub');
  });

  it('prints state 0 and the nine steps, with the action between', () => {
    const headers = lines.filter((l) => /^(state|step) \d/.test(l));
    expect(headers.map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'state 0 every',
      'step 1 allocate(A)',
      'step 2 prefill(A)',
      'step 3 handoff(A)',
      'step 4 decode(A)',
      'step 5 free(A)',
      'step 6 allocate(B)',
      'step 7 stub(B)',
      'step 8 handoff(B)',
      'step 9 decode(B)',
    ]);
  });

  it('prints a row of every page per state, marking what changed and the leaking cell', () => {
    const rows = lines.filter((l) => l.startsWith('  pages'));
    expect(rows).toEqual([
      '  pages  0 -/-   1 -/-   2 -/-',
      '  pages  0 A/-*  1 A/-*  2 -/-',
      '  pages  0 A/A*  1 A/A*  2 -/-',
      '  pages  0 A/A   1 A/A   2 -/-',
      '  pages  0 A/A   1 A/A   2 -/-',
      '  pages  0 -/A*  1 -/A*  2 -/-',
      '  pages  0 B/A*  1 B/A*  2 B/-*',
      '  pages  0 B/B*  1 B/A   2 B/-',
      '  pages  0 B/B   1 B/A   2 B/-',
      '  pages  0 B/B   1 B/A!  2 B/-',
    ]);
  });

  it('says only what changed at each step, in words', () => {
    const step = (k: number): string[] => {
      const start = lines.findIndex((l) => l.startsWith(`step ${k} `));
      const end = lines.indexOf('', start);
      return lines.slice(start, end);
    };
    expect(step(6)).toEqual([
      'step 6  allocate(B)  D gives B pages 0, 1, 2, which hold: A, A, none.',
      '  B      new → allocated, table [0 1 2]',
      '  pages  0 B/A*  1 B/A*  2 B/-*',
    ]);
    expect(step(7)[0]).toBe('step 7  stub(B)  P stubs B (3 pages is over the prefill limit of 2): it writes page 0 only, 1 of 3 pages, and reports success.');
    expect(step(8)[0]).toBe('step 8  handoff(B)  P reports Success for B (1 of 3 pages written); D commits it.');
    expect(step(9)).toEqual([
      'step 9  decode(B)  B reads pages 0, 1, 2, which hold: B, A, none.',
      '  B      handedOff → decoded, read A, B',
      '  pages  0 B/B   1 B/A!  2 B/-',
      "  ✗ Isolation: B read page 1, which holds A's data written at step 2.",
      "    page 1: step 1 allocate(A) gave it to A; step 2 prefill(A) wrote A's data into it; step 5 free(A) freed it, A's data left in it; step 6 allocate(B) gave it to B.",
    ]);
  });

  it('ends with the actions that replay it', () => {
    expect(lines.at(-1)).toBe('actions: allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) handoff(B) decode(B)');
  });

  it('has no ANSI codes without colour, and has them with colour', () => {
    expect(text).not.toMatch(ANSI);
    const coloured = formatTrace(m, trace, { color: true, violation: 'Isolation' });
    expect(coloured).toMatch(ANSI);
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(text);
    expect(coloured).toContain("\u001b[1;97;41m1 B/A!\u001b[0m");
  });

  it('without a violation, explains nothing and marks no cell', () => {
    const plain = formatTrace(m, trace, { color: false });
    expect(plain.split('\n')[0]).toBe('trace of 9 steps');
    expect(plain).not.toContain('✗');
    expect(plain).not.toContain('!');
  });
});

describe('formatTrace on other counterexamples', () => {
  it('names the late write of fault early-free', () => {
    const { m, trace } = earlyFree();
    const text = formatTrace(m, trace, { color: false, violation: 'Isolation' });
    expect(text).toContain("step 5  prefill(A)  P's late write of A's prompt lands in pages 0, 1 (data: A, A), held now by C, C.");
    expect(text).toContain("  ✗ Isolation: C read page 0, which holds A's data written at step 5.");
    expect(text).toContain("  ✗ Isolation: C read page 1, which holds A's data written at step 5.");
  });

  it('shows the prefix cache as a holder and names the poisoned page', () => {
    const { m, trace } = prefixPoison();
    const text = formatTrace(m, trace, { color: false, violation: 'Isolation' });
    expect(text).toContain('  pages  0 cache:sys/A!  1 C/C           2 -/-');
    expect(text).toContain("  ✗ Isolation: C read page 0, which holds A's data written at step 2.");
    expect(text).toContain('step 8 insert(B) put it in the sys prefix cache; step 10 allocate(C) shared it with C from the sys prefix cache.');
  });

  it('shows owner tags and the loud failure under owner-check', () => {
    const { m, trace } = ownerCheck();
    const text = formatTrace(m, trace, { color: false });
    expect(text).toContain('page cells: holder/data/tag');
    expect(text).toContain('step 9   decode(B)  owner check: page 1 has no tag, which B may not read: B fails loudly and reads nothing.');
    expect(text).toContain('step 15  decode(C)  owner check: page 0 is tagged B, which C may not read: C fails loudly and reads nothing.');
    expect(text).toContain('  pages  0 cache:sys/B/B   1 C/C/C           2 -/-/-');
  });
});

describe('shouldColor', () => {
  it('colours a terminal unless NO_COLOR is set and not empty', () => {
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({}, {})).toBe(false);
  });
});

describe('narration of one page', () => {
  it('speaks of a single page in the singular: its contents, it was held, which holds, 1 of 1 page', () => {
    const config = { pages: 2, prefillLimit: 2, requests: [{ name: 'A', length: 1 }, { name: 'B', length: 1 }], variant: 'buggy', faults: ['stale-free'] } as const;
    const { m, trace } = sample(config, 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) free(A)');
    expect(trace.steps.map((_, i) => narrate(m, trace, i + 1))).toEqual([
      'D gives A page 0, which holds: none.',
      "P writes A's prompt into page 0 (data: A).",
      'P reports Success for A (1 of 1 page written); D commits it.',
      'A reads page 0, which holds: A.',
      "D frees A's page 0; its contents stay (A).",
      'D gives B page 0, which holds: A.',
      "a stale second release frees A's old page 0 again; it was held by: B.",
    ]);
  });

  it('heads the trace with every field not at its default, a one-page request in the singular', () => {
    const { m, trace } = sample({ ...incidentConfig('buggy'), requests: [{ name: 'A', length: 1 }], allocator: 'lifo', decodeSteps: 2 }, 'allocate(A)');
    const lines = formatTrace(m, trace, { color: false }).split('\n');
    expect(lines[0]).toBe('trace of 1 step');
    expect(lines[1]).toBe('model: buggy, 3 pages, prefill limit 2, requests A (1 page); faults silent-stub; allocator lifo, decode steps 2');
  });
});
