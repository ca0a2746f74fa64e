/**
 * Partial-order reduction against none (issue 26, items 1 and 6): `check --por` and
 * `check --no-por` as whole processes of the compiled command, one worker, one pair after
 * the other in one run, on the benchmark configuration (handwritten.ts's: 9 pages, prefill
 * limit 3, requests 1,2,2,3,3,4,5, no symmetry) under `length-fix`, `owner-check` and
 * `hardened`, with symmetry, `hardened` with stale and double releases and with torn
 * writes (6 pages, 1,2,2,3,3), with table growth, and on a leak (where the reduced search
 * meets the violation and the plain one finds its shortest trace again, so the reduction
 * costs rather than pays). Reported per pair: both runs' figures and the ratios of states,
 * CPU seconds and wall seconds; the verdicts must agree. The machine is shared: ratios of
 * CPU seconds, within one run, are the figures to read.
 */
import { checkFigures, round } from './whole-process.ts';

const log = (line: string): void => void process.stderr.write(`bench por: ${line}\n`);

const NINE = ['--pages', '9', '--prefill-limit', '3', '--requests', '1,2,2,3,3,4,5'];

/** The configurations, by name, as `check` flags. */
const PAIRS: readonly (readonly [string, readonly string[]])[] = [
  ['length-fix', [...NINE, '--variant', 'length-fix', '--no-symmetry']],
  ['owner-check', [...NINE, '--variant', 'owner-check', '--no-symmetry']],
  ['hardened', [...NINE, '--variant', 'hardened', '--no-symmetry']],
  ['length-fix, symmetry', [...NINE, '--variant', 'length-fix']],
  ['hardened, stale-free and double-free', ['--pages', '6', '--prefill-limit', '3', '--requests', '1,2,2,3,3', '--variant', 'hardened', '--faults', 'silent-stub,stale-free,double-free', '--no-symmetry']],
  ['torn writes (hardened)', ['--pages', '6', '--prefill-limit', '3', '--requests', '1,2,2,3,3', '--variant', 'hardened', '--faults', 'silent-stub,torn-write', '--no-symmetry']],
  ['table growth', ['--pages', '8', '--prefill-limit', '3', '--requests', '1,2,2,3', '--variant', 'length-fix', '--decode-steps', '3', '--table-growth', '--no-symmetry', '--no-deadlock']],
  ['a leak (buggy, stops at it)', ['--pages', '7', '--prefill-limit', '2', '--requests', '2,3,2,3,2,1', '--variant', 'buggy', '--no-symmetry']],
];

/** One pair: without the reduction, then with it. */
function pair(name: string, flags: readonly string[]): Record<string, unknown> {
  log(`${name}: --no-por ...`);
  const plain = checkFigures([...flags, '--no-por'], 1, log);
  log(`${name}: --por ...`);
  const reduced = checkFigures([...flags, '--por'], 1, log);
  const ratio = (key: string): number => round(Number(plain[key]) / Number(reduced[key]));
  return {
    flags: flags.join(' '),
    agree: plain['verdict'] === reduced['verdict'],
    plain,
    reduced,
    ratios: { states: ratio('distinctStates'), cpuSeconds: ratio('cpuSeconds'), processSeconds: ratio('processSeconds') },
  };
}

/** Runs every pair; the figures MEASURED.md shows. */
export async function run(): Promise<Record<string, unknown>> {
  const pairs: Record<string, unknown> = {};
  for (const [name, flags] of PAIRS) pairs[name] = pair(name, flags);
  return {
    compared: 'check --no-por against check --por, whole processes of the compiled command, one worker, one after the other',
    pairs,
  };
}
