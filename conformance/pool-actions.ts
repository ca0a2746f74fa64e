/** The spec's actions taken on a logged pool, by kind, and what the steps read of a slot's table and phase. */
import { Ph, type ActionKind } from '../spec/index.ts';
import { ServingPool, type PagePool } from '../impl/index.ts';
import type { LogPool } from './pool.ts';

/** Takes spec action `kind` for the request in `slot`; whether the spec (through the pool) enabled it. */
export function takeAction(pool: PagePool, kind: ActionKind, slot: number, length: number, group: number, tokens?: number): boolean {
  // A switch, not ts-pattern: this runs once per logged event.
  switch (kind) {
    case 'allocate':
      return pool.allocate(slot, length, group >= 0 ? group : undefined, tokens);
    case 'prefill':
      return pool.prefill(slot);
    case 'stub':
      return pool.stub(slot);
    case 'handoff':
      return pool.handoff(slot);
    case 'decode':
      return pool.decode(slot);
    case 'free':
      return pool.free(slot);
    case 'timeout':
      return pool.timeout(slot);
    case 'insert':
      return pool.insert(slot);
    case 'evict':
      return pool.evict(slot, length, group >= 0 ? group : undefined);
    case 'grow':
      return pool instanceof ServingPool && pool.grow(slot);
    case 'landData':
    case 'landTag':
      // The pool lands every write whole: the part landings of torn-write are the spec's alone.
      return false;
    case 'retract':
      return pool instanceof ServingPool && pool.retract(slot);
    case 'resume':
      return pool instanceof ServingPool && pool.resume(slot);
    case 'abortCommit':
      return pool instanceof ServingPool && pool.abortCommit(slot);
    case 'offload':
      return pool instanceof ServingPool && pool.offload(slot);
    case 'landRoom':
    case 'landPayload':
      // Never reached: the metadata slot is fault aux-torn's, which validate-log does not check.
      return false;
    case 'allocFail':
      // A failed attempt is a refused allocate (step-allocate.ts).
      return false;
    case 'abortSource':
      // Taken by a `sourceFree` line only (step-write.ts), never as a hidden step.
      return (pool as Partial<LogPool>).abortSource?.(slot) === true;
    case 'landDraft':
      // The pool lands a write's draft part with its target part (tier-pool.ts): never a step of its own.
      return false;
    case 'loadBack':
      return (pool as Partial<LogPool>).loadBack?.(slot) === true;
    case 'evictHost':
      return (pool as Partial<LogPool>).evictHost?.(group >= 0 ? group : undefined) === true;
    default:
      return unreachable(kind);
  }
}

// Read once: a namespace re-export is a getter call on every access.
const { freed: FREED, released: RELEASED, landed: LANDED } = Ph;

/** Marks a switch as exhaustive. */
function unreachable(x: never): never {
  throw new Error(`unreachable: ${String(x)}`);
}

/** The slot's page table, in order. */
export function tableOf(pool: PagePool, slot: number): number[] {
  const row = pool.pageTable(slot);
  const out: number[] = [];
  for (let i = 0; i < (pool.lengths[slot] ?? 0); i++) out.push(row[i] ?? -1);
  return out;
}

/** Whether no action of the spec can touch the slot's request again (unless a stale second release comes). */
export function finished(pool: PagePool, slot: number): boolean {
  const phase = pool.phase(slot);
  return phase === FREED || phase === RELEASED || phase === LANDED;
}
