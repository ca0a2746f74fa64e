/**
 * Writes the generated figures into README.md and docs/*.md, or with `--check` says which
 * ones differ (exit 1) and writes nothing. `--fast` leaves the slow figures out.
 *
 *   npx tsx figures/write-figures.ts [--check] [--fast]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_FIGURES } from './bench-figures.ts';
import { designs, removals } from './design-figures.ts';
import { LIFE_FIGURES } from './life-figures.ts';
import { figureBlocks, replaceFigures } from './figure-blocks.ts';
import { README_FIGURES, type Figure } from './readme-figures.ts';
import { REPO_ROOT } from '../docs/generate/sources.ts';
import { STATE_FIGURES } from './state-figures.ts';
import { VARIANT_FIGURES } from './variant-figures.ts';

/** Every generated figure of the README and docs/. */
export const ALL_FIGURES: readonly Figure[] = [...README_FIGURES, designs, removals, ...BENCH_FIGURES, ...STATE_FIGURES, ...VARIANT_FIGURES, ...LIFE_FIGURES];

/** A figure whose file holds something else than what the code gives. */
export interface FigureDifference {
  /** The figure. */
  readonly figure: Figure;
  /** What the file holds, `undefined` when it has no block of that name. */
  readonly found: string | undefined;
  /** What the code gives. */
  readonly expected: string;
}

/** The figures that differ from their files (renders them one at a time: some run the checker). */
export async function differences(figures: readonly Figure[], root: string = REPO_ROOT): Promise<FigureDifference[]> {
  const out: FigureDifference[] = [];
  for (const figure of figures) {
    const expected = await figure.render();
    const found = figureBlocks(readFileSync(join(root, figure.file), 'utf8')).find((b) => b.name === figure.name)?.body;
    if (found !== expected) out.push({ figure, found, expected });
  }
  return out;
}

/** Rewrites the files' blocks for `figures`; the names of the files changed. */
export async function writeFigures(figures: readonly Figure[], root: string = REPO_ROOT): Promise<string[]> {
  const byFile = new Map<string, Map<string, string>>();
  for (const figure of figures) {
    const bodies = byFile.get(figure.file) ?? new Map<string, string>();
    bodies.set(figure.name, await figure.render());
    byFile.set(figure.file, bodies);
  }
  const changed: string[] = [];
  for (const [file, bodies] of byFile) {
    const path = join(root, file);
    const before = readFileSync(path, 'utf8');
    const after = replaceFigures(before, bodies);
    if (after !== before) {
      writeFileSync(path, after);
      changed.push(file);
    }
  }
  return changed;
}

/** The command line: write, or check. */
async function run(argv: readonly string[]): Promise<number> {
  const figures = argv.includes('--fast') ? ALL_FIGURES.filter((f) => f.slow !== true) : ALL_FIGURES;
  if (!argv.includes('--check')) {
    const changed = await writeFigures(figures);
    process.stdout.write(changed.length === 0 ? 'every figure is up to date\n' : `wrote ${changed.join(', ')}\n`);
    return 0;
  }
  const stale = await differences(figures);
  for (const d of stale) process.stderr.write(`${d.figure.file}: figure ${d.figure.name} ${d.found === undefined ? 'is missing' : 'differs from what the code gives'}\n`);
  return stale.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) process.exitCode = await run(process.argv.slice(2));
