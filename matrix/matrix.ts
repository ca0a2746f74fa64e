/**
 * The fault matrix (docs/BACKGROUND.md, "Faults"): every variant against every fault of the
 * catalogue, each cell one full search of the same configuration with that variant and
 * exactly that one fault switched on. A cell says whether `Isolation` leaks (and how
 * short the leak is), whether `Integrity` breaks (garbage read, and how short), and which
 * other invariants break: a bug can still break `ExclusiveHold` under the owner check;
 * the bug is there, the leak is not.
 *
 * The `torn-write` column is the one cell of two faults: `torn-write` with `early-free`.
 * Writes landing part by part matter only where a write can meet a page that has a new
 * holder, and alone, on the matrix's configuration, no write can. The `premature-success`
 * column has `torn-write` with it: an early Success means something only where a write
 * lands in parts.
 *
 * A column whose fault cannot fire on the base's pages in any row (its witness applies in
 * no cell) runs on the fewest pages where it can, and the cell says so (`pages`): on the
 * default configuration `state-slot-reuse` and `metadata-collision`, which need two
 * requests in flight together, run on 4 pages (A and C, 2 pages each); every other column
 * on the base's 3. Otherwise every cell of such a column would hold vacuously.
 */
import { check, type WitnessResult } from '../checker/index.ts';
import { compile, FAULT_WITNESSES, FAULTS, INVARIANTS, withFaultSwitches, matrixConfig, VARIANTS, type Config, type Fault, type Variant } from '../spec/index.ts';
import { checkedModel } from '../binding/index.ts';

/** The part of a configuration that the matrix keeps fixed across its cells. */
export type MatrixBase = Pick<Config, 'pages' | 'prefillLimit' | 'requests' | 'decodeSteps' | 'prefixPages' | 'tableGrowth'>;

/** One cell: a variant under one fault. */
export interface MatrixCell {
  /** The row. */
  readonly variant: Variant;
  /** The column: the only fault switched on. */
  readonly fault: Fault;
  /** The pages it ran on: the base's, or more where its fault cannot fire on those ({@link columnPages}). */
  readonly pages: number;
  /** Whether some request reads another's data. */
  readonly isolation: 'leak' | 'holds';
  /** Actions in the shortest leak; `null` when `Isolation` holds. */
  readonly traceLength: number | null;
  /** Whether some request that passed its checks read content not written for it at that position. */
  readonly integrity: 'garbage' | 'holds';
  /** Actions in the shortest such read; `null` when `Integrity` holds. */
  readonly integrityTraceLength: number | null;
  /** The whole reachable space, successors of violating states included. */
  readonly distinctStates: number;
  /** Its depth (the longest shortest path). */
  readonly depth: number;
  /** The invariants other than `Isolation` and `Integrity` that break, in the order their first violations were found. */
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

/** The faults of a column: the fault itself; `torn-write` with `early-free` (see above); `source-early-free` and `premature-success` with `torn-write`, under which a write is in flight for P's abort to overtake (spec/source-pages.ts) or for D's early commit (spec/transfer.ts). */
export function columnFaults(fault: Fault): Fault[] {
  if (fault === 'source-early-free') return ['torn-write', 'source-early-free'];
  if (fault === 'premature-success') return ['torn-write', 'premature-success'];
  return fault === 'torn-write' ? ['early-free', 'torn-write'] : [fault];
}

/** The configuration of one cell on `pages` pages, with the switches its column's faults act under. */
function cellOn(base: MatrixBase, pages: number, variant: Variant, fault: Fault): Config {
  const steps = base.decodeSteps === undefined || base.decodeSteps === 1 ? {} : { decodeSteps: base.decodeSteps };
  const prefixes = base.prefixPages === undefined ? {} : { prefixPages: base.prefixPages };
  const growth = base.tableGrowth === true ? { tableGrowth: true } : {};
  const config: Config = { pages, prefillLimit: base.prefillLimit, requests: base.requests, variant, faults: columnFaults(fault), ...steps, ...prefixes, ...growth };
  return withFaultSwitches(config);
}

/** Whether `fault` can fire on `pages` pages in some row: its witness applies there (the warning's test, cli/warnings.ts). */
const firesOn = (base: MatrixBase, pages: number, fault: Fault): boolean =>
  VARIANTS.some((v) => FAULT_WITNESSES[fault].appliesTo(compile(cellOn(base, pages, v, fault))));

/**
 * The pages column `fault` runs on: the base's, or, where the fault can fire there in no
 * row, the fewest more on which it can (up to every prompt's pages at once, past which more
 * pages let no more requests in flight together); the base's when none can.
 */
export function columnPages(base: MatrixBase, fault: Fault): number {
  if (firesOn(base, base.pages, fault)) return base.pages;
  const all = compile(cellOn(base, base.pages, 'buggy', fault)).promptPages.reduce((a, b) => a + b, 0);
  for (let pages = base.pages + 1; pages <= all; pages++) if (firesOn(base, pages, fault)) return pages;
  return base.pages;
}

/** The configuration of one cell: its column's pages ({@link columnPages}); a fault that acts only under a switch (`FAULT_NEEDS`: `lock-underflow` where the prefix cache evicts, retraction's faults where D retracts) has it turned on in its cells. */
export function cellConfig(base: MatrixBase, variant: Variant, fault: Fault): Config {
  return cellOn(base, columnPages(base, fault), variant, fault);
}

/** Runs every cell on `base` (default: `matrixConfig`), exploring each whole space. */
export function runMatrix(base: MatrixBase = matrixConfig('buggy'), options: MatrixOptions = {}): MatrixResult {
  const variants = options.variants ?? VARIANTS;
  const faults = options.faults ?? FAULTS;
  const cells: MatrixCell[] = [];
  const pages = new Map(faults.map((f) => [f, columnPages(base, f)]));
  for (const variant of variants) {
    for (const fault of faults) {
      const result = check(checkedModel(compile(cellOn(base, pages.get(fault)!, variant, fault))), {
        continueAfterViolation: true,
        symmetry: options.symmetry ?? true,
        invariants: INVARIANTS,
      });
      const leak = result.violations.find((v) => v.invariant === 'Isolation');
      const garbage = result.violations.find((v) => v.invariant === 'Integrity');
      cells.push({
        variant,
        fault,
        pages: pages.get(fault)!,
        isolation: leak === undefined ? 'holds' : 'leak',
        traceLength: leak === undefined ? null : leak.trace.steps.length,
        integrity: garbage === undefined ? 'holds' : 'garbage',
        integrityTraceLength: garbage === undefined ? null : garbage.trace.steps.length,
        distinctStates: result.distinctStates,
        depth: result.depth,
        brokenInvariants: result.violations.filter((v) => v.invariant !== 'Isolation' && v.invariant !== 'Integrity').map((v) => v.invariant),
        witnesses: result.witnesses,
      });
    }
  }
  const steps = base.decodeSteps === undefined || base.decodeSteps === 1 ? {} : { decodeSteps: base.decodeSteps };
  const prefixes = base.prefixPages === undefined ? {} : { prefixPages: base.prefixPages };
  const growth = base.tableGrowth === true ? { tableGrowth: true } : {};
  return { base: { pages: base.pages, prefillLimit: base.prefillLimit, requests: base.requests, ...steps, ...prefixes, ...growth }, cells };
}
