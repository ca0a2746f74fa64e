import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { formatMermaid, MERMAID_SIGNATURE } from '../../trace/index.ts';
import { minimalLeak, ownerCheck, staleFree } from './traces.ts';

describe('formatMermaid', () => {
  const { m, trace } = minimalLeak();
  const lines = formatMermaid(m, trace, 'Isolation').trimEnd().split('\n');

  it('is a sequence diagram with the four lanes, signed on its first line', () => {
    expect(lines[0]).toBe(`${MERMAID_SIGNATURE}: Isolation violated, B read page 1, which holds A's data written at step 2.`);
    expect(lines.slice(1, 7)).toEqual([
      'sequenceDiagram',
      '  participant C as Client',
      '  participant P as Prefill (P)',
      '  participant D as Decode (D)',
      "  participant Pool as Pool (D's KV pages)",
      '  Note over C,Pool: buggy, 3 pages, prefill limit 2, requests A (2 pages), B (3 pages), faults silent-stub',
    ]);
  });

  it('tells the reuse, the stub and the leaking read as messages', () => {
    expect(lines).toContain('  D->>Pool: take pages 0,1,2');
    expect(lines).toContain('  Pool-->>D: pages 0,1,2 hold: A, A, none');
    expect(lines).toContain('  P->>Pool: 7. stub(B): write page 0 only (1 of 3 pages), then report success');
    expect(lines).toContain('  P->>D: 8. handoff(B): Success (1 of 3 pages written)');
  });

  it('boxes the violating step in red with the explanation, and ends there', () => {
    expect(lines.slice(-7)).toEqual([
      '  Note over D: commits B',
      '  rect rgb(255, 205, 205)',
      '    D->>Pool: 9. decode(B): read pages 0,1,2',
      '    Pool-->>D: pages 0,1,2: B, A, none',
      '    D-->>C: answer for B, from the data of A, B',
      "    Note over C,Pool: Isolation violated: B read page 1, which holds A's data written at step 2.",
      '  end',
    ]);
  });

  it('keeps characters that end a Mermaid statement out of the text', () => {
    for (const line of lines.slice(1)) expect(line).not.toMatch(/[;#]/);
  });

  it('shows a loud failure and a stale release without a red box when nothing is violated', () => {
    const oc = ownerCheck();
    const text = formatMermaid(oc.m, oc.trace);
    expect(text).toContain('  Note over D,Pool: owner check: page 0 is tagged B, C fails loudly\n');
    expect(text).not.toContain('rect');
    const sf = staleFree();
    expect(formatMermaid(sf.m, sf.trace, 'ExclusiveHold')).toContain('    D->>Pool: 7. free(A): return pages 0,1 again (a stale release), held by C, C\n');
  });
});

describe('formatMermaid counts pages in words', () => {
  it('a one-page request is "1 page", in the request and in the handoff', () => {
    const m = compile(configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] }));
    const leak = check(checkedModel(m)).violations[0];
    const lines = leak === undefined ? [] : formatMermaid(m, leak.trace, 'Isolation').split('\n');
    expect(lines).toContain('  C->>D: 1. allocate(A): request A, 1 page');
    expect(lines).toContain('  P->>D: 9. handoff(B): Success (1 of 1 page written)');
  });
});
