/** Small logs written inline for validate-log's tests: events as JSON lines, validated in process, and the verdict in one line. */
import { validate, type SourceLine, type ValidationResult } from '../../conformance/index.ts';

/** A request event line. */
export const ev = (kind: string, id: string, rest: Record<string, unknown> = {}): string => JSON.stringify({ kind, id, ...rest });
/** A config event line. */
export const config = (rest: Record<string, unknown>): string => JSON.stringify({ kind: 'config', ...rest });
/** Validates the lines as the file `file`. */
export const runLog = (file: string, text: readonly string[]): ValidationResult =>
  validate({ files: [], lines: text.map((t, i): SourceLine => ({ file, line: i + 1, text: t })), overrides: {}, window: 8 });
/** The verdict, the invariant and the line, in one string. */
export const summary = (r: ValidationResult): string => [r.verdict, r.invariant ?? '-', r.at?.line ?? '-'].join(' ');
/** Every refusal's reason and the headline, in one string. */
export const why = (r: ValidationResult): string => [...r.refusals.map((x) => x.why), ...r.headline].join(' | ');
/** A request served from its allocation to its first decode step. */
export const served = (id: string, pages: readonly number[]): string[] => [ev('allocate', id, { pages }), ev('done', id), ev('handoff', id), ev('decode', id, { pages, step: 0 })];
