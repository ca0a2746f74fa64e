/**
 * A time limit given on the command line: `500ms`, `30s`, or a bare number, which is
 * seconds. `prove --timeout` took whole seconds before it took milliseconds; a bare number
 * keeps that meaning, so that a script written for it (`--timeout 60`) does not silently
 * become a 60 ms limit under which every obligation comes back unknown.
 */
import { Either, ParseResult, Schema } from 'effect';

const FORM = /^(\d+)(ms|s)?$/;

/** A duration in milliseconds from `min` to `max`, decoded from its text, with a message naming the value found. */
export const DurationMs = (min: number, max: number) => {
  const expected = `a duration from ${min} ms to ${max / 1000} s, such as 500ms or 30s (a bare number is seconds)`;
  return Schema.transformOrFail(Schema.String, Schema.Number, {
    strict: true,
    decode: (text, _options, ast) => {
      const m = FORM.exec(text.trim());
      const ms = m === null ? Number.NaN : Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
      return Number.isSafeInteger(ms) && ms >= min && ms <= max ? ParseResult.succeed(ms) : ParseResult.fail(new ParseResult.Type(ast, text, `expected ${expected}, got ${JSON.stringify(text)}`));
    },
    encode: (ms) => ParseResult.succeed(`${ms}ms`),
  });
};

/** Decodes a duration flag's text: the milliseconds, or what is wrong with it. */
export function parseDuration(text: string, min: number, max: number): Either.Either<number, string> {
  return Either.mapLeft(Schema.decodeUnknownEither(DurationMs(min, max))(text), (e) => ParseResult.ArrayFormatter.formatErrorSync(e)[0]?.message ?? 'not a duration');
}
