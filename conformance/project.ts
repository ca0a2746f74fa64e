/**
 * A leak found in a log too large for the spec (16,384 pages, thousands of requests) told
 * as a spec trace all the same: the requests involved (the reader and the writers of what
 * it read) and a handful of their pages (the reader's first page, the pages that leaked,
 * and one page only the reader had) are renumbered into a model small enough for the spec;
 * their log lines, restricted to those pages, are validated again; and the spec itself
 * replays the result. The projection is used only when the spec confirms the same
 * violation on it, so what is printed is always a real trace of the spec; when it does
 * not (other requests' steps mattered), the log lines are the trace.
 */
import { Either } from 'effect';
import { isOverLongPrompt, limitInTokens } from '../spec/behaviour.ts';
import { decodeLine, type LogEvent } from './events.ts';
import type { SourceLine } from './lines.ts';
import { PageRuns } from './pages.ts';
import { specTrace } from './report.ts';
import { validate, type ValidationResult } from './validate.ts';

/** A projected violation: the small log's result, and how its pages and requests map to the real ones. */
export interface Projection {
  /** The validation of the projected log (a violation with a spec trace). */
  readonly result: ValidationResult;
  /** Real page ids, by projected id. */
  readonly pages: readonly number[];
  /** The requests kept. */
  readonly requests: readonly string[];
}

/** The first allocation's pages of each request in the story. */
function tables(events: ReadonlyArray<{ e: LogEvent }>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const { e } of events) {
    if (e.kind !== 'allocate' || out.has(e.id)) continue;
    const runs = PageRuns.from(e.pages);
    if (runs instanceof PageRuns) out.set(e.id, runs.toArray());
  }
  return out;
}

/** The violation projected onto a spec-sized model, or `undefined` when it cannot be, or the spec does not confirm it. */
export function projectViolation(r: ValidationResult): Projection | undefined {
  const model = r.model;
  if (r.verdict !== 'violation' || r.invariant !== 'Isolation' || r.victim === undefined || model === undefined) return undefined;
  const events = r.story.flatMap((line) => {
    const d = decodeLine(line.text);
    return Either.isRight(d) ? [{ line, e: d.right }] : [];
  });
  const table = tables(events);
  const victim = table.get(r.victim.id);
  const [first] = victim ?? [];
  if (victim === undefined || first === undefined) return undefined;
  // The writer of the first page that leaked; its pages that leaked, the reader's first, and one that only the reader had.
  const leaked = r.victim.pages.slice(0, 2);
  const writer = [...table.entries()].find(([id, t]) => id !== r.victim?.id && t.includes(leaked[0] ?? -1));
  if (writer === undefined) return undefined;
  const theirs = new Set(writer[1]);
  const only = victim.find((p) => p !== first && !theirs.has(p));
  const chosen = new Set([first, ...leaked.filter((p) => theirs.has(p)), ...(only === undefined ? [] : [only])]);
  const pages = [...chosen].sort((a, b) => a - b);
  const rank = new Map(pages.map((p, i) => [p, i]));
  const lengths = new Map([writer, [r.victim.id, victim] as const].map(([id, t]) => [id, t.filter((p) => chosen.has(p)).length]));
  // Whether each request was too long for P in the log: its tokens (its pages times the page size, as the validator counts them) by the log's rule.
  const size = model.pageSize ?? 1;
  const overInLog = new Map<string, boolean>();
  for (const { e } of events) if (e.kind === 'arrive') overInLog.set(e.id, isOverLongPrompt(e.tokens ?? (e.length ?? 0) * size, limitInTokens(model.prefillLimit, size), model.lengthRule));
  // Each request must stay on its side of P's limit.
  let under = 0;
  let over = Number.POSITIVE_INFINITY;
  for (const [id, n] of lengths) {
    if (n === 0) continue;
    if (overInLog.get(id) === true) over = Math.min(over, n);
    else under = Math.max(under, n);
  }
  if (under >= over) return undefined;
  const kept = (id: string): boolean => (lengths.get(id) ?? 0) > 0;
  const config = { kind: 'config', pages: pages.length, prefillLimit: under, variant: model.variant, faults: model.faults, allocator: 'any' };
  const lines: SourceLine[] = [{ file: r.at?.file ?? '', line: 0, text: JSON.stringify(config) }];
  for (const { line, e } of events) {
    if (e.kind === 'config' || e.kind === 'hostEvict' || !kept(e.id)) continue;
    const out: Record<string, unknown> = { ...e };
    delete out['pages'];
    if (e.kind === 'arrive') {
      delete out['tokens'];
      out['length'] = lengths.get(e.id);
    }
    if ('pages' in e && e.pages !== undefined) {
      const runs = PageRuns.from(e.pages);
      const mapped = runs instanceof PageRuns ? runs.toArray().flatMap((p) => (rank.has(p) ? [rank.get(p) ?? 0] : [])) : [];
      if (mapped.length > 0) out['pages'] = mapped;
    }
    lines.push({ file: line.file, line: line.line, text: JSON.stringify(out) });
  }
  const result = validate({ files: [], lines, overrides: {}, window: 16 });
  if (result.verdict !== 'violation' || result.invariant !== r.invariant || specTrace(result) === undefined) return undefined;
  return { result, pages, requests: [...lengths.keys()].filter(kept) };
}
