import { describe, expect, it } from 'vitest';
import { formatHtml, HTML_SIGNATURE } from '../../trace/index.ts';
import { minimalLeak, ownerCheck } from './traces.ts';

describe('formatHtml', () => {
  const { m, trace } = minimalLeak();
  const html = formatHtml(m, trace, 'Isolation');

  it('is signed on its first two lines', () => {
    expect(html.startsWith(`${HTML_SIGNATURE}: Isolation violated after 9 steps -->\n<html lang="en">`)).toBe(true);
  });

  it('is self-contained: no external scripts, styles, images or links', () => {
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html.match(/<style\b/g)).toHaveLength(1);
  });

  it('embeds the trace as data: ten states, the violation at step 9 on page 1', () => {
    const block = /<script type="application\/json" id="trace-data">(.*?)<\/script>/s.exec(html)?.[1];
    const data = JSON.parse(block ?? 'null') as {
      violationStep: number;
      headline: string[];
      steps: Array<{ action: string | null; pages: Array<{ id: number; leak: boolean; holder: string | null; data: string | null }> }>;
    };
    expect(data.steps).toHaveLength(10);
    expect(data.steps.map((s) => s.action)).toEqual([
      null, 'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)',
    ]);
    expect(data.violationStep).toBe(9);
    expect(data.headline).toEqual(["B read page 1, which holds A's data written at step 2."]);
    const leaks = data.steps.flatMap((s, k) => s.pages.filter((p) => p.leak).map((p) => [k, p.id, p.holder, p.data]));
    expect(leaks).toEqual([[9, 1, 'B', 'A']]);
  });

  it('escapes what it prints and keeps the data block closed', () => {
    expect(html).toContain('<p class="headline">B read page 1, which holds A&#39;s data written at step 2.</p>');
    const block = /<script type="application\/json" id="trace-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    expect(block).not.toContain('<');
  });

  it('shows owner tags only under owner-check, and no verdict without a violation', () => {
    const oc = ownerCheck();
    const text = formatHtml(oc.m, oc.trace);
    expect(text).toContain('"tags":true');
    expect(text).toContain('"violationStep":null');
    expect(text).toContain('<h1>trace of 15 steps</h1>');
    expect(html).toContain('"tags":false');
  });
});
