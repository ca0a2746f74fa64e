/** The executable specification of KV-cache page ownership: its public surface. */
export * from './config.ts';
export * from './decode.ts';
export * from './model.ts';
export * from './state.ts';
export * from './actions.ts';
export * from './transitions.ts';
export * from './properties.ts';
export * from './run.ts';
export * from './view.ts';
