/**
 * `pagecheck demo` (what `npm start` runs): the incident in its smallest configuration,
 * checked under the four variants. The buggy one leaks, and its shortest counterexample
 * is printed step by step; the two fixes hold, with their witnesses. Exit 0 when that is
 * what the checker finds, 1 when anything else comes out.
 */
import type { Command } from 'commander';
import { check, type CheckResult } from '../../checker/index.ts';
import { compile, incidentConfig, VARIANTS, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { formatTrace, shouldColor } from '../../trace/index.ts';
import { EXIT } from '../errors.ts';
import { actionsIn, count, describeConfig, replayCommand, unreachedWitnesses } from '../search-report.ts';

/** What the demo expects of a variant: a leak, or a verdict that holds with every witness reached. */
const EXPECTED: Readonly<Record<Variant, 'leak' | 'holds'>> = { buggy: 'leak', 'length-fix': 'holds', 'owner-check': 'holds', hardened: 'holds' };

/** Whether a variant's result is what the demo expects; otherwise, why not. */
function surprise(variant: Variant, result: CheckResult): string | undefined {
  const leak = result.violations[0]?.invariant === 'Isolation';
  if (EXPECTED[variant] === 'leak') return leak ? undefined : `${variant} was expected to violate Isolation; verdict ${result.verdict}`;
  if (result.verdict !== 'holds') return `${variant} was expected to hold; verdict ${result.verdict} (${result.violations.map((v) => v.invariant).join(', ')})`;
  const unreached = unreachedWitnesses(result.witnesses);
  return unreached.length === 0 ? undefined : `${variant}: witness ${unreached.join(', ')} not reached`;
}

/** Runs the demo; returns the exit code. */
export function runDemo(): number {
  const color = shouldColor(process.stdout);
  const bold = (s: string): string => (color ? `\u001b[1m${s}\u001b[0m` : s);
  const out: string[] = [
    bold('pagecheck demo: the KV-cache leak of the P/D incident, in its smallest configuration'),
    `${describeConfig(incidentConfig('buggy')).split(' · ').slice(1, -1).join(' · ')}; each variant with its own faults`,
    '',
  ];
  const problems: string[] = [];
  for (const variant of VARIANTS) {
    const config = incidentConfig(variant);
    const m = compile(config);
    const result = check(checkedModel(m));
    const problem = surprise(variant, result);
    if (problem !== undefined) problems.push(problem);
    const first = result.violations[0];
    if (first !== undefined) {
      out.push(
        bold(`${variant}: ${first.invariant} VIOLATED`) + ` — shortest counterexample, ${actionsIn(first.trace.steps.length)} (${count(result.distinctStates)} states explored)`,
        '',
        formatTrace(m, first.trace, { color, violation: first.invariant }),
        '',
        `replay: ${replayCommand(config)}`,
        '',
      );
      continue;
    }
    const reached = result.witnesses.filter((w) => w.applies && w.reached).map((w) => w.name);
    const unreached = unreachedWitnesses(result.witnesses);
    out.push(
      bold(`${variant}: ${result.verdict.toUpperCase()}`) +
        ` — every invariant, ${count(result.distinctStates)} states, depth ${result.depth}; witnesses reached: ${reached.join(', ') || 'none'}` +
        (unreached.length === 0 ? '' : `; NOT reached: ${unreached.join(', ')}`),
    );
  }
  out.push('');
  if (problems.length === 0) out.push('as expected: buggy leaks, length-fix, owner-check and hardened hold, every witness reached.');
  else out.push(...problems.map((p) => `UNEXPECTED: ${p}`));
  process.stdout.write(`${out.join('\n')}\n`);
  return problems.length === 0 ? EXIT.ok : EXIT.violation;
}

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('demo')
    .description('check the four variants on the minimal incident: print the buggy counterexample and the fixed verdicts (what npm start runs)')
    .action(() => {
      process.exitCode = runDemo();
    });
}
