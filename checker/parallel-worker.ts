/**
 * A worker of the parallel search: builds its own model from the factory it is given
 * (a function cannot cross threads), then does the steps of each level that the main
 * thread asks for (see `level.ts`), replying to each message in turn.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LevelTask } from './level.ts';
import type { Checkable, ModelFactory } from './model.ts';

/** What the main thread asks a worker to do. */
export type WorkerRequest =
  | { readonly kind: 'expand'; readonly frontier: Uint8Array; readonly from: number; readonly to: number; readonly table: Int32Array }
  | { readonly kind: 'insert'; readonly table: Int32Array; readonly level: number }
  | { readonly kind: 'select'; readonly table: Int32Array; readonly level: number; readonly openInvariants: number; readonly openWitnesses: number };

/** The data a worker is started with. */
export interface WorkerSetup {
  /** How to build the model. */
  readonly factory: ModelFactory;
  /** The search's options that change what a worker does. */
  readonly options: { readonly symmetry: boolean; readonly deadlock: boolean; readonly invariants: readonly string[] };
}

const setup = workerData as WorkerSetup;
const port = parentPort!;
const mod = (await import(setup.factory.module)) as { createModel: (config: unknown) => Checkable };
const task = new LevelTask(mod.createModel(setup.factory.config), setup.options);

port.on('message', (m: WorkerRequest) => {
  if (m.kind === 'expand') port.postMessage(task.expandRange(m.frontier, m.from, m.to, m.table));
  else if (m.kind === 'insert') {
    task.insertAll(m.table, m.level);
    port.postMessage(null);
  } else {
    const out = task.selectNew(m.table, m.level, m.openInvariants, m.openWitnesses);
    port.postMessage(out, [out.states.buffer, out.parents.buffer, out.actions.buffer, out.failing.buffer, out.holding.buffer] as ArrayBuffer[]);
  }
});
port.postMessage('ready');
