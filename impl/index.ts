/** The optimized page pool that refines the spec, and the harness that checks it: the public surface. */
export * from './options.ts';
export * from './free-set.ts';
export * from './allocator-order.ts';
export * from './pool.ts';
export * from './serving-pool.ts';
export * from './stepping-pool.ts';
export * from './torn-pool.ts';
export * from './draft-pool.ts';
export * from './aux-pool.ts';
export * from './slot-pool.ts';
export * from './loadback-pool.ts';
export * from './abstraction.ts';
export * from './drive.ts';
export * from './coverage.ts';
export * from './mbt-commands.ts';
export * from './mbt-configs.ts';
export * from './mbt.ts';
