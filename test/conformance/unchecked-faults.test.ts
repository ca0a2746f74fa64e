/**
 * A log whose faults validate-log does not check is bad input, named by its field and the
 * faults (conformance/validate.ts `resolveModel`). npm run mutation's seed-28 sample found
 * that message (line 107: the field and the three string parts emptied) reached by no test
 * of conformance/.
 */
import { describe, expect, it } from 'vitest';
import { validate } from '../../conformance/index.ts';

const log = (faults: readonly string[]) =>
  [{ kind: 'config', pages: 4, prefillLimit: 4, variant: 'buggy', faults }, { kind: 'arrive', id: 'A', length: 1 }].map((e, i) => ({ file: 'f.jsonl', line: i + 1, text: JSON.stringify(e) }));

describe('faults validate-log does not check', () => {
  it('torn-write and auto-truncate: refused at the first event, naming the field, the faults and those it checks', () => {
    expect(() => validate({ files: [], lines: log(['torn-write', 'auto-truncate']), overrides: {}, window: 8 })).toThrow(
      'f.jsonl:2: faults: validate-log does not check logs with torn-write, auto-truncate yet; it checks silent-stub, early-free, stale-free, prefix-poison, double-free, lock-underflow',
    );
  });

  it('the faults it checks are taken', () => {
    expect(validate({ files: [], lines: log(['silent-stub', 'double-free']), overrides: {}, window: 8 }).verdict).toBe('conforms');
  });
});
