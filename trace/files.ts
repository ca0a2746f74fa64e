/**
 * Writes a trace's other forms (ITF, Mermaid, HTML) to the files the user named. A file
 * that exists is overwritten only when pagecheck wrote it, recognised by the signature its
 * printer puts at the top; anything else is the user's and is refused before any file is
 * written, so that a typo in a flag cannot destroy work.
 */
import { closeSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Model, Trace } from '../spec/index.ts';
import { UsageError } from '../cli/errors.ts';
import { HTML_SIGNATURE, formatHtml } from './html.ts';
import { formatItf } from './itf.ts';
import { MERMAID_SIGNATURE, formatMermaid } from './mermaid.ts';

/** Where to write the trace's other forms. */
export interface TraceFiles {
  /** ITF JSON. */
  readonly itf?: string | undefined;
  /** Mermaid sequence diagram. */
  readonly mermaid?: string | undefined;
  /** Self-contained HTML report. */
  readonly html?: string | undefined;
}

/** The first bytes of a file, enough to hold any signature. */
function head(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(512);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Whether the text at the top of a file is the signature of one of pagecheck's printers. */
export function writtenByPagecheck(top: string): boolean {
  if (top.startsWith(HTML_SIGNATURE) || top.startsWith(MERMAID_SIGNATURE)) return true;
  return top.trimStart().startsWith('{') && /"#meta"\s*:\s*\{[^}]*"source"\s*:\s*"pagecheck"/.test(top);
}

/** Refuses a target that exists and is not pagecheck's own. */
function checkTarget(flag: string, path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return;
  }
  if (!isFile) throw new UsageError(`${flag} ${path}: exists and is not a file`);
  let top: string;
  try {
    top = head(path);
  } catch (e) {
    throw new UsageError(`${flag} ${path}: exists and cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  if (!writtenByPagecheck(top)) {
    throw new UsageError(`${flag} ${path}: the file exists and was not written by pagecheck; remove it or name another file`);
  }
}

/** Writes the trace's other forms to the files named; returns the paths written. */
export function writeTraceFiles(m: Model, trace: Trace, violation: string | undefined, files: TraceFiles): string[] {
  const targets: Array<{ flag: string; path: string; render: () => string }> = [];
  if (files.itf !== undefined) targets.push({ flag: '--itf', path: files.itf, render: () => formatItf(m, trace, violation) });
  if (files.mermaid !== undefined) targets.push({ flag: '--mermaid', path: files.mermaid, render: () => formatMermaid(m, trace, violation) });
  if (files.html !== undefined) targets.push({ flag: '--html', path: files.html, render: () => formatHtml(m, trace, violation) });
  const seen = new Map<string, string>();
  for (const t of targets) {
    const key = resolve(t.path);
    const other = seen.get(key);
    if (other !== undefined) throw new UsageError(`${other} and ${t.flag} name the same file ${t.path}`);
    seen.set(key, t.flag);
    checkTarget(t.flag, t.path);
  }
  for (const t of targets) {
    try {
      writeFileSync(t.path, t.render());
    } catch (e) {
      throw new UsageError(`${t.flag} ${t.path}: cannot write (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }
  return targets.map((t) => t.path);
}
