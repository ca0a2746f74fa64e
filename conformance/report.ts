/**
 * A validation's outcome for people and for tools: the verdict, the line, what went wrong
 * and why; for a log small enough for the spec, the trace rebuilt by the spec itself and
 * printed by the same printers as `check`; at any scale, the log lines of the requests
 * involved, in log order.
 */
import { Either } from 'effect';
import { compile, decodeConfig, lastState, propertyNamed, run, type Model, type Trace } from '../spec/index.ts';
import type { ValidationResult } from './validate.ts';

/** The spec's own trace of a small log: `undefined` when the log does not fit the spec, or the spec does not confirm the verdict. */
export function specTrace(r: ValidationResult): { m: Model; trace: Trace } | undefined {
  const model = r.model;
  if (r.spec === undefined || model === undefined || r.spec.requests.length === 0) return undefined;
  // The log's ids name the spec's requests when they are all names the spec accepts; else A, B, ...
  const ids = r.spec.requests.map((q) => q.id);
  const named = ids.every((id) => /^[A-Za-z][A-Za-z0-9_]{0,15}$/.test(id)) && new Set(ids).size === ids.length;
  const requests = r.spec.requests.map((q) => ({ length: q.length, ...(q.prefix === undefined ? {} : { prefix: q.prefix }), ...(named ? { name: q.id } : {}) }));
  const decoded = decodeConfig({ pages: model.pages, prefillLimit: model.prefillLimit, requests, variant: model.variant, faults: model.faults, ...(model.eviction ? { eviction: true } : {}), ...(model.radix === true ? { radix: true } : {}), ...(model.stateSlots === true ? { stateSlots: true } : {}), ...(model.sourcePages === true ? { sourcePages: true } : {}), ...(model.loadback === true ? { loadback: true } : {}), ...(model.draft === true ? { draft: true } : {}), ...(model.prefixPages === undefined ? {} : { prefixPages: { ...model.prefixPages } }) });
  if (Either.isLeft(decoded)) return undefined;
  const m = compile(decoded.right);
  const built = run(m, r.spec.actions);
  if (!('trace' in built)) return undefined;
  if (r.invariant !== undefined && propertyNamed(r.invariant)?.holds(m, lastState(built.trace)) !== false) return undefined;
  return { m, trace: built.trace };
}

/** `file:line`. */
const where = (r: ValidationResult): string => (r.at === undefined ? '' : `${r.at.file}:${r.at.line}`);

/** The model in one line. */
export function describeLogModel(r: ValidationResult): string {
  const m = r.model;
  if (m === undefined) return 'no events';
  const limit = m.prefillTokens === undefined ? `${m.prefillLimit} pages` : `${m.prefillTokens.toLocaleString('en-US')} tokens`;
  return `${m.variant}, ${m.pages.toLocaleString('en-US')} pages${m.pageSize === undefined ? '' : ` of ${m.pageSize} tokens`}, prefill limit ${limit}, faults ${m.faults.length === 0 ? 'none' : m.faults.join(',')}, allocator ${m.allocator}${m.radix === true ? ', radix tree' : ''}${m.loadback === true ? ', host-cache load back' : ''}${m.draft === true ? ', draft KV' : ''}`;
}

/** The outcome as text; `trace` is the spec's printed trace, when there is one. */
export function formatResult(r: ValidationResult, files: readonly string[], trace: string | undefined): string {
  const n = (k: number, word: string): string => `${k.toLocaleString('en-US')} ${word}${k === 1 ? '' : 's'}`;
  const lines = [`pagecheck validate-log: ${n(r.events, 'event')}, ${n(r.requests, 'request')}, from ${files.join(', ')}`, `model: ${describeLogModel(r)}`];
  switch (r.verdict) {
    case 'conforms':
      lines.push(`conforms: the spec can produce the whole log and no invariant breaks (at most ${r.peakStates} possible state${r.peakStates === 1 ? '' : 's'} at once)`);
      if ((r.unfinished?.length ?? 0) > 0) lines.push(unfinishedLine(r.unfinished ?? []));
      for (const c of r.caveats ?? []) lines.push(`  read with a caveat: ${c}`);
      break;
    case 'violation':
      lines.push(`violation of ${r.invariant ?? '?'} at ${where(r)}: the spec can produce the log up to this event, and after it ${r.invariant ?? '?'} breaks`);
      lines.push(`  the event: ${r.at?.text ?? ''}`);
      for (const h of r.headline) lines.push(`  ✗ ${r.invariant ?? ''}: ${h}`);
      break;
    case 'deviation':
      lines.push(`deviation at ${where(r)}: the spec cannot produce this event`);
      lines.push(`  the system did: ${r.at?.text ?? ''}`);
      for (const h of r.headline) lines.push(`  ${h}`);
      for (const x of r.refusals.slice(0, 8)) lines.push(`  possible state ${x.state} refuses it: ${x.why}`);
      if (r.refusals.length > 8) lines.push(`  ... and ${r.refusals.length - 8} more states`);
      break;
    case 'incomplete':
      lines.push(`incomplete at ${where(r)}: ${r.headline.join(' ')}`);
      break;
  }
  if (trace !== undefined) lines.push('', trace);
  else if (r.story.length > 0) {
    lines.push('', `the log of the requests involved, up to ${where(r)}:`);
    for (const s of r.story.slice(-40)) lines.push(`  ${`${s.file}:${s.line}`.padEnd(24)} ${s.text.length > 160 ? `${s.text.slice(0, 157)}...` : s.text}`);
  }
  return lines.join('\n');
}

/** The requests a conforming log leaves in flight: a log cut off mid-request, or a server stopped with work in hand, whose next steps were never checked. */
function unfinishedLine(unfinished: NonNullable<ValidationResult['unfinished']>): string {
  const shown = unfinished.slice(0, 8).map((q) => `${q.id} (${q.phase})`);
  const more = unfinished.length > 8 ? `, ... ${unfinished.length - 8} more` : '';
  const n = unfinished.length;
  return `  but the log ends with ${n} request${n === 1 ? '' : 's'} in flight: ${shown.join(', ')}${more}; a log cut off mid-request, or a server stopped with work in hand: what ${n === 1 ? 'it' : 'they'} did next was not checked`;
}

/** The outcome as the object `--json` prints. */
export function resultJson(r: ValidationResult, files: readonly string[]): unknown {
  return {
    verdict: r.verdict,
    files,
    events: r.events,
    requests: r.requests,
    peakStates: r.peakStates,
    model: r.model ?? null,
    file: r.at?.file ?? null,
    line: r.at?.line ?? null,
    event: r.at?.text ?? null,
    invariant: r.invariant ?? null,
    headline: r.headline,
    refusals: r.refusals,
    story: r.story.map((s) => ({ file: s.file, line: s.line, event: s.text })),
    unfinished: r.unfinished ?? [],
    caveats: r.caveats ?? [],
  };
}
