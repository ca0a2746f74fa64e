/** Driving an implementation in another process through its adapter (docs/ADAPTER.md). */
export * from './protocol.ts';
export * from './process.ts';
export * from './compare.ts';
export * from './run.ts';
export * from './coverage.ts';
