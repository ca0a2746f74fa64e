import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { decodeConfig, FAULTS, LIMITS } from '../../spec/index.ts';

const messages = (input: unknown): string[] => {
  const result = decodeConfig(input);
  return Either.isLeft(result) ? result.left.issues.map((i) => `${i.path}: ${i.message}`) : [];
};

describe('configuration decoding', () => {
  it('fills in names, the default variant and the variant’s own faults', () => {
    const result = decodeConfig({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }] });
    expect(Either.getOrThrow(result)).toEqual({
      pages: 3,
      prefillLimit: 2,
      requests: [
        { name: 'A', length: 2 },
        { name: 'B', length: 3, prefix: 'sys' },
      ],
      variant: 'buggy',
      faults: ['silent-stub'],
    });
    const fixed = decodeConfig({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }], variant: 'length-fix' });
    expect(Either.getOrThrow(fixed).faults).toEqual([]);
  });

  it('names the field and the value of every problem', () => {
    expect(messages({ pages: 0, prefillLimit: 2, requests: [{ length: -1 }], variant: 'fast' })).toEqual([
      'pages: expected a number of pages: a whole number from 1 to 65535, got 0',
      'requests[0].length: expected a length in tokens: a whole number from 1 to 65535, got -1',
      'variant: expected one of buggy, length-fix, owner-check, hardened, got "fast"',
    ]);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }], faults: ['early-free', 'late-free'] })).toEqual([
      `faults[1]: expected one of ${FAULTS.join(', ')}, got "late-free"`,
    ]);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }], colour: 'red' })[0]).toMatch(/^colour: is unexpected/);
  });

  it('refuses what the encoding or the pool cannot hold', () => {
    const many = Array.from({ length: LIMITS.maxRequests + 1 }, () => ({ length: 1 }));
    expect(messages({ pages: 3, prefillLimit: 2, requests: many })).toEqual([
      'requests: the state encoding supports at most 4096 requests, got 4097',
    ]);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 4 }] })).toEqual([
      "requests[0].length: 4 pages is more than the pool's 3; such a request can never be allocated",
    ]);
    expect(messages({ pages: 3, pageSize: 2, prefillLimit: 2, requests: [{ length: 7 }] })).toEqual([
      "requests[0].length: 7 tokens (4 pages of 2) is more than the pool's 3; such a request can never be allocated",
    ]);
    expect(messages({ pages: 3, pageSize: 256, prefillLimit: 2, requests: [{ length: 1 }] })).toEqual([
      "pageSize: a state counts a page's written slots in one byte: at most 255 tokens per page, got 256",
    ]);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }], lengthRule: 'gte' })).toEqual(['lengthRule: expected one of gt, ge, got "gte"']);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [] })).toEqual(['requests: expected at least one request, got []']);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 1, prefix: 'sys' }] })[0]).toMatch(/prefix needs at least 2 pages/);
    expect(messages({ pages: 3, prefillLimit: 2, requests: [{ length: 1, name: 'A' }, { length: 1, name: 'A' }] })).toEqual([
      'requests[1].name: duplicate request name "A"',
    ]);
  });
});
