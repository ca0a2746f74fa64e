/**
 * A real browser for tests: Debian's chromium driven by playwright-core, headless, with a
 * fresh profile and no background traffic, so that a test loads only what it is given.
 * Shared by the trace report test and the documentation test.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian installs chromium; CI installs it when it is missing. */
export const CHROMIUM = '/usr/lib/chromium/chromium';

/** Whether chromium is installed: browser tests skip cleanly without it, and only then. */
export const hasChromium = existsSync(CHROMIUM);

/** The mermaid browser bundle of the pinned `mermaid` package. */
export const MERMAID_BUNDLE = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Runs `fn` with a fresh chromium profile in a temporary directory, closed and removed afterwards. */
export async function withChromium<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const profile = mkdtempSync(join(tmpdir(), 'pagecheck-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Parses each Mermaid source with the real mermaid bundle: `null` when it parses, else the error message. */
export async function parseMermaid(sources: readonly string[]): Promise<Array<string | null>> {
  return withChromium(async (context) => {
    const page = await context.newPage();
    await page.setContent('<!DOCTYPE html><html><body></body></html>');
    await page.addScriptTag({ path: MERMAID_BUNDLE });
    return page.evaluate(async (texts: readonly string[]) => {
      const mermaid = (globalThis as unknown as { mermaid: { parse: (t: string) => Promise<unknown> } }).mermaid;
      const out: Array<string | null> = [];
      for (const t of texts) {
        try {
          await mermaid.parse(t);
          out.push(null);
        } catch (e) {
          out.push(e instanceof Error ? e.message : String(e));
        }
      }
      return out;
    }, sources);
  });
}
