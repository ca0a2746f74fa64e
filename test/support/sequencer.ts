/**
 * The order in which vitest starts the test files: the costliest first. On a 2-core machine
 * `npm test` runs two files at a time, and vitest's own order (one project after the other,
 * then the durations it cached on this machine, which a clean clone has none of) left the
 * proofs and the generated document to start late, one core idle while the last of them
 * ran. Started costliest first, the many small files fill in beside the long ones at the
 * end (longest processing time first, the classic bound for list scheduling).
 *
 * The costs are CPU seconds per file, measured (test/support/file-cost.ts) and kept in
 * test/support/costs.json by `npx tsx test/support/record-costs.ts LOG`. A file with no
 * recorded cost runs first of its group, as in vitest's own order: a new file may be long.
 * Isolated projects (the heavy tier, one process per file) still come before the shared
 * ones (the fast tier), whose files must follow one another to share their processes.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where the recorded costs are kept. */
export const COSTS_FILE = fileURLToPath(new URL('./costs.json', import.meta.url));

/** The repository's root, which the recorded paths are relative to. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** CPU seconds per test file, by path relative to the repository. */
export type Costs = Readonly<Record<string, number>>;

/** The recorded costs (none when the file is missing or unreadable: the order is then vitest's glob order). */
export function readCosts(path = COSTS_FILE): Costs {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Costs;
  } catch {
    return {};
  }
}

/** A file to order: its path relative to the repository, and whether its project isolates its files. */
export interface Ordered {
  /** Relative path, as costs.json names it. */
  readonly file: string;
  /** Whether the project runs each file in a process of its own. */
  readonly isolate: boolean;
}

/** `files` in the order to start them: isolated before shared, then unknown cost first, then costliest first; ties keep their order. */
export function byCost<T extends Ordered>(files: readonly T[], costs: Costs): T[] {
  const cost = (f: Ordered): number => costs[f.file] ?? Number.POSITIVE_INFINITY;
  return files
    .map((f, i) => ({ f, i }))
    .sort((a, b) => Number(b.f.isolate) - Number(a.f.isolate) || cost(b.f) - cost(a.f) || a.i - b.i)
    .map(({ f }) => f);
}

/** vitest's sequencer with {@link byCost}'s order (vitest.config.ts `sequence.sequencer`). */
export class CostSequencer extends BaseSequencer {
  /** The files, costliest first. */
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const costs = readCosts();
    const ordered = files.map((spec) => ({ spec, file: relative(ROOT, spec.moduleId), isolate: spec.project.config.isolate !== false }));
    return byCost(ordered, costs).map((o) => o.spec);
  }
}
