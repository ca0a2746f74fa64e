/**
 * The README's table of designs against faults, in words: per variant and fault (the
 * `matrix` run on its configuration), whether the design lets the fault leak, lets it read
 * garbage, turns it into a loud failure (its check fails the request), refuses the prompt,
 * or holds with nothing going wrong at a read. A column that runs on pages of its own
 * (matrix/matrix.ts, `columnPages`: `state-slot-reuse` and `metadata-collision` need two
 * requests in flight together, which the matrix's 3 pages never hold) says how many in its
 * heading; a fault whose witness still applies in no cell of its column cannot fire, and
 * says so. Derived from the matrix's cells and their witnesses, not written by hand.
 */
import { checkedModel } from '../binding/index.ts';
import { check } from '../checker/index.ts';
import { runMatrix, type MatrixCell } from '../matrix/matrix.ts';
import { configArgs } from '../spec/config-flags.ts';
import { actionLabel, compile, FAULT_WITNESSES, FAULTS, REMOVAL_LIST, VARIANTS, withoutMechanism, type Fault } from '../spec/index.ts';
import type { Figure } from './readme-figures.ts';

/** The mechanisms of `hardened` that stop fault `f` (spec/removals.ts), as the designs table names them after hardened's word. */
const stoppedBy = (f: Fault): string => {
  const by = REMOVAL_LIST.filter((r) => r.stops.includes(f)).map((r) => `\`${r.mechanism}\``);
  return by.length === 0 ? '' : ` · ${by.join(', ')}`;
};

/** Whether witness `name` was reached in the cell. */
const reached = (c: MatrixCell, name: string): boolean => c.witnesses.some((w) => w.name === name && w.reached);

/** Whether the fault's witness applies in no cell of its column: it cannot fire there even on its column's own pages, and every cell would hold vacuously (no column of the default matrix). */
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
  // The matrix's 76 searches: about 4 CPU seconds (checked in the heavy tier, test/docs/figures-slow.test.ts).
  slow: true,
  render: async () => {
    const { base, cells } = runMatrix();
    const faults = FAULTS.filter((f) => cells.some((c) => c.fault === f));
    const cell = (v: (typeof VARIANTS)[number], f: Fault): string => word(cells.find((c) => c.variant === v && c.fault === f)!, cells) + (v === 'hardened' ? stoppedBy(f) : '');
    const rows = VARIANTS.map((v) => `| \`${v}\` | ${faults.map((f) => cell(v, f)).join(' | ')} |`);
    // A column on pages of its own says so: the README's command for it is `matrix`'s replay line, which carries them.
    const pages = (f: Fault): string => {
      const own = cells.find((c) => c.fault === f && c.pages !== base.pages);
      return own === undefined ? '' : ` (${own.pages} pages)`;
    };
    return [`| design | ${faults.map((f) => `\`${f}\`${pages(f)}`).join(' | ')} |`, `|---|${faults.map(() => '---').join('|')}|`, ...rows].join('\n');
  },
};

/** docs/VARIANTS.md's table of removals: each mechanism of `hardened`, the faults it stops, the command that removes it and what the checker then finds, and its verdict with the mechanism on. */
export const removals: Figure = {
  name: 'removals',
  file: 'docs/VARIANTS.md',
  // Two searches per mechanism: about 1.5 CPU seconds (checked in the heavy tier).
  slow: true,
  render: async () => {
    const rows = REMOVAL_LIST.map((r) => {
      const config = withoutMechanism(r.mechanism);
      const m = compile(config);
      const bare = check(checkedModel(m));
      const v = bare.violations[0];
      const loud = bare.witnesses.some((w) => w.name === 'FailsLoudly' && w.reached);
      const found = v === undefined ? `${bare.verdict}: no leak, ${r.loud === true && loud ? 'but the request fails loudly (the owner check)' : 'nothing to stop here'}` : `${v.invariant} in ${v.trace.steps.length} actions: ${v.trace.steps.map((s) => actionLabel(m, s.action)).join(' ')}`;
      const held = check(checkedModel(compile(r.config)));
      return `| \`${r.mechanism}\` | ${r.stops.map((f) => `\`${f}\``).join(', ')} | \`npm run -s pagecheck -- check ${configArgs(config, true).join(' ')}\` | ${found} | ${held.verdict}, ${held.distinctStates.toLocaleString('en-US')} states |`;
    });
    return ['| mechanism | stops | hardened without it | the checker finds | with it |', '|---|---|---|---|---|', ...rows].join('\n');
  },
};
