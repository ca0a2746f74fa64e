/**
 * The threads of the parallel search as the main thread sees them: its own task, or a
 * worker thread it starts and talks to by messages, one reply per request in order.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExpandReply, ExpandRequest, KeepReply, KeepRequest } from './level-protocol.ts';
import type { LevelTask } from './level.ts';
import type { WorkerRequest, WorkerSetup } from './parallel-worker.ts';

/** A thread of the search: the main thread's own task or a worker. */
export interface Thread {
  /** 0 for the main thread, k for worker k. */
  readonly id: number;
  /** The expand step of a level (`level.ts`). */
  expand(r: ExpandRequest): Promise<ExpandReply>;
  /** The keep step of a level. */
  keep(r: KeepRequest): Promise<KeepReply>;
  /** Copies slots `from .. to` of `table` into the larger `into`. */
  rehash(table: Int32Array, into: Int32Array, from: number, to: number): Promise<unknown>;
}

/** A worker thread and its reply queue. */
export class WorkerHandle implements Thread {
  private readonly worker: Worker;
  private readonly waiting: { resolve: (value: unknown) => void; reject: (e: Error) => void }[] = [];
  /** Resolves once the worker has built its model; rejects with its error if it could not. */
  readonly ready: Promise<unknown>;
  /** Whether the worker has built its model and waits for work. */
  isReady = false;

  constructor(
    readonly id: number,
    setup: WorkerSetup,
  ) {
    this.worker = startWorker(setup);
    this.worker.on('message', (m: unknown) => this.waiting.shift()?.resolve(m));
    // A worker that fails (its model cannot be built, say) fails the search with its error.
    this.worker.on('error', (e) => {
      for (const w of this.waiting.splice(0)) w.reject(e);
    });
    this.ready = this.reply();
    // Started ahead, a worker may fail before anyone waits for it: the search sees the error when it does.
    this.ready.then(
      () => (this.isReady = true),
      () => undefined,
    );
  }

  expand(r: ExpandRequest): Promise<ExpandReply> {
    return this.ask({ kind: 'expand', ...r });
  }

  keep(r: KeepRequest): Promise<KeepReply> {
    return this.ask({ kind: 'keep', ...r });
  }

  rehash(table: Int32Array, into: Int32Array, from: number, to: number): Promise<unknown> {
    return this.ask({ kind: 'rehash', table, into, from, to });
  }

  /** Stops the thread. */
  stop(): Promise<number> {
    return this.worker.terminate();
  }

  private ask<T>(request: WorkerRequest): Promise<T> {
    const answer = this.reply() as Promise<T>;
    this.worker.postMessage(request);
    return answer;
  }

  private reply(): Promise<unknown> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
}

/** Whether this is the TypeScript source run under tsx (then the worker needs tsx too), not the compiled package. */
const SOURCE = import.meta.url.endsWith('.ts');

/** Starts parallel-worker.js (the build) directly; from the sources, through tsx's loader, which a worker does not inherit. */
function startWorker(setup: WorkerSetup): Worker {
  const entry = new URL(`./parallel-worker.${SOURCE ? 'ts' : 'js'}`, import.meta.url);
  if (!SOURCE) return new Worker(entry, { workerData: setup });
  const boot = `import(${JSON.stringify(tsxEsmApi())}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData: setup });
}

/** The URL of tsx's ESM registration API (the package's `import` export of `./esm/api`). */
function tsxEsmApi(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const entry = pkg.exports['./esm/api']?.import.default;
  if (entry === undefined) throw new Error('checker: this tsx has no ./esm/api export; the parallel search needs it to start workers');
  return pathToFileURL(join(dirname(manifest), entry)).href;
}

/** The main thread's own task as a {@link Thread}. */
export function localThread<A>(task: LevelTask<A>): Thread {
  return {
    id: 0,
    expand: (r) => Promise.resolve(task.expand(r)),
    keep: (r) => Promise.resolve(task.keep(r)),
    rehash: (table, into, from, to) => Promise.resolve(task.rehash(table, into, from, to)),
  };
}
