/**
 * `pagecheck matrix`: every variant against every fault of the catalogue, one full search
 * per cell, printed as a table (rows variants, columns faults) or as a JSON array of
 * cells. `--variant` and `--faults` narrow the rows and columns. Exit code: 0 whenever
 * the matrix ran, leaks or not (the matrix is a report, not a verdict; use `check` for a
 * verdict); 2 for bad input (a flag or configuration file).
 */
import type { Command } from 'commander';
import { runMatrix, cellConfig, type MatrixCell, type MatrixResult } from '../../matrix/matrix.ts';
import { compile, FAULTS, matrixConfig, VARIANTS, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { shouldColor } from '../../trace/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import { addModelOptions, configFromFlags, type ModelFlags } from '../model-options.ts';
import { beginWork } from '../interrupt.ts';
import { why } from '../warnings.ts';
import { count, replayCommand, unreachedWitnesses } from '../search-report.ts';

/** The flags of `matrix`. */
interface MatrixFlags extends ModelFlags {
  /** `--json`. */
  readonly json?: boolean;
  /** False with `--no-symmetry`. */
  readonly symmetry: boolean;
}

/** The matrix's configuration when no flag says otherwise. */
const MATRIX_DEFAULTS = (({ pages, prefillLimit, requests }) => ({ pages, prefillLimit, requests }))(matrixConfig('buggy'));

/** A cell's lines: the Isolation verdict, the Integrity verdict, then one `+ X` per other invariant broken. */
function cellLines(c: MatrixCell): string[] {
  const head = c.isolation === 'leak' ? `leak (${c.traceLength} actions)` : `holds (${count(c.distinctStates)} states)`;
  const integrity = c.integrity === 'garbage' ? `garbage (${c.integrityTraceLength} actions)` : 'integrity holds';
  return [head, integrity, ...c.brokenInvariants.map((x) => `+ ${x}`)];
}

/** The table: rows variants, columns faults, multi-line cells. */
function table(result: MatrixResult, color: boolean): string {
  const variants = VARIANTS.filter((v) => result.cells.some((c) => c.variant === v));
  const faults = FAULTS.filter((f) => result.cells.some((c) => c.fault === f));
  const at = (v: string, f: string): MatrixCell | undefined => result.cells.find((c) => c.variant === v && c.fault === f);
  const width = Math.max(...faults.map((f) => f.length), ...result.cells.flatMap(cellLines).map((l) => l.length)) + 3;
  const first = Math.max(...variants.map((v) => v.length)) + 3;
  const paint = (c: MatrixCell, line: string, i: number): string => {
    const padded = line.padEnd(width);
    if (!color) return padded;
    const code = i > 0 ? '33' : c.isolation === 'leak' ? '1;31' : '32';
    return `\u001b[${code}m${line}\u001b[0m${padded.slice(line.length)}`;
  };
  const lines = [''.padEnd(first) + faults.map((f) => f.padEnd(width)).join('').trimEnd()];
  for (const v of variants) {
    const cells = faults.map((f) => at(v, f));
    const height = Math.max(...cells.map((c) => (c === undefined ? 1 : cellLines(c).length)));
    for (let i = 0; i < height; i++) {
      const row = cells.map((c) => (c === undefined ? ''.padEnd(width) : paint(c, cellLines(c)[i] ?? '', i)));
      lines.push(((i === 0 ? v : '').padEnd(first) + row.join('')).trimEnd());
    }
  }
  return lines.join('\n');
}

/** One line per column that ran on more pages than the base, because its fault cannot fire on the base's (matrix/matrix.ts, `columnPages`), and why. */
function ownPagesLines(result: MatrixResult): string[] {
  const b = result.base;
  const moved = FAULTS.map((f) => result.cells.find((c) => c.fault === f && c.pages !== b.pages)).filter((c) => c !== undefined);
  return moved.map((c) => {
    const reason = why(compile({ ...cellConfig(b, c.variant, c.fault), pages: b.pages }), c.fault);
    return `Column ${c.fault} runs on ${c.pages} pages, the fewest on which its fault can fire (on ${b.pages}: ${reason}).`;
  });
}

/** The matrix in words: the table, a legend, warnings, and how to reproduce each leak. */
function matrixText(result: MatrixResult, color: boolean): string {
  const b = result.base;
  const requests = b.requests.map((q) => `${q.name}:${q.length}${q.prefix === undefined ? '' : `:${q.prefix}`}`).join(' ');
  const lines = [
    `pagecheck matrix  ${b.pages} pages · prefill limit ${b.prefillLimit} · requests ${requests}${b.prefixPages === undefined ? '' : ` · prefix pages ${Object.entries(b.prefixPages).map(([name, k]) => `${name}=${k}`).join(',')}`}`,
    `Isolation, then Integrity, per variant (rows) and fault (columns); each cell switches on that one fault${b.decodeSteps === undefined ? '' : `, decodes in ${b.decodeSteps} steps`}${b.tableGrowth === true ? ', grows the table (tableGrowth)' : ''} and explores the whole space.`,
    'Column torn-write switches on early-free with it: torn parts matter where a late write meets a new holder.',
    ...ownPagesLines(result),
    '',
    table(result, color),
    '',
    'garbage: a request that passed its checks read content not written for it at that position (Integrity); + X: that cell also breaks invariant X (the bug is there even where the leak is not).',
  ];
  for (const c of result.cells) {
    for (const w of unreachedWitnesses(c.witnesses)) lines.push(`warning: ${c.variant} × ${c.fault}: witness ${w} applies but was not reached`);
  }
  const leaks = result.cells.filter((c) => c.isolation === 'leak');
  if (leaks.length > 0) {
    lines.push('', 'reproduce a leak (shortest counterexample, step by step):');
    const label = (c: MatrixCell): string => `${c.variant} × ${c.fault}:`;
    const pad = Math.max(...leaks.map((c) => label(c).length)) + 1;
    // Under tableGrowth a request that cannot grow deadlocks (the model has no retract yet), often before the leak: the line leaves deadlocks out.
    const flags = ['--invariant', 'Isolation', ...(b.tableGrowth === true ? ['--no-deadlock'] : [])];
    for (const c of leaks) lines.push(`  ${label(c).padEnd(pad)}${replayCommand(cellConfig(b, c.variant, c.fault), flags, true)}`);
  }
  return lines.join('\n');
}

/** The matrix cell by cell (variant-major, as `runMatrix` runs them), reporting the cells done so that Ctrl-C can say how far it got. */
function runCells(config: Config, variants: readonly Variant[], faults: readonly Fault[], symmetry: boolean): MatrixResult {
  const work = beginWork('matrix', ['cells']);
  const cells: MatrixCell[] = [];
  let base: MatrixResult['base'] | undefined;
  for (const variant of variants) {
    for (const fault of faults) {
      const one = runMatrix(config, { variants: [variant], faults: [fault], symmetry });
      base = one.base;
      cells.push(...one.cells);
      work.report({ cells: cells.length });
    }
  }
  return { base: base ?? runMatrix(config, { variants: [], faults: [] }).base, cells };
}

/** Runs `matrix` with parsed flags; returns the exit code. */
export function runMatrixCommand(flags: MatrixFlags): number {
  const config = configFromFlags(flags, MATRIX_DEFAULTS);
  if (flags.faults !== undefined && config.faults.length === 0) {
    throw new UsageError(`--faults: the matrix needs at least one fault as a column, got ${JSON.stringify(flags.faults)}`);
  }
  const result = runCells(config, flags.variant === undefined ? VARIANTS : [config.variant], flags.faults === undefined ? FAULTS : config.faults, flags.symmetry);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(result.cells, null, 2)}\n`);
  else process.stdout.write(`${matrixText(result, shouldColor(process.stdout))}\n`);
  return EXIT.ok;
}

/** Registers the command. */
export function register(program: Command): void {
  const cmd = program
    .command('matrix')
    .description('check every variant against every fault (one fault per cell) and print which leak and which read garbage; --variant and --faults narrow the rows and columns. Exit 0 when it ran (a report, not a verdict), 2 for bad input');
  addModelOptions(cmd)
    .option('--no-symmetry', 'explore the raw state spaces')
    .option('--json', 'print the cells as a JSON array')
    .action((flags: MatrixFlags) => {
      process.exitCode = runMatrixCommand(flags);
    });
}
