/**
 * A worker of the parallel search: builds its own model from the factory it is given
 * (a function cannot cross threads), then does the steps of each level that the main
 * thread asks for (see `level.ts`), replying to each message in turn. Everything big is
 * in shared memory; the messages carry handles and a few numbers.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LevelTask, type LevelOptions } from './level.ts';
import type { ExpandRequest, KeepRequest } from './level-protocol.ts';
import type { Checkable, ModelFactory } from './model.ts';

/** What the main thread asks a worker to do. */
export type WorkerRequest =
  | ({ readonly kind: 'expand' } & ExpandRequest)
  | ({ readonly kind: 'keep' } & KeepRequest)
  | { readonly kind: 'rehash'; readonly table: Int32Array; readonly into: Int32Array; readonly from: number; readonly to: number };

/** The data a worker is started with. */
export interface WorkerSetup {
  /** How to build the model. */
  readonly factory: ModelFactory;
  /** The search's options that change what a worker does. */
  readonly options: LevelOptions;
}

const setup = workerData as WorkerSetup;
const port = parentPort!;
const mod = (await import(setup.factory.module)) as { createModel: (config: unknown) => Checkable };
const task = new LevelTask(mod.createModel(setup.factory.config), setup.options);

port.on('message', (m: WorkerRequest) => {
  if (m.kind === 'expand') port.postMessage(task.expand(m));
  else if (m.kind === 'keep') port.postMessage(task.keep(m));
  else {
    task.rehash(m.table, m.into, m.from, m.to);
    port.postMessage(null);
  }
});
port.postMessage('ready');
