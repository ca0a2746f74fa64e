/**
 * The printers of traces, shared by every producer (checker, model-based tests, replay).
 * This is the contract the commands call; the rich printers live beside it.
 */
import { actionLabel, type Model, type Trace } from '../spec/index.ts';
import { UsageError } from '../cli/errors.ts';

/** How to print a trace. */
export interface TraceFormat {
  /** ANSI colour. */
  readonly color: boolean;
  /** The invariant the trace violates, if any. */
  readonly violation?: string;
}

/** The trace as text, one step per line. */
export function formatTrace(m: Model, trace: Trace, format: TraceFormat): string {
  const lines = trace.steps.map((s, i) => `${String(i + 1).padStart(3)}. ${actionLabel(m, s.action)}`);
  if (format.violation !== undefined) lines.push(`violates ${format.violation}`);
  return lines.join('\n');
}

/** Where to write the trace's other forms. */
export interface TraceFiles {
  /** ITF JSON. */
  readonly itf?: string;
  /** Mermaid sequence diagram. */
  readonly mermaid?: string;
  /** Self-contained HTML report. */
  readonly html?: string;
}

/** Writes the trace's other forms to the files named. */
export function writeTraceFiles(_m: Model, _trace: Trace, _violation: string | undefined, files: TraceFiles): void {
  if (files.itf !== undefined || files.mermaid !== undefined || files.html !== undefined) {
    throw new UsageError('trace files are not built yet');
  }
}
