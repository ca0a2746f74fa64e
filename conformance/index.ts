/** Checking a real system against the spec: its logs (validate-log) and, in adapter/, its allocator driven across a process boundary. */
export * from './coverage.ts';
export * from './events.ts';
export * from './lines.ts';
export * from './table.ts';
export * from './validate.ts';
export * from './report.ts';
export * from './project.ts';
export * from './log-writer.ts';
export * from './follow.ts';
