/**
 * Writes a trace's other forms (ITF, Mermaid, HTML) to the files the user named. Every
 * target is checked before anything is written, and before the search that produces the
 * trace ({@link checkTraceFiles}): a missing directory is an error, and a file that exists
 * is replaced only when pagecheck's record says it wrote it (see written.ts) or with
 * `--force`, so that a typo in a flag cannot destroy work.
 */
import type { Model, Trace } from '../spec/index.ts';
import { formatHtml } from './html.ts';
import { formatItf } from './itf.ts';
import { formatMermaid } from './mermaid.ts';
import { checkOutputPaths, writeOutput } from './written.ts';

/** Where to write the trace's other forms. */
export interface TraceFiles {
  /** ITF JSON. */
  readonly itf?: string | undefined;
  /** Mermaid sequence diagram. */
  readonly mermaid?: string | undefined;
  /** Self-contained HTML report. */
  readonly html?: string | undefined;
}

/** The targets named, with their flags, in the order they are written. */
function targetsOf(files: TraceFiles): Array<{ flag: string; path: string }> {
  const targets: Array<{ flag: string; path: string }> = [];
  if (files.itf !== undefined) targets.push({ flag: '--itf', path: files.itf });
  if (files.mermaid !== undefined) targets.push({ flag: '--mermaid', path: files.mermaid });
  if (files.html !== undefined) targets.push({ flag: '--html', path: files.html });
  return targets;
}

/** Refuses, before any work, targets that name one file twice, lie in a missing directory, or would overwrite a file pagecheck did not write (unless `force`); `inputs` are files the command reads, never to be written. */
export function checkTraceFiles(files: TraceFiles, force = false, inputs: readonly string[] = []): void {
  checkOutputPaths(targetsOf(files), force, inputs);
}

/** Writes the trace's other forms to the files named (checked first, see {@link checkTraceFiles}); `checked` names the invariants the search checked, for the ITF trace; returns the paths written. */
export function writeTraceFiles(m: Model, trace: Trace, violation: string | undefined, files: TraceFiles, force = false, checked?: readonly string[]): string[] {
  checkTraceFiles(files, force);
  const render: Readonly<Record<string, () => string>> = {
    '--itf': () => formatItf(m, trace, violation, checked),
    '--mermaid': () => formatMermaid(m, trace, violation),
    '--html': () => formatHtml(m, trace, violation),
  };
  const targets = targetsOf(files);
  for (const t of targets) writeOutput(t.flag, t.path, render[t.flag]!());
  return targets.map((t) => t.path);
}
