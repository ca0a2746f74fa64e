/**
 * The figures that come from the model checker: the minimal leak (its text trace and its
 * sequence diagram), the witnesses reached, and the variant and fault matrix. They are
 * computed by running the checker every time the document is generated, so the document
 * cannot show a counterexample the spec no longer produces.
 */
import { check, type CheckResult, type Violation } from '../../checker/index.ts';
import { cellConfig, runMatrix, type MatrixCell } from '../../matrix/matrix.ts';
import { compile, FAULTS, incidentConfig, matrixConfig, VARIANTS, withFaultSwitches, type Config, type Model, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { formatTrace } from '../../trace/index.ts';
import { toMermaid } from '../../trace/mermaid.ts';
import { commandFor, NPM_PAGECHECK } from './commands.ts';
import { cell, code, fence, table, type Section } from './markdown.ts';
import { WITNESS_BUDGET, type WitnessRun } from './property-section.ts';

/** The minimal leak and what the other variants make of the same configuration. */
export interface LeakFigure {
  /** The configuration: `incidentConfig('buggy')`. */
  readonly config: Config;
  /** The command that prints the same counterexample. */
  readonly command: string;
  /** The checker's result. */
  readonly result: CheckResult;
  /** The `Isolation` violation. */
  readonly violation: Violation;
  /** The trace as text, without colour. */
  readonly text: string;
  /** The trace as a Mermaid sequence diagram. */
  readonly mermaid: string;
  /** The same configuration under every variant. */
  readonly variants: readonly { readonly variant: Variant; readonly command: string; readonly result: CheckResult }[];
}

/** Every figure of the document that comes from the checker. */
export interface Figures {
  /** The minimal leak. */
  readonly leak: LeakFigure;
  /** The witness table's runs. */
  readonly witnessRuns: readonly WitnessRun[];
  /** The matrix's cells, in the order `runMatrix` gives them. */
  readonly matrix: readonly MatrixCell[];
}

/** The heading of the minimal leak's section, linked from the summary. */
export const LEAK_HEADING = 'The minimal leak';

/** The heading of the matrix's section, linked from the summary. */
export const MATRIX_HEADING = 'Variant and fault matrix';

/** The matrix command. */
export const MATRIX_COMMAND = `${NPM_PAGECHECK} matrix`;

/** One column of the witness table: at most {@link WITNESS_BUDGET} states, going on past violations; the whole space when a witness that applies is not reached within them, so that "not reached" is never the budget's doing. */
export function witnessRun(label: string, config: Config, budget = WITNESS_BUDGET): WitnessRun {
  const m = checkedModel(compile(config));
  const capped = check(m, { continueAfterViolation: true, maxStates: budget });
  if (capped.witnesses.every((w) => !w.applies || w.reached)) return { label, command: commandFor('check', config, `--continue --max-states ${budget}`), result: capped };
  return { label, command: commandFor('check', config, '--continue'), result: check(m, { continueAfterViolation: true }) };
}

/** Runs the checker for every figure. */
export function computeFigures(): Figures {
  const config = incidentConfig('buggy');
  const m: Model = compile(config);
  const result = check(checkedModel(m));
  const violation = result.violations.find((v) => v.invariant === 'Isolation');
  if (violation === undefined) throw new Error('the checker found no Isolation violation in incidentConfig("buggy"): the minimal leak is gone');
  const variants = VARIANTS.map((variant) => {
    const c = incidentConfig(variant);
    return { variant, command: commandFor('check', c), result: variant === 'buggy' ? result : check(checkedModel(compile(c))) };
  });
  const witnessRuns = VARIANTS.flatMap((variant): WitnessRun[] => {
    const minimal = incidentConfig(variant);
    // Every fault, with the switches they act under (eviction, retraction): none is left unable to fire. Issue 24's
    // faults are left out: premature-success and --draft are not modelled with retraction (spec/config-checks.ts), and each multiplies
    // a space that is already millions of states (parts landing through decode, a metadata slot, P's source pages under
    // every fault: the document took ten CPU minutes with them); docs/WIRE.md has their runs.
    // The host cache's two need --loadback, which the retraction these runs turn on makes inert (spec/layout.ts): they would only add the flag.
    const wire: readonly string[] = ['premature-success', 'aux-torn', 'source-early-free', 'draft-stale', 'state-slot-reuse', 'metadata-collision', 'host-evict-during-load', 'read-before-load'];
    const everything = withFaultSwitches(matrixConfig(variant, FAULTS.filter((f) => !wire.includes(f))));
    return [witnessRun(`${variant}, minimal incident`, minimal), witnessRun(`${variant}, matrix config, every fault but issue 24's`, everything)];
  });
  return {
    leak: {
      config,
      command: commandFor('check', config),
      result,
      violation,
      text: formatTrace(m, violation.trace, { color: false, violation: violation.invariant }),
      mermaid: toMermaid(m, violation.trace, violation.invariant),
      variants,
    },
    witnessRuns,
    matrix: runMatrix().cells,
  };
}

/** "The minimal leak": the counterexample as a diagram and as text, and the other variants' verdicts. */
export function leakSection(figures: Figures): Section {
  const { leak } = figures;
  const names = leak.config.requests.map((q) => `${q.name} (${q.length} pages)`).join(' then ');
  const rows = leak.variants.map((v) => [
    code(v.variant),
    v.result.verdict,
    v.result.violations.map((x) => `${code(x.invariant)} after ${x.depth} steps`).join(', ') || 'none',
    String(v.result.distinctStates),
    code(v.command),
  ]);
  return {
    heading: LEAK_HEADING,
    body: [
      [
        `The incident in its smallest form (${code('incidentConfig')}): ${leak.config.pages} pages, prefill limit ${leak.config.prefillLimit}, requests ${names}.`,
        `Under ${code('buggy')} the checker finds that ${code(leak.violation.invariant)} fails; the shortest counterexample, found breadth-first,`,
        `has ${leak.violation.depth} actions (${leak.result.distinctStates} distinct states explored).`,
      ].join(' '),
      '### As a sequence diagram',
      fence('mermaid', leak.mermaid),
      '### As a text trace',
      fence('text', leak.text),
      `Reproduce both: ${code(leak.command)} prints the trace (add ${code('--mermaid FILE')} for the diagram).`,
      '### The same configuration under each variant',
      table(['Variant', 'Verdict', 'Invariants broken', 'Distinct states', 'Command'], rows),
    ].join('\n\n'),
  };
}

/** "Variant and fault matrix": every variant against every fault, on the matrix configuration. */
export function matrixSection(figures: Figures): Section {
  const cells = figures.matrix;
  const faults = FAULTS.filter((f) => cells.some((c) => c.fault === f));
  const at = (v: Variant, f: string): MatrixCell | undefined => cells.find((c) => c.variant === v && c.fault === f);
  const grid = VARIANTS.map((v) => [
    code(v),
    ...faults.map((f) => {
      const c = at(v, f);
      if (c === undefined) return '';
      return c.isolation === 'leak' ? `**leak** in ${c.traceLength} steps` : 'holds';
    }),
  ]);
  const details = cells.map((c) => [
    code(c.variant),
    code(c.fault),
    c.isolation,
    c.traceLength === null ? '-' : String(c.traceLength),
    String(c.distinctStates),
    c.brokenInvariants.length === 0 ? 'none' : c.brokenInvariants.map(code).join(', '),
    code(commandFor('check', cellConfig(matrixConfig(c.variant), c.variant, c.fault))),
  ]);
  return {
    heading: MATRIX_HEADING,
    body: [
      `Each cell is one run of the checker on ${code('matrixConfig')} with that variant and that one fault switched on: does ${code('Isolation')} hold, or is there a leak (and in how many steps, at the shortest)? A column whose fault cannot fire on its pages runs on the fewest where it can (${code('columnPages')}; each cell's command says how many).`,
      table(['Variant', ...faults.map(code)], grid),
      'Per cell: the length of the shortest leak, the size of the whole reachable space (the search goes on past violations), the invariants other than `Isolation` that break, and the command that runs the cell on its own (it prints the shortest counterexample of each invariant that fails).',
      table(['Variant', 'Fault', 'Isolation', 'Shortest leak', 'Distinct states', 'Other invariants broken', 'Command'], details.map((r) => r.map(cell))),
      `Reproduce the whole matrix: ${code(MATRIX_COMMAND)}.`,
    ].join('\n\n'),
  };
}
