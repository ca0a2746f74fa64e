import { describe, expect, it } from 'vitest';
import { configFrom } from '../../spec/index.ts';
import { formatMermaid } from '../../trace/mermaid.ts';
import { narrate } from '../../trace/narrate.ts';
import { runLabels } from '../spec/helpers.ts';

/** The shortest leak of owner-check under early-free and torn-write (10 actions). */
const TORN = ['allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'landData(A)', 'landTag(B)', 'handoff(B)', 'decode(B)'];
const torn = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] });

describe('traces show torn parts and decode steps', () => {
  it('narrates a posted write and each part landing, by page and holder', () => {
    const { m, trace } = runLabels(torn, TORN);
    expect(narrate(m, trace, 2)).toBe("P posts its write of A's prompt into page 0; its content and tag parts land one at a time.");
    expect(narrate(m, trace, 7)).toBe("the content part of A's write lands in page 0, held by B; the page now holds A's data, with no tag.");
    expect(narrate(m, trace, 8)).toBe("the owner tag part of B's write lands in page 0, held by B; the page now holds A's data, tagged B.");
  });

  it('draws the parts as messages into the pool', () => {
    const { m, trace } = runLabels(torn, TORN);
    const diagram = formatMermaid(m, trace, 'Isolation');
    expect(diagram).toContain("P->>Pool: 7. landData(A): the content part of A's write lands in page 0, held by B");
    expect(diagram).toContain("P->>Pool: 2. prefill(A): post the write of A's prompt into page 0, parts land later");
  });

  it('numbers decode steps and names the token write', () => {
    const config = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2 }], variant: 'owner-check', decodeSteps: 2 });
    const { m, trace } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'decode(A)']);
    expect(narrate(m, trace, 4)).toBe("A reads pages 0, 1 (step 1 of 2), which hold: A, A.");
    expect(narrate(m, trace, 5)).toBe("A reads pages 0, 1 (step 2 of 2), which hold: A, A; then it writes its new token into page 1.");
  });

  it('says when a revoked writer\'s late write lands nowhere (hardened)', () => {
    const config = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'hardened', faults: ['early-free', 'torn-write'] });
    const { m, trace } = runLabels(config, ['allocate(A)', 'timeout(A)', 'prefill(A)']);
    expect(narrate(m, trace, 3)).toBe("P's late write for A arrives, but D revoked P's access when it timed A out: it lands nowhere.");
  });
});
