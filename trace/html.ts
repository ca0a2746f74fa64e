/**
 * The trace as one self-contained HTML file: a timeline of steps, each with a strip of its
 * pages coloured by holder (top) and by data (bottom); the selected state's page grid, its
 * request table and what changed; the leaking read outlined in red, with the explanation.
 * Style, script and data are inline, so the file can be mailed, attached to an issue, or
 * opened offline, and it loads nothing from anywhere. This file is the page; the data it
 * embeds is `html-data.ts`'s.
 */
import type { Model, Trace } from '../spec/index.ts';
import { REPORT_CSS, REPORT_JS } from './html-assets.ts';
import { formatMermaid } from './mermaid.ts';
import { palette, reportData, scriptJson } from './html-data.ts';
import { tell } from './story.ts';

/** The first two lines of every report pagecheck writes; `writeTraceFiles` recognises its own files by them. */
export const HTML_SIGNATURE = '<!DOCTYPE html>\n<!-- pagecheck trace report';

/** Escapes text for HTML content and attribute values. */
function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The trace as a self-contained HTML report; with `violation`, its step and cells are highlighted and explained. */
export function formatHtml(m: Model, trace: Trace, violation?: string): string {
  const story = tell(m, trace, violation);
  const x = story.explanation;
  const colors = palette(m);
  const data = reportData(story, colors);
  const n = trace.steps.length;
  const steps = n === 1 ? '1 step' : `${n} steps`;
  const title = x === undefined ? `trace of ${steps}` : `${x.invariant} violated after ${steps}`;
  const legend = Object.entries(colors)
    .filter(([name]) => name !== '' && !name.startsWith('prefix:'))
    .map(([name, c]) => `<span><i style="background:${c}"></i>${esc(name)}</span>`)
    .join('');
  const actions = story.steps.flatMap((s) => (s.action === null ? [] : [s.action])).join(' ');
  return `${HTML_SIGNATURE}: ${esc(title)} -->
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pagecheck: ${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header>
<h1${x === undefined ? '' : ' class="bad"'}>${esc(title)}</h1>
<p class="model">${esc(story.model)}</p>
${x === undefined ? '' : x.headline.map((h) => `<p class="headline">${esc(h)}</p>`).join('\n')}
<p class="hint">Step with ← → (Home, End) or click a step. Each strip and cell: holder above, data below; the colour is the request's.</p>
<div class="legend"><span><i style="background:${colors['']}"></i>free / never written</span>${legend}</div>
</header>
<main>
<nav aria-label="steps"><ol id="timeline"></ol></nav>
<section aria-live="polite">
<h2 id="step-title"></h2>
<p id="narration"></p>
<div id="grid" class="grid"></div>
<ul id="changes" class="changes"></ul>
<table><thead><tr><th>request</th><th>phase</th><th>page table</th><th>has read</th></tr></thead><tbody id="requests"></tbody></table>
<div id="verdict" hidden></div>
<details><summary>Actions and replay</summary><pre>${esc(actions || '(none)')}</pre><p>Save the trace with <code>--itf FILE</code> and check it again with <code>pagecheck replay FILE</code>.</p></details>
<details><summary>Sequence diagram (Mermaid source)</summary><pre>${esc(formatMermaid(m, trace, violation))}</pre></details>
</section>
</main>
<script type="application/json" id="trace-data">${scriptJson(data)}</script>
<script>${REPORT_JS}</script>
</body>
</html>
`;
}
