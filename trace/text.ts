/**
 * The counterexample as text, the default output of `check`: state 0..n with the action
 * between, what each action did, only what changed, a row with every page per state, and
 * at the end what went wrong in words. ANSI colour only when the caller asks for it; the
 * markers (`*` changed, `!` the violation) carry the same meaning without colour.
 */
import { freeList, releaseList, type Model, type State, type Trace } from '../spec/index.ts';
import { tell, type PageCell, type Story } from './story.ts';
import { isLong, runsIfLong, span } from './long-lists.ts';

/** How to print a trace. */
export interface TraceFormat {
  /** ANSI colour: the caller decides, usually with {@link shouldColor}. */
  readonly color: boolean;
  /** The invariant the trace violates, if any. */
  readonly violation?: string | undefined;
}

/** Whether to colour output for `stream`: a terminal, and `NO_COLOR` unset or empty (no-color.org). */
export function shouldColor(stream: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const noColor = env['NO_COLOR'];
  return stream.isTTY === true && (noColor === undefined || noColor === '');
}

/** ANSI styles, or none. */
interface Paint {
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly changed: (s: string) => string;
  readonly leak: (s: string) => string;
  readonly bad: (s: string) => string;
}

const sgr = (open: string) => (s: string) => `\u001b[${open}m${s}\u001b[0m`;
const plain = (s: string): string => s;
const COLOR: Paint = { bold: sgr('1'), dim: sgr('2'), changed: sgr('1;33'), leak: sgr('1;97;41'), bad: sgr('1;31') };
const NONE: Paint = { bold: plain, dim: plain, changed: plain, leak: plain, bad: plain };

/** A page cell's words: `holder/data`, with `/tag` when tags matter and `/draft` with a draft model's KV; `-` for nobody. */
export function cellText(cell: PageCell, tags: boolean): string {
  const parts = [cell.holder, cell.data, ...(tags ? [cell.tag] : []), ...(cell.draft === undefined ? [] : [cell.draft])];
  return parts.map((x) => x ?? '-').join('/');
}


/** The row of every page at one state (only the changed ones, in a large pool), aligned across the whole trace. */
function pageRow(story: Story, cells: readonly PageCell[], width: number, paint: Paint): string {
  // A pool of more pages than a long list (`long-lists.ts`) prints, at each state, only the pages that changed or that the violation points at.
  const compact = isLong(cells.length);
  const shown = compact ? cells.filter((c) => c.changed || c.leak) : cells;
  if (compact && shown.length === 0) return `  ${paint.dim('pages')}  ${paint.dim('(no page changed)')}`;
  const mark = (c: PageCell): string => (c.leak ? '!' : c.changed ? '*' : ' ');
  // A long row gives each run of consecutive pages with the same cell once: `0–179 G/-*`.
  const runs = runsIfLong(
    shown.map((c) => c.id),
    (_, i) => `${cellText(shown[i]!, story.tags)}${mark(shown[i]!)}`,
  );
  const body = runs.map((run) => {
    const c = shown[run.start]!;
    const id = span(run);
    const text = `${id} ${cellText(c, story.tags)}${mark(c)}`.padEnd(width + id.length + 2);
    return c.leak ? paint.leak(text.trimEnd()) + text.slice(text.trimEnd().length) : c.changed ? paint.changed(text) : text;
  });
  return `  ${paint.dim(compact ? 'changed' : 'pages')}  ${body.join('  ').trimEnd()}`;
}

/** Where the free list is stored (every order but `sorted` and `any` without double-free), its order: `[3 4] release [1 2]`. */
function freeListRow(m: Model, s: State | undefined): string | undefined {
  if (s === undefined || (m.freeAt < 0 && m.listAt < 0)) return undefined;
  const release = m.releaseAt >= 0 ? `  release [${releaseList(m, s).join(' ')}]` : '';
  return `[${freeList(m, s).join(' ')}]${release}`;
}

/** The trace as text, state 0..n; the last step explains the violation in words. */
export function formatTrace(m: Model, trace: Trace, format: TraceFormat): string {
  const paint = format.color ? COLOR : NONE;
  const story = tell(m, trace, format.violation);
  const width = Math.max(...story.steps.flatMap((s) => s.pages.map((c) => cellText(c, story.tags).length)));
  const names = Math.max(5, ...m.config.requests.map((q) => q.name.length));
  const x = story.explanation;
  const lines: string[] = [];
  const n = trace.steps.length;
  const digits = String(n).length;
  if (x !== undefined) lines.push(paint.bad(`${x.invariant} violated after ${n} ${n === 1 ? 'step' : 'steps'}: ${x.headline.join(' ')}`));
  else lines.push(paint.bold(`trace of ${n} ${n === 1 ? 'step' : 'steps'}`));
  lines.push(`model: ${story.model}`);
  const legend = `${story.tags ? 'holder/data/tag' : 'holder/data'}${story.steps[0]?.pages[0]?.draft === undefined ? '' : '/draft'}`;
  lines.push(paint.dim(`page cells: ${legend}, "-" = free or never written; * = changed at this step${x === undefined ? '' : ', ! = the violation'}`));
  for (const [k, s] of story.steps.entries()) {
    lines.push('');
    if (s.action === null) lines.push(`${paint.bold(`state ${'0'.padEnd(digits)}`)}  ${s.narration}`);
    else lines.push(`${paint.bold(`step ${String(s.index).padEnd(digits)}`)}  ${paint.bold(s.action)}  ${s.narration}`);
    for (const c of s.changes) lines.push(`  ${c.name.padEnd(names)}  ${c.change}`);
    lines.push(pageRow(story, s.pages, width, paint));
    const free = freeListRow(m, k === 0 ? trace.initial : trace.steps[k - 1]?.state);
    if (free !== undefined) lines.push(`  ${paint.dim('free')}   ${free}`);
    if (x !== undefined && s.index === x.step) {
      for (const h of x.headline) lines.push(paint.bad(`  ✗ ${x.invariant}: ${h}`));
      for (const d of x.details) lines.push(`    ${d}`);
    }
  }
  lines.push('');
  const actions = story.steps.flatMap((s) => (s.action === null ? [] : [s.action]));
  lines.push(paint.dim(`actions: ${actions.length === 0 ? '(none)' : actions.join(' ')}`));
  return lines.join('\n');
}
