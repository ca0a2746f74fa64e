/**
 * The spec path a violation reports (validate.ts `specOf`, the trace `validate-log` prints
 * and replays) holds the actions the spec took, not the event that broke: an allocation of
 * a page another request holds is ExclusiveHold at its line, and the path ends before it.
 * npm run mutation's seed-27 sample found conformance/step.ts:305's guard (`r.kind === 'ok'`
 * made `true`, which appends the refused allocation) caught by no test of conformance/.
 */
import { describe, expect, it } from 'vitest';
import { validate } from '../../conformance/index.ts';

const lines = [
  { kind: 'config', pages: 4, prefillLimit: 4, variant: 'buggy', faults: [] },
  { kind: 'arrive', id: 'A', length: 2 },
  { kind: 'allocate', id: 'A', pages: [0, 1] },
  { kind: 'arrive', id: 'B', length: 2 },
  { kind: 'allocate', id: 'B', pages: [0, 1] },
].map((e, i) => ({ file: 'held.jsonl', line: i + 1, text: JSON.stringify(e) }));

describe('a violation at an allocation', () => {
  it('B allocates A\'s pages: ExclusiveHold at line 5, and the spec path is A\'s allocation only', () => {
    const r = validate({ files: [], lines, overrides: {}, window: 8 });
    expect([r.verdict, r.invariant, r.at?.line]).toEqual(['violation', 'ExclusiveHold', 5]);
    expect(r.spec).toEqual({ requests: [{ id: 'A', length: 2 }, { id: 'B', length: 2 }], actions: [{ kind: 'allocate', r: 0 }] });
  });
});
