/**
 * `npm run mutation` (issue 27, item 4): Stryker over a seeded sample of source lines in
 * each area (spec/, binding/, checker/, impl/, conformance/), each area against its own
 * tests only (`test/<area>`, fast tier: bench/mutation/vitest.config.ts). It prints a
 * table of the score per area and writes the figures to `bench/results.json` under
 * `mutation` (the other benchmarks' entries kept, as bench/run.ts keeps them) and the
 * survivors, with file:line:column and the mutant, to `bench/mutation/survivors.json`,
 * each with the note bench/mutation/notes.json gives (why it is equivalent, or which
 * test kills it outside Stryker).
 *
 * Not in CI and not in `npm run bench`: a sample of 4 lines per area takes tens of
 * minutes on the shared 2-core machine. The command line it prints replays the same
 * sample (bench/mutation/options.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Either } from 'effect';
import { HEAVY_ONLY, mutateOf, parseOptions, type Area } from './mutation/options.ts';
import { noteOf } from './mutation/notes.ts';
import { runArea, type AreaScore, type Survivor } from './mutation/stryker.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = fileURLToPath(new URL('./results.json', import.meta.url));
const SURVIVORS = fileURLToPath(new URL('./mutation/survivors.json', import.meta.url));
const NOTES = fileURLToPath(new URL('./mutation/notes.json', import.meta.url));

/** The JSON object in `path`, or an empty one. */
function readObject(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/**
 * survivors.json's content: per area, the survivors of its last run (the areas not run
 * now keep theirs), each with the note notes.json gives (why it is equivalent, or which
 * test kills it outside Stryker), read now so that a note written during a run counts.
 */
function survivorsOf(found: readonly Survivor[], ran: readonly Area[]): Record<string, unknown> {
  const notes = readObject(NOTES);
  const before = readObject(SURVIVORS)['areas'];
  const areas: Record<string, unknown> = typeof before === 'object' && before !== null && !Array.isArray(before) ? { ...before } : {};
  for (const area of ran) {
    areas[area] = found.filter((s) => s.area === area).map((s) => {
      const note = noteOf(notes, s);
      return note === undefined ? s : { ...s, note };
    });
  }
  return { areas };
}

/** The table printed at the end. */
function table(scores: Readonly<Record<string, AreaScore>>): string {
  const head = ['area', 'lines', 'mutants', 'killed', 'on reload', 'survived', 'timeout', 'no-coverage', 'score', 'wall s', 'recheck s'];
  const rows = Object.entries(scores).map(([area, s]) => [area, s.lines.length, s.mutants, s.killed, s.killedOnReload, s.survived, s.timeout, s.noCoverage, s.error ?? (s.score === null ? '-' : `${s.score}%`), s.wallSeconds, s.recheckSeconds ?? '-'].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

/** Runs the areas asked for, one after the other, and writes what they scored. */
async function main(): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2));
  if (Either.isLeft(parsed)) {
    process.stderr.write(`pagecheck mutation: ${parsed.left}\n`);
    process.exit(2);
  }
  const o = parsed.right;
  const replay = `npm run mutation -- --area ${o.areas.join(',')} --sample ${o.sample} --seed ${o.seed}`;
  process.stderr.write(`pagecheck mutation: ${replay} (bound ${o.boundSeconds} s per area); left out as tested only in the heavy tier: ${Object.keys(HEAVY_ONLY).join(', ')}\n`);
  const scores: Record<string, AreaScore & { seed: number; sample: number }> = {};
  const found: Survivor[] = [];
  const started = performance.now();
  for (const area of o.areas) {
    const mutate = mutateOf(ROOT, area, o.sample, o.seed);
    process.stderr.write(`pagecheck mutation: ${area}: ${mutate.join(' ')}\n`);
    const r = await runArea(ROOT, area as Area, mutate, o.boundSeconds, o.concurrency);
    scores[area] = { ...r.score, seed: o.seed, sample: o.sample };
    found.push(...r.survivors);
  }
  const wallSeconds = Math.round((performance.now() - started) / 1000);
  const results = readObject(RESULTS);
  results['mutation'] = { replay, sample: o.sample, seed: o.seed, boundSeconds: o.boundSeconds, wallSeconds, heavyOnlyLeftOut: HEAVY_ONLY, areas: { ...((results['mutation'] as { areas?: object } | undefined)?.areas ?? {}), ...scores } };
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  const survivors = survivorsOf(found, o.areas);
  writeFileSync(SURVIVORS, `${JSON.stringify(survivors, null, 2)}\n`);
  process.stdout.write(`${table(scores)}\n${found.length} survivors in bench/mutation/survivors.json; ${wallSeconds} s; replay: ${replay}\n`);
  process.exitCode = Object.values(scores).some((s) => s.error !== undefined) ? 1 : 0;
}

await main();
