/**
 * What the HTML report (`html.ts`) embeds as JSON for its script to draw: the story's
 * steps, the explanation and one colour per holder. The page around it is `html.ts`'s.
 */
import type { Model } from '../spec/index.ts';
import { pageIds } from './long-lists.ts';
import type { Story } from './story.ts';

/** One colour per request (and per prefix, shared by its cache entry and its data), in the configuration's order. */
export function palette(m: Model): Record<string, string> {
  const colors: Record<string, string> = { '': '#eef0f3' };
  m.config.requests.forEach((q, i) => {
    colors[q.name] = `hsl(${(205 + i * 137.5) % 360} 70% 80%)`;
  });
  m.groupNames.forEach((g, i) => {
    const c = `hsl(${(280 + i * 47) % 360} 45% 72%)`;
    colors[`cache:${g}`] = c;
    colors[`prefix:${g}`] = c;
  });
  return colors;
}

/** The data the report's script reads: `story`'s steps and explanation, with `colors` ({@link palette}). */
export function reportData(story: Story, colors: Record<string, string>): unknown {
  const x = story.explanation;
  return {
    tags: story.tags,
    invariant: x?.invariant ?? null,
    headline: x?.headline ?? [],
    details: x?.details ?? [],
    violationStep: x?.step ?? null,
    colors,
    steps: story.steps.map((s) => ({
      index: s.index,
      action: s.action,
      narration: s.narration,
      changes: s.changes.map((c) => `${c.name}: ${c.change}`),
      pages: s.pages,
      // The page table as text, a long one in runs (`long-lists.ts`), as the text printer writes it.
      requests: s.requests.map((q) => ({ name: q.name, phase: q.phase, table: pageIds(q.table, ' '), read: q.read })),
    })),
  };
}

/** JSON that is safe inside a `<script>` element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
