/**
 * Reading what SPIN's verifier (`pan`) prints: the state count, depth, memory, time and
 * the first error. pan's report is plain text meant for people; each figure is taken from
 * the line that names it, and a figure that is missing is an error rather than a zero,
 * so that a change in pan's format cannot pass for an empty state space.
 */

/** The figures of one pan run. */
export interface PanReport {
  /** "states, stored": every distinct state, the initial one included. */
  readonly statesStored: number;
  /** "transitions (= stored+matched)". */
  readonly transitions: number;
  /** "depth reached": the deepest breadth-first level pan expanded or reached. */
  readonly depth: number;
  /** "State-vector N byte": the stored size of one state, before pan's own overhead. */
  readonly stateVectorBytes: number;
  /** "total actual memory usage", in megabytes (2^20 bytes). */
  readonly memoryMb: number;
  /** "memory used for hash table", in megabytes. */
  readonly hashTableMb: number;
  /** "pan: elapsed time", in seconds, as pan measured its own search. */
  readonly elapsedSeconds: number;
  /** "pan: rate", states per second, when pan printed one (it does not for very short runs). */
  readonly statesPerSecond: number | null;
  /** The text of the first assertion that failed (`Isolation`), or null. */
  readonly assertion: string | null;
  /** pan's error count. */
  readonly errors: number;
  /** Why the search did not finish (depth limit, memory), or null when it did. */
  readonly incomplete: string | null;
}

/** Raised when pan's output lacks a figure that every complete report has. */
export class PanOutputError extends Error {
  constructor(what: string, output: string) {
    super(`pan's report has no ${what}; output was:\n${output.slice(0, 2000)}`);
    this.name = 'PanOutputError';
  }
}

/** Parses pan's standard output. */
export function parsePanReport(output: string): PanReport {
  // pan prints counts with %9.8g and times with %.3g: integers up to 10^8, then e-notation.
  const number = (pattern: RegExp, what: string): number => {
    const found = pattern.exec(output);
    if (found?.[1] === undefined) throw new PanOutputError(what, output);
    return Number(found[1]);
  };
  const vector = /State-vector (\d+) byte, depth reached (\d+), errors: (\d+)/.exec(output);
  if (vector === null) throw new PanOutputError('"State-vector ... depth reached ... errors" line', output);
  const rate = /pan: rate\s+([\d.eE+]+) states\/second/.exec(output);
  const assertion = /assertion violated (.+?) \(at depth \d+\)/.exec(output);
  return {
    statesStored: number(/^\s*([\d.eE+]+) states, stored/m, '"states, stored"'),
    transitions: number(/^\s*([\d.eE+]+) transitions \(= stored\+matched\)/m, '"transitions"'),
    depth: Number(vector[2]),
    stateVectorBytes: Number(vector[1]),
    memoryMb: number(/^\s*([\d.]+)\s+total actual memory usage/m, '"total actual memory usage"'),
    hashTableMb: number(/^\s*([\d.]+)\s+memory used for hash table/m, '"memory used for hash table"'),
    elapsedSeconds: number(/pan: elapsed time ([\d.eE+]+) seconds/, '"elapsed time"'),
    statesPerSecond: rate?.[1] === undefined ? null : Number(rate[1]),
    assertion: assertion?.[1] ?? null,
    errors: Number(vector[3]),
    incomplete: incompleteReason(output),
  };
}

/** pan's own words for a search cut short, if any. */
function incompleteReason(output: string): string | null {
  if (/max search depth too small/.test(output)) return 'max search depth too small';
  if (/out of memory/i.test(output)) return 'out of memory';
  if (/Search not completed/.test(output) && !/errors: [1-9]/.test(output)) return 'search not completed';
  return null;
}

/** The number of steps in a trail file: one `depth:pid:transition` line per step, after pan's negative header lines. */
export function trailSteps(trail: string): number {
  return trail.split('\n').filter((line) => /^\d+:\d+:\d+$/.test(line.trim())).length;
}
