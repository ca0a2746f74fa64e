/**
 * The README's table of designs against faults, in words: per variant and fault (the
 * `matrix` run on its configuration), whether the design lets the fault leak, lets it read
 * garbage, turns it into a loud failure (its check fails the request), refuses the prompt,
 * or holds with nothing going wrong at a read. Derived from the matrix's cells and their
 * witnesses, not written by hand.
 */
import { runMatrix, type MatrixCell } from '../matrix/matrix.ts';
import { FAULTS, VARIANTS } from '../spec/index.ts';
import type { Figure } from './readme-figures.ts';

/** Whether witness `name` was reached in the cell. */
const reached = (c: MatrixCell, name: string): boolean => c.witnesses.some((w) => w.name === name && w.reached);

/** One cell in words. */
function word(c: MatrixCell): string {
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
    const rows = VARIANTS.map((v) => `| \`${v}\` | ${faults.map((f) => word(cells.find((c) => c.variant === v && c.fault === f)!)).join(' | ')} |`);
    return [`| design | ${faults.map((f) => `\`${f}\``).join(' | ')} |`, `|---|${faults.map(() => '---').join('|')}|`, ...rows].join('\n');
  },
};
