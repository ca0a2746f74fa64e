/**
 * `prove --timeout`: a duration, `500ms` or `30s`, a bare number being seconds as it was
 * before milliseconds were accepted; anything else is bad input, exit 2, before z3 starts.
 * (test/proofs/timeout.test.ts makes z3 run out of time through the same flag.)
 */
import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../cli/duration.ts';
import { pagecheck } from '../support/cli.ts';

describe('a duration flag', () => {
  it.each([
    ['1ms', 1],
    ['500ms', 500],
    ['30s', 30_000],
    ['60', 60_000],
    [' 7 ', 7_000],
    ['3600s', 3_600_000],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text, 1, 3_600_000)).toEqual(Either.right(ms));
  });

  it.each(['0ms', '0', '3601s', '3600001ms', 'abc', '1.5s', '-1', '10m', '1e3', '', '99999999999999999999'])('%j is refused, naming the value', (text) => {
    expect(parseDuration(text, 1, 3_600_000)).toEqual(Either.left(`expected a duration from 1 ms to 3600 s, such as 500ms or 30s (a bare number is seconds), got ${JSON.stringify(text)}`));
  });

  it('prove --timeout with a bad value: exit 2 naming the flag, before z3 starts', async () => {
    const r = await pagecheck('prove', '--variant', 'length-fix', '--timeout', '10m');
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toContain('--timeout: expected a duration from 1 ms to 3600 s, such as 500ms or 30s (a bare number is seconds), got "10m"');
  });
});
