/**
 * The README's table of designs against faults, in words: per variant and fault (the
 * `matrix` run on its configuration), whether the design lets the fault leak, lets it read
 * garbage, turns it into a loud failure (its check fails the request), refuses the prompt,
 * or holds with nothing going wrong at a read; a fault whose witness applies in no cell of
 * its column cannot fire on that configuration, and says so. Derived from the matrix's cells and their
 * witnesses, not written by hand.
 */
import { runMatrix, type MatrixCell } from '../matrix/matrix.ts';
import { FAULT_WITNESSES, FAULTS, VARIANTS, type Fault } from '../spec/index.ts';
import type { Figure } from './readme-figures.ts';

/** Whether witness `name` was reached in the cell. */
const reached = (c: MatrixCell, name: string): boolean => c.witnesses.some((w) => w.name === name && w.reached);

/** Whether the fault's witness applies in no cell of its column: it cannot fire on the matrix's configuration (state-slot-reuse and metadata-collision need two requests in flight together), and every cell would hold vacuously. */
const cannotFire = (cells: readonly MatrixCell[], fault: Fault): boolean =>
  cells.filter((c) => c.fault === fault).every((c) => !c.witnesses.some((w) => w.name === FAULT_WITNESSES[fault].name && w.applies));

/** One cell in words. */
function word(c: MatrixCell, cells: readonly MatrixCell[]): string {
  if (cannotFire(cells, c.fault)) return 'cannot fire here';
  if (c.isolation === 'leak') return `**leaks** (${c.traceLength})`;
  if (c.integrity === 'garbage') return `garbage (${c.integrityTraceLength})`;
  if (reached(c, 'FailsLoudly')) return 'fails loudly';
  if (c.fault === 'silent-stub' && reached(c, 'OverLongRefused')) return 'refused';
  return 'holds';
}

/** The table, one row per design. */
export const designs: Figure = {
  name: 'designs',
  file: 'README.md',
  render: async () => {
    const { cells } = runMatrix();
    const faults = FAULTS.filter((f) => cells.some((c) => c.fault === f));
    const rows = VARIANTS.map((v) => `| \`${v}\` | ${faults.map((f) => word(cells.find((c) => c.variant === v && c.fault === f)!, cells)).join(' | ')} |`);
    return [`| design | ${faults.map((f) => `\`${f}\``).join(' | ')} |`, `|---|${faults.map(() => '---').join('|')}|`, ...rows].join('\n');
  },
};
