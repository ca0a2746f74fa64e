/**
 * The fault matrix (docs/BACKGROUND.md, "Faults"): every variant against every fault of the
 * catalogue, each cell one full search of the same configuration with that variant and
 * exactly that one fault switched on. A cell says whether `Isolation` leaks (and how
 * short the leak is) and which other invariants break: a bug can still break
 * `ExclusiveHold` under the owner check; the bug is there, the leak is not.
 */
import { check, type WitnessResult } from '../checker/index.ts';
import { checkedModel, compile, FAULTS, matrixConfig, VARIANTS, type Config, type Fault, type Variant } from '../spec/index.ts';

/** The part of a configuration that the matrix keeps fixed across its cells. */
export type MatrixBase = Pick<Config, 'pages' | 'prefillLimit' | 'requests'>;

/** One cell: a variant under one fault. */
export interface MatrixCell {
  /** The row. */
  readonly variant: Variant;
  /** The column: the only fault switched on. */
  readonly fault: Fault;
  /** Whether some request reads another's data. */
  readonly isolation: 'leak' | 'holds';
  /** Actions in the shortest leak; `null` when `Isolation` holds. */
  readonly traceLength: number | null;
  /** The whole reachable space, successors of violating states included. */
  readonly distinctStates: number;
  /** Its depth (the longest shortest path). */
  readonly depth: number;
  /** The invariants other than `Isolation` that break, in the order their first violations were found. */
  readonly brokenInvariants: readonly string[];
  /** The non-vacuity witnesses, reached or not. */
  readonly witnesses: readonly WitnessResult[];
}

/** The matrix: the configuration it ran on and its cells, variant-major. */
export interface MatrixResult {
  /** The fixed part of the configuration. */
  readonly base: MatrixBase;
  /** One cell per variant and fault, rows in `VARIANTS` order, columns in `FAULTS` order. */
  readonly cells: readonly MatrixCell[];
}

/** Which rows and columns to run, and how. */
export interface MatrixOptions {
  /** Rows; default every variant. */
  readonly variants?: readonly Variant[];
  /** Columns; default every fault. */
  readonly faults?: readonly Fault[];
  /** Symmetry reduction; default true. */
  readonly symmetry?: boolean;
}

/** The configuration of one cell; fault `lock-underflow` exists only where the prefix cache evicts, so its cells turn eviction on. */
export function cellConfig(base: MatrixBase, variant: Variant, fault: Fault): Config {
  const config: Config = { pages: base.pages, prefillLimit: base.prefillLimit, requests: base.requests, variant, faults: [fault] };
  return fault === 'lock-underflow' ? { ...config, eviction: true } : config;
}

/** Runs every cell on `base` (default: `matrixConfig`), exploring each whole space. */
export function runMatrix(base: MatrixBase = matrixConfig('buggy'), options: MatrixOptions = {}): MatrixResult {
  const variants = options.variants ?? VARIANTS;
  const faults = options.faults ?? FAULTS;
  const cells: MatrixCell[] = [];
  for (const variant of variants) {
    for (const fault of faults) {
      const result = check(checkedModel(compile(cellConfig(base, variant, fault))), {
        continueAfterViolation: true,
        symmetry: options.symmetry ?? true,
      });
      const leak = result.violations.find((v) => v.invariant === 'Isolation');
      cells.push({
        variant,
        fault,
        isolation: leak === undefined ? 'holds' : 'leak',
        traceLength: leak === undefined ? null : leak.trace.steps.length,
        distinctStates: result.distinctStates,
        depth: result.depth,
        brokenInvariants: result.violations.filter((v) => v.invariant !== 'Isolation').map((v) => v.invariant),
        witnesses: result.witnesses,
      });
    }
  }
  return { base: { pages: base.pages, prefillLimit: base.prefillLimit, requests: base.requests }, cells };
}
