/** Reading pan's report: every figure from its own line, and a missing figure is an error, never a zero. */
import { describe, expect, it } from 'vitest';
import { PanOutputError, parsePanReport, trailSteps } from '../../spin/pan-report.ts';

/** pan's report of the minimal incident, buggy, stopped at its first error (SPIN 6.5.2). */
const VIOLATION = `pan:1: assertion violated Isolation (at depth 8)
pan: wrote model.pml.trail

(Spin Version 6.5.2 -- 6 December 2019)
Warning: Search not completed
	+ Breadth-First Search

Full statespace search for:
	never claim         	- (none specified)
	assertion violations	+
	cycle checks       	- (disabled by -DSAFETY)
	invalid end states	+

State-vector 52 byte, depth reached 8, errors: 1
       17 states, stored
	      17 nominal states (stored-atomic)
        0 states, matched
       17 transitions (= stored+matched)
        0 atomic steps
hash conflicts:         0 (resolved)

Stats on memory usage (in Megabytes):
    0.001	equivalent memory usage for states (stored*(State-vector + overhead))
    0.264	actual memory usage for states
    0.500	memory used for hash table (-w16)
    0.695	total actual memory usage



pan: elapsed time 0 seconds
`;

/** The tail of a complete run with -A (5 pages, requests 2,3:s,2:s,1, three faults; SPIN 6.5.2), with the rate line that short runs lack. */
const COMPLETE = `State-vector 68 byte, depth reached 26, errors: 0
  3991600 states, stored
	3.9916e+06 nominal states (stored-atomic)
  5940184 states, matched
  9931784 transitions (= stored+matched)
        0 atomic steps
hash conflicts:    970165 (resolved)

Stats on memory usage (in Megabytes):
  334.988	equivalent memory usage for states (stored*(State-vector + overhead))
  559.342	actual memory usage for states
   64.000	memory used for hash table (-w23)
  623.082	total actual memory usage



pan: elapsed time 17 seconds
pan: rate 235076.56 states/second
`;

describe('parsePanReport', () => {
  it('reads a violation: the assertion, and pan depth one less than the trail', () => {
    expect(parsePanReport(VIOLATION)).toEqual({
      statesStored: 17,
      transitions: 17,
      depth: 8,
      stateVectorBytes: 52,
      memoryMb: 0.695,
      hashTableMb: 0.5,
      elapsedSeconds: 0,
      statesPerSecond: null,
      assertion: 'Isolation',
      errors: 1,
      incomplete: null,
    });
  });

  it('reads a complete run with its rate', () => {
    const r = parsePanReport(COMPLETE);
    expect([r.statesStored, r.transitions, r.depth, r.memoryMb, r.elapsedSeconds, r.statesPerSecond]).toEqual([
      3991600, 9931784, 26, 623.082, 17, 235076.56,
    ]);
    expect(parsePanReport(COMPLETE.replace('  3991600 states, stored', '1.2345678e+08 states, stored')).statesStored).toBe(123456780);
    expect(r.assertion).toBeNull();
    expect(r.incomplete).toBeNull();
  });

  it('flags a search cut short, and refuses a report without its figures', () => {
    expect(parsePanReport(`error: max search depth too small\n${COMPLETE}`).incomplete).toBe('max search depth too small');
    expect(() => parsePanReport(COMPLETE.replace('states, stored', 'states stored'))).toThrow(PanOutputError);
    expect(() => parsePanReport('')).toThrow(/State-vector/);
  });
});

describe('trailSteps', () => {
  it('counts the steps of a trail file, not its header', () => {
    expect(trailSteps('-4:-4:-4\n1:0:146\n2:0:440\n3:0:954\n')).toBe(3);
    expect(trailSteps('-4:-4:-4\n')).toBe(0);
  });
});
