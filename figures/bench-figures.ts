/**
 * The figures of docs/MEASURED.md, read from bench/results.json (what `npm run bench`
 * writes), so that the page says what the last run measured and nothing else. A missing
 * field is an error naming it: a benchmark renamed its output and the page must follow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Figure } from './readme-figures.ts';
import { REPO_ROOT } from '../docs/generate/sources.ts';

/** The page that holds these figures. */
const PAGE = 'docs/MEASURED.md';

/** A JSON value read from the results file. */
type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

/** The results file, read once per figure (it is small, and a test may have rewritten it). */
function results(): Json {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'bench/results.json'), 'utf8')) as Json;
}

/** The value at a dotted path, or an error that names the path. */
function at(root: Json, path: string): Json {
  let v: Json = root;
  for (const key of path.split('.')) {
    // A list is indexed by position (`parallel.rounds.0.one`), an object by name.
    const next: Json | undefined = v === null || typeof v !== 'object' ? undefined : Array.isArray(v) ? (v as readonly Json[])[Number(key)] : (v as { readonly [k: string]: Json })[key];
    if (next === undefined) throw new Error(`bench/results.json has no ${path}`);
    v = next;
  }
  return v;
}

/** A number at `path`. */
function num(root: Json, path: string): number {
  const v = at(root, path);
  if (typeof v !== 'number') throw new Error(`bench/results.json: ${path} is not a number`);
  return v;
}

/** An integer with thousands separators, as the commands print them. */
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A number with `digits` decimals. */
const fixed = (n: number, digits: number): string => n.toFixed(digits);

/** A Markdown table. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A figure of the measured page made from the results file. */
const bench = (name: string, render: (r: Json) => string): Figure => ({ name, file: PAGE, render: async () => render(results()) });

/** Start-up: the whole process, pagecheck's compiled command against SPIN's compile and run. */
const startup = bench('bench-startup', (r) =>
  table(
    ['whole process, wall seconds (median of 9, in turn)', 'median', 'fastest', 'slowest'],
    [
      ['pagecheck `check` (minimal incident, compiled command)', fixed(num(r, 'startup.pagecheckSeconds.median'), 3), fixed(num(r, 'startup.pagecheckSeconds.min'), 3), fixed(num(r, 'startup.pagecheckSeconds.max'), 3)],
      ['`node -e 0`', fixed(num(r, 'startup.nodeSeconds.median'), 3), fixed(num(r, 'startup.nodeSeconds.min'), 3), fixed(num(r, 'startup.nodeSeconds.max'), 3)],
      ['SPIN: `spin -a`, gcc -O2, pan, trail replay', fixed(num(r, 'startup.spinSeconds.median'), 2), fixed(num(r, 'startup.spinSeconds.min'), 2), fixed(num(r, 'startup.spinSeconds.max'), 2)],
      ['ratio pagecheck / `node -e 0`', fixed(num(r, 'startup.ratios.pagecheckToNode'), 2), '', ''],
      ['ratio pagecheck / SPIN', fixed(num(r, 'startup.ratios.pagecheckToSpin'), 3), '', ''],
      ['load average before, after', `${fixed(num(r, 'startup.loadAverage.before'), 2)}, ${fixed(num(r, 'startup.loadAverage.after'), 2)}`, '', ''],
    ],
  ),
);

/** The handwritten SPIN model against one and two workers. */
const handwritten = bench('bench-handwritten', (r) => {
  const one = 'handwritten.pagecheck.oneWorker';
  const two = 'handwritten.pagecheck.allCores';
  const spin = 'handwritten.spin';
  return [
    `Both find **${int(num(r, `${one}.distinctStates`))} states**.`,
    '',
    table(
      ['', 'pagecheck, 1 worker', 'pagecheck, 2 workers', 'SPIN (`spin -a`, gcc -O2, pan BFS)'],
      [
        ['whole process (wall)', `${fixed(num(r, `${one}.processSeconds`), 1)} s`, `${fixed(num(r, `${two}.processSeconds`), 1)} s`, `${fixed(num(r, `${spin}.processSeconds`), 1)} s (${fixed(num(r, `${spin}.buildSeconds`), 1)} s of it compiling)`],
        ['CPU seconds', fixed(num(r, `${one}.cpuSeconds`), 1), fixed(num(r, `${two}.cpuSeconds`), 1), fixed(num(r, `${spin}.cpuSeconds`), 1)],
        ['states/s of the search (wall)', int(num(r, `${one}.statesPerSecond`)), int(num(r, `${two}.statesPerSecond`)), int(num(r, `${spin}.statesPerSecond`))],
        ['states per CPU second', int(num(r, `${one}.statesPerCpuSecond`)), int(num(r, `${two}.statesPerCpuSecond`)), int(num(r, `${spin}.statesPerCpuSecond`))],
        ['bytes per stored state', fixed(num(r, `${one}.bytesPerState`), 1), fixed(num(r, `${two}.bytesPerState`), 1), String(num(r, `${spin}.bytesPerState`))],
        ['peak RSS', `${int(num(r, `${one}.peakRssMb`))} MB`, `${int(num(r, `${two}.peakRssMb`))} MB`, `${int(num(r, `${spin}.peakRssMb`))} MB`],
      ],
    ),
    '',
    `One worker: **${fixed(num(r, 'handwritten.ratios.oneWorker.statesPerSecond'), 2)}x** SPIN's states/s, ` +
      `**${fixed(num(r, 'handwritten.ratios.oneWorker.statesPerCpuSecond'), 2)}x** per CPU second; ` +
      `this one pair of runs gives ${fixed(num(r, 'handwritten.ratios.speedupOfAllCores'), 2)}x for two workers.`,
  ].join('\n');
});

/** The hand-written owner-check and hardened models against pagecheck's general path, one thread. */
const handwrittenOwner = bench('bench-handwritten-owner', (r) => {
  const rows = (['owner-check', 'hardened'] as const).map((pair) => {
    const p = `handwrittenOwner.pairs.${pair}`;
    return [
      `\`${pair}\``,
      `\`${String(at(r, `${p}.config`))}\``,
      int(num(r, `${p}.pagecheck.distinctStates`)),
      int(num(r, `${p}.pagecheck.statesPerCpuSecond`)),
      int(num(r, `${p}.spin.statesPerCpuSecond`)),
      `**${fixed(num(r, `${p}.ratios.statesPerCpuSecond`), 2)}x**`,
      `${fixed(num(r, `${p}.pagecheck.bytesPerState`), 1)} / ${int(num(r, `${p}.spin.bytesPerState`))}`,
    ];
  });
  const load = (k: string): string => fixed(num(r, `handwrittenOwner.loadAverage.${k}.0`), 1);
  return [
    table(['model', 'pagecheck flags', 'states (both)', 'pagecheck states per CPU s', 'SPIN states per CPU s', 'ratio', 'bytes per state, pagecheck / SPIN'], rows),
    '',
    `Load average ${load('before')} before the run, ${load('after')} after it, on 2 cores: CPU seconds are the figure to compare.`,
  ].join('\n');
});

/** Two workers against one, alternating rounds. */
const parallel = bench('bench-parallel', (r) => {
  const rounds = at(r, 'parallel.rounds');
  if (!Array.isArray(rounds)) throw new Error('bench/results.json: parallel.rounds is not a list');
  const rows = rounds.map((_, i) => {
    const one = num(r, `parallel.rounds.${i}.one.searchSeconds`);
    const many = num(r, `parallel.rounds.${i}.many.searchSeconds`);
    return [String(i + 1), fixed(num(r, `parallel.rounds.${i}.load`), 2), String(num(r, `parallel.rounds.${i}.defaultWorkers`)), `${fixed(one, 2)} s`, `${fixed(many, 2)} s`, `${fixed(one / many, 2)}x`];
  });
  return [
    table(['round', 'load average', 'default workers', '1 worker (search)', '2 workers (search)', 'speed-up'], rows),
    '',
    `Median speed-up of the search **${fixed(num(r, 'parallel.speedup.search'), 2)}x**, of the whole process ${fixed(num(r, 'parallel.speedup.process'), 2)}x, ` +
      `at ${fixed(num(r, 'parallel.speedup.cpuOverhead'), 2)}x the CPU seconds of one worker.`,
  ].join('\n');
});

/** Partial-order reduction against none, pair by pair. */
const por = bench('bench-por', (r) => {
  const pairs = at(r, 'por.pairs');
  if (pairs === null || typeof pairs !== 'object' || Array.isArray(pairs)) throw new Error('bench/results.json: por.pairs is not an object');
  const rows = Object.keys(pairs).map((name) => {
    const p = `por.pairs.${name}`;
    return [
      name,
      int(num(r, `${p}.plain.distinctStates`)),
      int(num(r, `${p}.reduced.distinctStates`)),
      `**${fixed(num(r, `${p}.ratios.states`), 2)}x**`,
      `${fixed(num(r, `${p}.plain.cpuSeconds`), 2)} s`,
      `${fixed(num(r, `${p}.reduced.cpuSeconds`), 2)} s`,
      `**${fixed(num(r, `${p}.ratios.cpuSeconds`), 2)}x**`,
    ];
  });
  return table(['configuration', 'states, --no-por', 'states, --por', 'ratio', 'CPU, --no-por', 'CPU, --por', 'ratio'], rows);
});

/** The exported model against SPIN on the same Promela. */
const spin = bench('bench-spin', (r) => {
  const p = 'checkerVsSpin.pagecheck';
  const s = 'checkerVsSpin.spin';
  return [
    `Both find **${int(num(r, `${p}.distinctStates`))} states**, depth ${num(r, `${p}.depth`)}.`,
    '',
    table(
      ['', 'pagecheck', 'SPIN (`-DBFS -DSAFETY -DNOREDUCE`, `-O2`)', 'ratio'],
      [
        ['time', `${fixed(num(r, `${p}.seconds`), 1)} s (${fixed(num(r, `${p}.cpuSeconds`), 1)} CPU-s)`, `${fixed(num(r, `${s}.seconds`), 1)} s (${fixed(num(r, `${s}.cpuSeconds`), 1)} CPU-s; ${fixed(num(r, `${s}.buildSeconds`), 1)} s more to compile)`, ''],
        ['states/s', int(num(r, `${p}.statesPerSecond`)), int(num(r, `${s}.statesPerSecond`)), `**${fixed(num(r, 'checkerVsSpin.ratios.statesPerSecond'), 2)}x**`],
        ['bytes per stored state', fixed(num(r, `${p}.bytesPerState`), 1), String(num(r, `${s}.bytesPerState`)), `**${fixed(num(r, 'checkerVsSpin.ratios.bytesPerState'), 2)}**`],
        ['peak RSS', `${int(num(r, `${p}.peakRssMb`))} MB (${int(num(r, `${p}.baselineRssMb`))} MB of it Node itself)`, `${int(num(r, `${s}.maxRssMb`))} MB`, fixed(num(r, 'checkerVsSpin.ratios.peakRss'), 2)],
      ],
    ),
  ].join('\n');
});

/** The page pool at real scale, and the owner check's cost on a decode. */
const pool = bench('bench-pool', (r) => {
  const rows = ['buggy', 'length-fix', 'owner-check'].map((v) => [v, int(num(r, `pool.lifecycles.${v}.cyclesPerSecond`)), `${fixed(num(r, `pool.lifecycles.${v}.pagesPerSecond`) / 1e6, 1)} M`]);
  const pct = (x: number): string => `${x >= 0 ? '+' : ''}${fixed(x * 100, 1)}%`;
  const big = 'pool.ownerCheck.decode2048Pages';
  return [
    table(['variant', 'lifecycles/s (allocate → free)', 'pages touched/s'], rows),
    '',
    `The owner check's cost on a decode that reads each page's payload: **${pct(num(r, `${big}.overhead`))}** on 2,048 pages ` +
      `(${fixed(num(r, `${big}.withCheckMs`), 2)} ms with, ${fixed(num(r, `${big}.withoutCheckMs`), 2)} ms without; paired ratio ${pct(num(r, `${big}.pairedOverhead`))}), ` +
      `${pct(num(r, 'pool.ownerCheck.decode256Pages.overhead'))} on 256 pages; target at most 5%. The check alone costs about ` +
      `${fixed(num(r, 'pool.ownerCheck.bookkeepingOnly16384Pages.checkNsPerPage'), 1)} ns per page against about ${fixed(num(r, 'pool.ownerCheck.payloadReadNsPerPage') / 1000, 1)} µs to read the page's payload.`,
  ].join('\n');
});

/** validate-log's engine over a million events. */
const validateLog = bench(
  'bench-validate-log',
  (r) =>
    `verdict ${String(at(r, 'validateLog.verdict'))} over **${int(num(r, 'validateLog.events'))} events** (${int(num(r, 'validateLog.requests'))} requests) in ` +
    `**${fixed(num(r, 'validateLog.wallMs') / 1000, 1)} s** (${fixed(num(r, 'validateLog.cpuMs') / 1000, 1)} CPU-s), **${int(num(r, 'validateLog.eventsPerSecond'))} events/s** ` +
    `(${int(num(r, 'validateLog.eventsPerCpuSecond'))} per CPU second); ` +
    (['serving', 'radix'] as const)
      .map((k) => `the ${k === 'serving' ? 'serving log (growth, retraction, aborts)' : 'radix log (the tree, growth and retraction together)'}: ${int(num(r, `validateLog.${k}.events`))} events in **${fixed(num(r, `validateLog.${k}.wallMs`) / 1000, 1)} s** (${fixed(num(r, `validateLog.${k}.cpuMs`) / 1000, 1)} CPU-s)`)
      .join('; '),
);

/** A big space: one thread, queue and links spilled, beside SPIN's hash compaction on the same model. */
const bigSpace = bench('bench-big-space', (r) => {
  const p = 'bigSpace.pagecheck';
  const s = 'bigSpace.spin';
  const load = (k: string): string => fixed(num(r, `bigSpace.loadAverage.${k}.0`), 1);
  return [
    `\`check ${String(at(r, 'bigSpace.config'))}\`: pagecheck finds **${int(num(r, `${p}.distinctStates`))} states** (verdict ${String(at(r, `${p}.verdict`))}); ` +
      `SPIN with hash compaction stores ${int(num(r, `${s}.statesStored`))}: it merged **${int(num(r, 'bigSpace.statesLostBySpinHashCompaction'))}** states with others, so its search was not exhaustive. ` +
      `Load average ${load('before')} before, ${load('after')} after (other work): CPU seconds are the figures to compare.`,
    '',
    table(
      ['', 'pagecheck (one thread, BFS, spilled)', `SPIN (\`${String(at(r, `${s}.cflags`))}\`, \`${String(at(r, `${s}.panArgs`))}\`, depth-first)`, 'ratio'],
      [
        ['bytes per state (peak RSS)', `**${fixed(num(r, `${p}.bytesPerStateRss`), 1)}** (table ${fixed(num(r, `${p}.tableBytesPerState`), 1)}, at load ${fixed(num(r, `${p}.tableLoad`), 2)})`, fixed(num(r, `${s}.bytesPerStateRss`), 1), `**${fixed(num(r, 'bigSpace.ratios.bytesPerStateRss'), 2)}**`],
        ['peak RSS', `${int(num(r, `${p}.peakRssMb`))} MB`, `${int(num(r, `${s}.peakRssMb`))} MB`, fixed(num(r, 'bigSpace.ratios.peakRss'), 2)],
        ['CPU', `${fixed(num(r, `${p}.cpuSeconds`), 0)} s (${int(num(r, `${p}.statesPerCpuSecond`))} states per CPU s)`, `${fixed(num(r, `${s}.cpuSeconds`), 0)} s (${int(num(r, `${s}.statesPerCpuSecond`))} per CPU s)`, fixed(num(r, 'bigSpace.ratios.cpuSeconds'), 2)],
      ],
    ),
  ].join('\n');
});

/** The areas npm run mutation samples, in its order (bench/mutation/options.ts AREAS). */
const MUTATION_AREAS = ['spec', 'binding', 'checker', 'impl', 'conformance'] as const;

/** An area's score as the run printed it: killed (on reload included) over mutants. */
const score = (r: Json, a: string): string => (at(r, `mutation.areas.${a}.score`) === null ? `stopped (${String(at(r, `mutation.areas.${a}.error`))})` : `${fixed(num(r, `mutation.areas.${a}.score`), 1).replace(/\.0$/, '')}%`);

/** The mutation score per area, inline in the README's line on docs/TESTING.md. */
const mutationInline: Figure = {
  name: 'mutation-scores',
  file: 'README.md',
  render: async () => {
    const r = results();
    return MUTATION_AREAS.map((a) => `${a} ${score(r, a)}`).join(', ');
  },
};

/** The mutation score per area with its sample, seed and survivors, in docs/TESTING.md. */
const mutationTable: Figure = {
  name: 'mutation-table',
  file: 'docs/TESTING.md',
  render: async () => {
    const r = results();
    const rows = MUTATION_AREAS.map((a) => {
      const p = `mutation.areas.${a}`;
      return [a, `${num(r, `${p}.sample`)} lines, seed ${num(r, `${p}.seed`)}`, String(num(r, `${p}.mutants`)), String(num(r, `${p}.killed`)), String(num(r, `${p}.survived`)), String(num(r, `${p}.noCoverage`)), `**${score(r, a)}**`];
    });
    return table(['area', 'sample', 'mutants', 'killed', 'survived', 'no coverage', 'score'], rows);
  },
};

/** Every figure read from bench/results.json: docs/MEASURED.md's, and the mutation scores of the README and docs/TESTING.md. */
export const BENCH_FIGURES: readonly Figure[] = [startup, handwritten, handwrittenOwner, parallel, por, bigSpace, spin, pool, validateLog, mutationInline, mutationTable];
