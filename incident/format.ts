/**
 * The replay's report as people read it: the deployment, the totals, a table by prompt
 * length, the boundary, the throughput and a one-line verdict naming the invariant.
 */
import type { IncidentReport, LengthOutcome } from './report.ts';
import type { Workload } from './workload.ts';

const fmt = (x: number): string => x.toLocaleString('en-US');

/** A share of the traffic, as `80%` or `0.25%`. */
const percent = (x: number): string => `${Number((x * 100).toPrecision(4))}%`;

/** The workload's lengths in one line: the mix's entries, or the explicit list's size. */
export function describeSource(workload: Workload): string {
  const source = workload.source;
  if (source.kind === 'list') return `an explicit list of ${fmt(source.tokens.length)} prompt lengths, replayed in order`;
  const total = source.mix.reduce((sum, e) => sum + e.weight, 0);
  return source.mix
    .map((e) => {
      const range = e.minTokens === e.maxTokens ? `exactly ${fmt(e.minTokens)}` : `${fmt(e.minTokens)}–${fmt(e.maxTokens)}${e.spread === 'uniform' ? ' uniform' : ''}`;
      return `${percent(e.weight / total)} ${e.name} ${range}`;
    })
    .join(', ');
}

/** The verdict: whether `Isolation` held, and where the leaks were. */
export function verdict(r: IncidentReport): string {
  const limit = fmt(r.pool.prefillTokens);
  if (r.leaked === 0) {
    const stopped =
      r.failedLoudly > 0 ? `; ${fmt(r.failedLoudly)} over-long request${r.failedLoudly === 1 ? '' : 's'} failed loudly instead` : r.refused > 0 ? `; ${fmt(r.refused)} over-long request${r.refused === 1 ? ' was' : 's were'} refused` : '';
    return `Isolation holds: no response read another user's data${stopped}.`;
  }
  const where =
    r.leakedWithinLimit === 0
      ? `every one longer than ${limit} tokens (shortest ${fmt(r.minLeakTokens ?? 0)})`
      : `${fmt(r.leakedWithinLimit)} of them at or below ${limit} tokens (shortest ${fmt(r.minLeakTokens ?? 0)})`;
  return `Isolation violated: ${fmt(r.leaked)} responses read other users' data, ${where}.`;
}

/** What the length rule refuses, in words: `longer than 681,280 tokens` or `of 681,280 tokens or more`. */
function ruleWords(r: IncidentReport): string {
  const limit = fmt(r.pool.prefillTokens);
  return r.lengthRule === 'ge' ? `of ${limit} tokens or more` : `longer than ${limit} tokens`;
}

/** One exact length's outcomes in a line. */
function lengthLine(label: string, o: LengthOutcome): string {
  const parts = [`${fmt(o.served)} served`, `${fmt(o.leaked)} leaked`];
  if (o.refused > 0) parts.push(`${fmt(o.refused)} refused`);
  if (o.failedLoudly > 0) parts.push(`${fmt(o.failedLoudly)} failed loudly`);
  return `${label}: ${fmt(o.requests)} request${o.requests === 1 ? '' : 's'} of ${label === 'boundary' ? 'exactly ' : ''}${fmt(o.tokens)} tokens, ${parts.join(', ')}`;
}

/** The whole report as text; `replayCommand` is the command line that runs it again. */
export function formatReport(r: IncidentReport, workload: Workload, replayCommand: string): string {
  const p = r.pool;
  const lines: string[] = [];
  lines.push(`pagecheck incident: variant ${r.variant}, seed ${r.seed}, ${fmt(r.requests)} request${r.requests === 1 ? '' : 's'}, up to ${fmt(r.inFlight)} in flight`);
  const rule = r.lengthRule === 'ge' ? '>= (SGLang\'s validate_input_length)' : '>';
  lines.push(`allocator ${r.allocator}; P refuses a prompt when its length ${rule} ${fmt(p.prefillTokens)} tokens`);
  lines.push(
    `pool: ${fmt(p.pages)} pages of ${p.pageTokens} tokens (${fmt(p.poolTokens)} tokens); P computes at most ${fmt(p.prefillLimit)} pages (${fmt(p.prefillTokens)} tokens)`,
  );
  lines.push(`mix: ${describeSource(workload)}`);
  lines.push('');
  const row = (label: string, value: number | string, note = ''): string => `  ${label.padEnd(16)}${String(value).padStart(10)}${note ? `  ${note}` : ''}`;
  lines.push(row('served', fmt(r.served), 'responses returned, leaked ones included'));
  lines.push(row('over-long', fmt(r.overLong), ruleWords(r)));
  lines.push(
    row('leaked', fmt(r.leaked), r.leaked > 0 ? `shortest ${fmt(r.minLeakTokens ?? 0)}, longest ${fmt(r.maxLeakTokens ?? 0)} tokens; ${fmt(r.foreignPagesRead)} foreign pages read` : ''),
  );
  lines.push(row('answered garbage', fmt(r.answeredGarbage), 'no leak, but read pages never written for them (Integrity)'));
  lines.push(row('failed loudly', fmt(r.failedLoudly), r.wouldHaveLeaked === null ? '' : `${fmt(r.wouldHaveLeaked)} of them would have leaked (their pages held other users' data)`));
  lines.push(row('refused', fmt(r.refused)));
  lines.push('');
  const cols = ['requests', 'served', 'leaked', 'failed', 'refused', ...(r.wouldHaveLeaked === null ? [] : ['would leak'])];
  lines.push(`  ${'tokens'.padEnd(14)}${cols.map((c) => c.padStart(11)).join('')}`);
  for (const b of r.buckets) {
    const values = [b.requests, b.served, b.leaked, b.failedLoudly, b.refused, ...(b.wouldHaveLeaked === null ? [] : [b.wouldHaveLeaked])];
    lines.push(`  ${b.label.padEnd(14)}${values.map((v) => fmt(v).padStart(11)).join('')}`);
  }
  lines.push('');
  lines.push(lengthLine('boundary', r.boundary));
  lines.push(lengthLine('one over', r.oneOver));
  if (r.overLongClean > 0) lines.push(`over-long served clean: ${fmt(r.overLongClean)} (their pages past the stub had never been written)`);
  lines.push(
    `throughput: ${fmt(r.requestsPerSecond)} requests/s (${fmt(r.elapsedMs)} ms); peak ${fmt(r.peakInFlight)} in flight; the queue waited for pages ${fmt(r.waits)} times`,
    ...(r.serving === undefined ? [] : [`serving steps: ${fmt(r.serving.grows)} pages taken by decode steps, ${fmt(r.serving.retractions)} retractions (${fmt(r.serving.resumes)} resumed), ${fmt(r.serving.aborts)} transfers aborted by P, ${fmt(r.serving.commitAborts)} aborted at commit`]),
    ...(r.prefixes === undefined ? [] : [`radix tree: ${fmt(r.prefixes.hits)} admissions hit a cached prefix, ${fmt(r.prefixes.inserts)} inserts at the handoff, ${fmt(r.prefixes.evictions)} leaves evicted`]),
  );
  lines.push(`replay: ${replayCommand}`);
  lines.push('');
  lines.push(verdict(r));
  return lines.join('\n');
}
