import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatMermaid, writeTraceFiles } from '../../trace/index.ts';
import { hasChromium, parseMermaid, withChromium } from '../support/browser.ts';
import { minimalLeak, ownerCheck, prefixPoison } from './traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Skipped only where Debian's chromium is not installed; CI installs it, so there it runs.
describe.skipIf(!hasChromium)('the HTML report and the Mermaid diagram in a real browser', () => {
  const { m, trace } = minimalLeak();
  const html = join(dir, 'leak.html');
  const mermaid = join(dir, 'leak.mmd');
  writeTraceFiles(m, trace, 'Isolation', { html, mermaid });

  it('steps with the keyboard and the mouse, highlights the leaking read, and loads nothing', async () => {
    const shot = join(dir, 'leak.png');
    const seen = await withChromium(async (context) => {
      const requests: string[] = [];
      const errors: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:')) return route.continue();
        requests.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(html).href);
      const title = () => page.locator('#step-title').textContent();
      const start = await title();
      for (let k = 0; k < 9; k++) await page.keyboard.press('ArrowRight');
      const end = await title();
      const leaks = await page.locator('#grid .page.leak').evaluateAll((cells) => cells.map((c) => (c as HTMLElement).dataset['page']));
      const leakText = await page.locator('#grid .page.leak').innerText();
      const verdict = await page.locator('#verdict').innerText();
      const current = await page.locator('.step[aria-current="step"]').getAttribute('data-step');
      await page.screenshot({ path: shot, fullPage: true });
      await page.keyboard.press('ArrowRight');
      const past = await title();
      await page.keyboard.press('Home');
      const home = await title();
      await page.keyboard.press('End');
      const last = await title();
      await page.keyboard.press('ArrowLeft');
      const back = [await title(), await page.locator('#grid .page.leak').count(), await page.locator('#verdict').isVisible()];
      await page.locator('.step[data-step="6"]').click();
      const clicked = await title();
      const holders = await page.locator('#grid .page').evaluateAll((cells) => cells.map((c) => c.querySelectorAll('.row b')[0]?.textContent));
      const datas = await page.locator('#grid .page').evaluateAll((cells) => cells.map((c) => c.querySelectorAll('.row b')[1]?.textContent));
      return { requests, errors, start, end, leaks, leakText, verdict, current, past, home, last, back, clicked, holders, datas };
    });
    expect(seen.requests).toEqual([]);
    expect(seen.errors).toEqual([]);
    // The report opens at the violating state (issue 28), not at state 0; Home goes to state 0.
    expect(seen.start).toBe('step 9: decode(B)');
    expect(seen.end).toBe('step 9: decode(B)');
    expect(seen.current).toBe('9');
    expect(seen.leaks).toEqual(['1']);
    expect(seen.leakText.replace(/\s+/g, ' ').trim()).toBe('page 1 violation holder B data A');
    expect(seen.verdict).toContain("Isolation: B read page 1, which holds A's data written at step 2.");
    expect(seen.past).toBe('step 9: decode(B)');
    expect(seen.home).toBe('state 0 (initial)');
    expect(seen.last).toBe('step 9: decode(B)');
    expect(seen.back).toEqual(['step 8: handoff(B)', 0, false]);
    expect(seen.clicked).toBe('step 6: allocate(B)');
    expect(seen.holders).toEqual(['B', 'B', 'B']);
    expect(seen.datas).toEqual(['A', 'A', '—']);
    const png = readFileSync(shot);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  });

  it('writes Mermaid diagrams that mermaid parses, and mermaid does reject a broken one', async () => {
    const oc = ownerCheck();
    const pp = prefixPoison();
    const results = await parseMermaid([
      readFileSync(mermaid, 'utf8'),
      formatMermaid(oc.m, oc.trace),
      formatMermaid(pp.m, pp.trace, 'Isolation'),
      'sequenceDiagram\n  C->>D: broken; D->>\n',
    ]);
    expect(results.slice(0, 3)).toEqual([null, null, null]);
    expect(results[3]).toMatch(/Parse error/);
  });
});
