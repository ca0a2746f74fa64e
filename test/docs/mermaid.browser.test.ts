/**
 * The document's diagrams render: every ```mermaid block of the committed docs/SPEC.md is
 * parsed by the real mermaid bundle in chromium. Skipped only when chromium is missing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SPEC_DOCUMENT } from '../../docs/generate/index.ts';
import { hasChromium, parseMermaid } from '../support/browser.ts';

/** The body of every ```mermaid fence, in order. */
function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

describe.skipIf(!hasChromium)('the Mermaid blocks of docs/SPEC.md', () => {
  it('finds the lifecycle diagram and the leak sequence diagram, and each parses', async () => {
    const blocks = mermaidBlocks(readFileSync(join(REPO_ROOT, SPEC_DOCUMENT), 'utf8'));
    expect(blocks.map((b) => /^(stateDiagram-v2|sequenceDiagram)$/m.exec(b)?.[1])).toEqual(['stateDiagram-v2', 'sequenceDiagram']);
    const errors = await parseMermaid([...blocks, 'stateDiagram-v2\n    a --> : broken']);
    // The last source is broken on purpose: it shows that the parser does reject, so the nulls above mean something.
    expect(errors.at(-1)).not.toBeNull();
    expect(errors.slice(0, -1)).toEqual(blocks.map(() => null));
  });
});
