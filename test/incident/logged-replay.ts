/**
 * Issue 25's acceptance logs, as the tests make them: the real-scale replay under SGLang's
 * allocator (16,384 pages of 64 tokens, length rule `ge`, length-fix, seed 1) with a
 * serving deployment's steps, its actions written by `LogWriter` as `incident --log` writes
 * them, read back as lines; and the validator over a log's lines.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogWriter, logAction, validate, type SourceLine, type ValidationResult } from '../../conformance/index.ts';
import type { PoolOptions, ServingPool } from '../../impl/index.ts';
import { prefixLengthsOf } from '../../incident/arrivals.ts';
import { replay, type ReplayResult } from '../../incident/replay.ts';
import { defaultWorkload } from '../../incident/workload.ts';

/** A replay of `requests` requests (with `prefixes` system prompts, if any) on the pool `poolOf` builds, its result and its log's lines. */
export function loggedReplay(requests: number, prefixes: number | undefined, poolOf: (o: PoolOptions) => ServingPool): { result: ReplayResult; lines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-logged-replay-'));
  const file = join(dir, 'log.jsonl');
  const log = new LogWriter(file, { pages: 16_384, pageSize: 64, prefillLimit: 10_645, variant: 'length-fix', allocator: 'sglang', lengthRule: 'ge', serving: true, ...(prefixes === undefined ? {} : { prefixLengths: prefixLengthsOf(prefixes) }) });
  let pool: ServingPool | undefined;
  const result = replay({
    workload: defaultWorkload({ requests }),
    variant: 'length-fix',
    allocator: 'sglang',
    lengthRule: 'ge',
    seed: 1,
    serving: true,
    ...(prefixes === undefined ? {} : { prefixes }),
    pool: (o) => (pool = poolOf(o)),
    onAction: (a) => logAction(log, pool!, a),
  });
  log.close();
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  rmSync(dir, { recursive: true, force: true });
  return { result, lines };
}

/** validate-log over a log's lines, named as lines of `file`. */
export const validateLines = (file: string, text: readonly string[]): ValidationResult =>
  validate({ files: [], lines: text.map((t, i): SourceLine => ({ file, line: i + 1, text: t })), overrides: {}, window: 128 });

/** An event line's kind. */
export const kindOf = (line: string): string => (JSON.parse(line) as { kind: string }).kind;

/** An event line's request id ('' for none). */
export const idOf = (line: string): string => (JSON.parse(line) as { id?: string }).id ?? '';
