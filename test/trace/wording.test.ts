/**
 * trace/wording.ts holds each action kind's wording once, in both forms: the sentence of
 * the text and HTML printers and the messages of the Mermaid printer. These tests pin that
 * every kind has one, and the three places where the diagram used to tell another story
 * than the sentence: a refusal under the `ge` rule or with token slots, a decode failed by
 * `tag-counts-tokens`, and a prefix of several pages.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_KINDS, type Config } from '../../spec/index.ts';
import { formatMermaid } from '../../trace/index.ts';
import { narrate } from '../../trace/narrate.ts';
import { WORDING, wordStep } from '../../trace/wording.ts';
import { minimalLeak, sample, type Sample } from './traces.ts';

/** The diagram's lines of step `k` (the messages that start with `k.`, and those after them up to the next step's). */
const diagram = (s: Sample): string[] => formatMermaid(s.m, s.trace).trimEnd().split('\n').slice(7).map((l) => l.trim());

describe('the wording of every action kind', () => {
  it('has an entry for each kind, and no other', () => {
    expect(Object.keys(WORDING).sort()).toEqual([...ACTION_KINDS].sort());
  });

  it('is what the text printer narrates and the diagram draws', () => {
    const s = minimalLeak();
    expect(wordStep(s.m, s.trace, 0)).toBeUndefined();
    for (let k = 1; k <= s.trace.steps.length; k++) expect(narrate(s.m, s.trace, k)).toBe(wordStep(s.m, s.trace, k)?.sentence);
    expect(diagram(s)).toEqual(s.trace.steps.flatMap((_, i) => wordStep(s.m, s.trace, i + 1)?.messages ?? []));
  });
});

describe('the diagram tells what the sentence tells', () => {
  it('a refusal under rule ge says "at least" in both', () => {
    const config: Config = { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }], variant: 'length-fix', faults: [], lengthRule: 'ge' };
    const s = sample(config, 'allocate(A) stub(A)');
    expect(narrate(s.m, s.trace, 2)).toBe('P refuses A: 2 pages is at least the prefill limit of 2; nothing is written, and D is told.');
    expect(diagram(s)).toContain('P->>D: 2. stub(A): refuse A, 2 pages is at least the limit 2');
  });

  it('a refusal with token slots counts tokens in both', () => {
    const config: Config = { pages: 3, prefillLimit: 3, pageSize: 2, requests: [{ name: 'A', length: 4 }], variant: 'length-fix', faults: [] };
    const s = sample(config, 'allocate(A) stub(A)');
    expect(narrate(s.m, s.trace, 2)).toBe('P refuses A: 4 tokens is over the prefill limit of 3; nothing is written, and D is told.');
    expect(diagram(s)).toContain('P->>D: 2. stub(A): refuse A, 4 tokens is over the limit 3');
  });

  it('a decode that tag-counts-tokens fails names the short page in both', () => {
    const config: Config = { pages: 3, prefillLimit: 3, pageSize: 2, requests: [{ name: 'A', length: 4 }], variant: 'hardened', faults: ['auto-truncate'] };
    const s = sample(config, 'allocate(A) prefill(A) handoff(A) decode(A)');
    expect(narrate(s.m, s.trace, 4)).toBe('owner check: page 1 is tagged A, counting 1 written slots where A reads 2, which A may not read: A fails loudly and reads nothing.');
    expect(diagram(s)).toContain('Note over D,Pool: owner check: page 1 is tagged A, counting 1 written slots where A reads 2, A fails loudly');
  });

  it('a prefix of two pages is named whole when it is shared and when it is cached', () => {
    const config: Config = {
      pages: 5,
      prefillLimit: 3,
      requests: [
        { name: 'A', length: 3, prefix: 'sys' },
        { name: 'B', length: 3, prefix: 'sys' },
      ],
      prefixPages: { sys: 2 },
      variant: 'buggy',
      faults: [],
    };
    const s = sample(config, 'allocate(A) prefill(A) handoff(A) decode(A) insert(A) allocate(B)');
    expect(narrate(s.m, s.trace, 5)).toMatch(/^D puts A's pages 0, 1 into the sys prefix cache; /);
    expect(diagram(s)).toContain('D->>Pool: 5. insert(A): pages 0,1 into the sys prefix cache');
    expect(narrate(s.m, s.trace, 6)).toMatch(/^D gives B pages 0, 1, 3 \(page 0 shared from .*, page 1 shared from .*\), /);
    expect(diagram(s)).toContain('D->>Pool: take pages 0,1,3 (pages 0,1 from the prefix cache)');
  });
});
