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
  it('auto-truncate and segment-overlap: refused at the first event, naming the field, the faults and those it checks', () => {
    expect(() => validate({ files: [], lines: log(['auto-truncate', 'segment-overlap']), overrides: {}, window: 8 })).toThrow(
      'f.jsonl:2: faults: validate-log does not check logs with auto-truncate, segment-overlap yet; it checks silent-stub, early-free, stale-free, prefix-poison, double-free, lock-underflow, torn-write',
    );
  });

  it('torn-write: read without an owner check, with the caveat in the verdict; refused with one, naming why', () => {
    const r = validate({ files: [], lines: log(['silent-stub', 'torn-write']), overrides: {}, window: 8 });
    expect([r.verdict, r.caveats?.[0]]).toEqual(['conforms', expect.stringContaining('torn-write: each write is taken to land whole')]);
    expect(() => validate({ files: [], lines: log(['torn-write']), overrides: { variant: 'owner-check' }, window: 8 })).toThrow(
      "f.jsonl:2: faults: validate-log reads torn-write logs only without an owner check: under one, a late write's content and tag parts can land apart",
    );
  });

  it('the faults it checks are taken', () => {
    expect(validate({ files: [], lines: log(['silent-stub', 'double-free']), overrides: {}, window: 8 }).verdict).toBe('conforms');
  });
});
