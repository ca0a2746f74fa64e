/**
 * pagecheck's record of the files it wrote, so that it overwrites its own output and
 * nothing else. The decision is never taken from a file's first bytes (a user's file can
 * start like ours): a file may be replaced when the record holds its path with the hash
 * of exactly what is in it now, i.e. pagecheck wrote it and nobody changed it since; or
 * when the user says `--force`. The record is one small JSON file in the user's state
 * directory (`$PAGECHECK_STATE_DIR`, else `$XDG_STATE_HOME/pagecheck`, else
 * `~/.local/state/pagecheck`); losing it only makes pagecheck ask for `--force`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TraceInputError } from './errors.ts';

/** How many files the record remembers; the oldest are forgotten first. */
const MAX_ENTRIES = 1000;

/** The record's file. */
export function recordPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const dir = env['PAGECHECK_STATE_DIR'] ?? join(env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state'), 'pagecheck');
  return join(dir, 'written.json');
}

/** The sha-256 of some text, as hex. */
function hash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The record: absolute path to the hash of what pagecheck last wrote there; empty when missing or unreadable. */
function readRecord(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(recordPath(), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Whether pagecheck wrote the file at `path` and it is unchanged since. */
export function wroteIt(path: string): boolean {
  const recorded = readRecord()[resolve(path)];
  if (recorded === undefined) return false;
  try {
    return hash(readFileSync(path)) === recorded;
  } catch {
    return false;
  }
}

/** Remembers that pagecheck wrote `text` to `path`; a record that cannot be written is not worth failing the command for. */
export function remember(path: string, text: string): void {
  const record = readRecord();
  delete record[resolve(path)];
  record[resolve(path)] = hash(text);
  const entries = Object.entries(record).slice(-MAX_ENTRIES);
  try {
    const file = recordPath();
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(Object.fromEntries(entries), null, 1)}\n`);
    renameSync(temporary, file);
  } catch {
    // Without the record, the next run asks for --force: safe, if less convenient.
  }
}

/** Refuses an output path before any work: a missing directory, a directory, or a file pagecheck did not write (unless `force`). */
export function checkOutputPath(flag: string, path: string, force: boolean): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) throw new TraceInputError(`${flag} ${path}: the directory ${dirname(path)} does not exist`);
  if (!statSync(dir).isDirectory()) throw new TraceInputError(`${flag} ${path}: ${dirname(path)} is not a directory`);
  if (!existsSync(path)) return;
  const stat = statSync(path);
  if (stat.isDirectory()) throw new TraceInputError(`${flag} ${path}: is a directory; name the file to write`);
  if (!stat.isFile()) throw new TraceInputError(`${flag} ${path}: exists and is not a file`);
  if (!force && !wroteIt(path)) {
    throw new TraceInputError(`${flag} ${path}: the file exists and pagecheck did not write it (or it changed since); name another file, or add --force to overwrite it`);
  }
}

/** Writes an output file and records it; a failure is the user's to fix (exit 2). */
export function writeOutput(flag: string, path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new TraceInputError(`${flag} ${path}: cannot write (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  remember(path, text);
}
