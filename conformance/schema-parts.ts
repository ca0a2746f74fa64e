/**
 * The pieces every event's schema is built from (events.ts, config-event.ts): how a value
 * is shown in a message, a choice among words, a time, a page id, a page list, a request
 * id, and the first problem of a decode as the field and what is wrong with it.
 */
import { ParseResult, Schema } from 'effect';
import { formatPath, WholeNumber } from '../spec/index.ts';

/** A value as a message shows it. */
export function show(value: unknown): string {
  // JSON reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
}

/** The largest pool a log may describe, in pages. */
export const MAX_LOG_PAGES = 1 << 24;

/** One problem with a line: the field and what is wrong with it. */
export interface LineIssue {
  /** The field, such as `pages[2]`; empty for the whole line. */
  readonly field: string;
  /** What is wrong, naming the value found. */
  readonly message: string;
}

/** One of `values`, with a message that lists them. */
export const literal = <const T extends readonly string[]>(values: T) =>
  Schema.Literal(...values).annotations({
    message: (issue) => ({ message: `expected one of ${values.join(', ')}, got ${show(issue.actual)}`, override: true }),
  });

/** A time: a finite number. */
export const Time = Schema.Number.pipe(Schema.filter((x) => Number.isFinite(x), { message: (issue) => `expected a time: a finite number, got ${show(issue.actual)}` })).annotations({
  message: (issue) => ({ message: `expected a time: a number, got ${show(issue.actual)}`, override: false }),
});

const PageId = WholeNumber(0, MAX_LOG_PAGES - 1, 'a page id');

/** A page list: ids in table order, where `[from, to]` stands for every id from `from` to `to` inclusive. */
export const PageList = Schema.Array(Schema.Union(PageId, Schema.Tuple(PageId, PageId))).annotations({
  message: (issue) => ({ message: `expected a list of page ids such as [3, 4, [10, 20]], got ${show(issue.actual)}`, override: false }),
});

/** A request id: a string of 1 to 256 characters. */
export const Id = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && s.length <= 256, { message: (issue) => `expected a request id: a non-empty string of at most 256 characters, got ${show(issue.actual)}` }),
).annotations({ message: (issue) => ({ message: `expected a request id (a string), got ${show(issue.actual)}`, override: false }) });

/** The first problem of a failed decode. */
export function firstIssue(error: ParseResult.ParseError): LineIssue {
  const [i] = ParseResult.ArrayFormatter.formatErrorSync(error);
  return { field: i === undefined ? '' : formatPath(i.path), message: i?.message ?? 'invalid event' };
}
