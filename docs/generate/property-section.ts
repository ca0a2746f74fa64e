/**
 * "Properties": the invariants and the non-vacuity witnesses with their prose (the doc
 * comments of the exported constants of the same name, in `invariants.ts` and
 * `witnesses.ts`), and which
 * witnesses the checker reached in each run of the document.
 */
import { INVARIANTS, WITNESSES, type Property } from '../../spec/index.ts';
import type { CheckResult } from '../../checker/index.ts';
import { cell, code, prose, table, type Section } from './markdown.ts';
import { moduleProse } from './model-sections.ts';
import type { SpecDocs } from './sources.ts';

/**
 * The states a witness run explores at most while every witness that applies is still to
 * be reached. The every-fault runs reach all of theirs within their first 300,000 states of
 * 11.4 million (buggy, length-fix); owner-check's reaches `AllServed` past 1,000,000 and
 * within 2,000,000 of its 9.2 million, and with a budget of 1,000,000 it searched the whole
 * space after the capped run (about 40 s of the document's CPU).
 */
export const WITNESS_BUDGET = 2_000_000;

/** One checker run shown as a column of the witness table. */
export interface WitnessRun {
  /** The column's heading. */
  readonly label: string;
  /** The command that reproduces it. */
  readonly command: string;
  /** What the checker found. */
  readonly result: CheckResult;
}

/** `- **Name**: prose` for each property, its prose from the constant of the same name. */
function propertyList(docs: SpecDocs, properties: readonly Property[]): string {
  return properties.map((p) => `- **${code(p.name)}**: ${prose(docs.declared(p.name).text)}`).join('\n');
}

/** A witness's cell in one run: reached, not reached (a vacuity alarm), or not expected there. */
function witnessCell(run: WitnessRun, name: string): string {
  const w = run.result.witnesses.find((x) => x.name === name);
  if (w === undefined) return 'not reported';
  if (!w.applies) return w.reached ? 'reached (n/a)' : 'n/a';
  return w.reached ? 'reached' : '**NOT REACHED**';
}

/** The whole "Properties" section. */
export function propertiesSection(docs: SpecDocs, runs: readonly WitnessRun[]): Section {
  const file = docs.file('spec/properties.ts');
  const rows = WITNESSES.map((w) => [code(w.name), ...runs.map((r) => witnessCell(r, w.name))]);
  return {
    heading: 'Properties',
    body: [
      moduleProse(file),
      '### Invariants',
      prose(docs.declared('INVARIANTS').text),
      propertyList(docs, INVARIANTS),
      '### Witnesses',
      prose(docs.declared('WITNESSES').text),
      propertyList(docs, WITNESSES),
      '### Witnesses reached',
      [
        `Each column is one run of the checker, which goes on past violations and explores at most ${WITNESS_BUDGET.toLocaleString('en-US')} states (\`--max-states\`) when every witness that applies is reached within them; a run where one is not searches the whole reachable state space instead.`,
        '*n/a*: the witness does not apply to that configuration (say, no over-long request), so it is not expected.',
      ].join(' '),
      table(['Witness', ...runs.map((r) => cell(r.label))], rows),
      `Reproduce:\n\n${runs.map((r) => `- ${cell(r.label)}: ${code(r.command)}`).join('\n')}`,
    ].join('\n\n'),
  };
}
