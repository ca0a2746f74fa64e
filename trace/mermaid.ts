/**
 * The trace as a Mermaid sequence diagram, with lanes for the client, prefill (P), decode
 * (D) and D's page pool: each action becomes the messages the real stack would exchange,
 * and the step that breaks an invariant is boxed in red with the explanation beside it.
 */
import type { Model, Trace } from '../spec/index.ts';
import { describeModel } from './story.ts';
import { explain } from './explain.ts';
import { wordStep } from './wording.ts';

/** The first line of every diagram pagecheck writes; `writeTraceFiles` recognises its own files by it. */
export const MERMAID_SIGNATURE = '%% pagecheck trace';

/** Mermaid's message text ends at `;`, `#` and newlines: keep them out. */
function text(s: string): string {
  return s.replace(/;/g, ',').replace(/[#\n\r]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The messages of step `k`, without the red box (their wording is `wording.ts`'s, which the text printer shares). */
function messages(m: Model, trace: Trace, k: number): string[] {
  return (wordStep(m, trace, k)?.messages ?? []).map(text);
}

/** The trace as a Mermaid sequence diagram; with `violation`, its step is boxed and explained. */
export function formatMermaid(m: Model, trace: Trace, violation?: string): string {
  const x = violation === undefined ? undefined : explain(m, trace, violation);
  const lines = [
    `${MERMAID_SIGNATURE}: ${text(x === undefined ? 'no violation' : `${x.invariant} violated, ${x.headline.join(' ')}`)}`,
    'sequenceDiagram',
    '  participant C as Client',
    '  participant P as Prefill (P)',
    '  participant D as Decode (D)',
    "  participant Pool as Pool (D's KV pages)",
    `  Note over C,Pool: ${text(describeModel(m))}`,
  ];
  for (let k = 1; k <= trace.steps.length; k++) {
    const body = messages(m, trace, k);
    if (x !== undefined && k === x.step) {
      lines.push('  rect rgb(255, 205, 205)');
      for (const line of body) lines.push(`    ${line}`);
      for (const h of x.headline) lines.push(`    Note over C,Pool: ${text(`${x.invariant} violated: ${h}`)}`);
      lines.push('  end');
    } else {
      for (const line of body) lines.push(`  ${line}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** {@link formatMermaid} under the name the documentation generator uses. */
export const toMermaid = formatMermaid;
