/**
 * How a request comes to hold a page table, and how it lets go of its prefix: the one
 * home of what `allocate` does at admission and `resume` does again after a retraction
 * (SGLang's `_pre_alloc` both times: `match_prefix`, then `alloc_extend` for the rest).
 *
 * A request with a prompt prefix whose cache entry is cached hits it: the entry's pages
 * are its first positions, page `j` of the entry at position `j`, shared, not taken, and
 * with eviction the hit locks the entry while the request holds (SGLang's `inc_lock_ref`;
 * with fault `lock-underflow` the lock goes to another node). Every other position takes a
 * page from the free list, in the allocation order's order (`allocator.ts`), held by the
 * request, its owner tag cleared under an owner check. A request that lets go of its table
 * while it still holds it (its release, a timeout, a retraction) unlocks the entry it hit
 * or inserted (SGLang's `dec_lock_ref`), never below 0.
 */
import { takeInto, takeOne } from './allocator.ts';
import { bodyLabel, prefixLength, type Model } from './model.ts';
import { addFlags, cachedPage, entryCached, flagsOf, HIT, INSERTED, lockOf, setHolder, setLock, setTablePage, setTag, type State } from './state.ts';

/** How request `r` takes a table: whether it hits its prefix's cache entry, how many leading positions that shares, and how many pages it takes from the free list. */
export interface HoldPlan {
  /** Whether the request's prefix is cached: its first positions are the entry's pages. */
  readonly hit: boolean;
  /** The leading positions shared with the cache (the prefix's length on a hit, else 0). */
  readonly shared: number;
  /** The pages taken from the free list: the table's room less the shared positions. */
  readonly need: number;
}

/** Request `r`'s plan for a table of `room` pages in state `s`. */
export function planHold(m: Model, s: State, r: number, room: number): HoldPlan {
  const g = m.group[r] ?? -1;
  const hit = g >= 0 && entryCached(m, s, g);
  const shared = hit ? prefixLength(m, r) : 0;
  return { hit, shared, need: room - shared };
}

/**
 * Request `r` takes its table into `t` (a copy of `s`) by `plan`: the shared prefix pages
 * first (flagged {@link HIT}, the entry locked under eviction), then the `need` pages the
 * allocation order hands out, or those named in `pages` (allocator `any`).
 */
export function takeHold(m: Model, s: State, t: State, r: number, plan: HoldPlan, pages?: readonly number[]): void {
  const g = m.group[r] ?? -1;
  let i = 0;
  if (plan.hit) {
    for (; i < plan.shared; i++) setTablePage(m, t, r, i, cachedPage(m, s, g, i));
    addFlags(m, t, r, HIT);
    // With lock-underflow the hit locks another node: nothing protects this entry.
    if (m.eviction && !m.fault['lock-underflow']) setLock(m, t, g, lockOf(m, s, g) + 1);
  }
  const taken = pages ?? takenPages(m, s, t, plan.need);
  for (let k = 0; k < plan.need; k++) {
    const p = taken[k]!;
    if (pages !== undefined) takeOne(m, t, p);
    setHolder(m, t, p, bodyLabel(r));
    if (m.ownerCheck) setTag(m, t, p, 0);
    setTablePage(m, t, r, i++, p);
  }
}

/** The allocation order's `need` pages (`takeInto`). */
function takenPages(m: Model, s: State, t: State, need: number): Int32Array {
  const out = new Int32Array(need);
  takeInto(m, s, t, need, out);
  return out;
}

/** Request `r`, which hit its prefix's entry or inserted into it, unlocks the entry as it lets go of its table; the count never goes below 0 (with lock-underflow it was never raised). */
export function unlockPrefix(m: Model, s: State, t: State, r: number): void {
  const g = m.group[r] ?? -1;
  if (!m.eviction || g < 0 || (flagsOf(m, s, r) & (HIT | INSERTED)) === 0) return;
  const lock = lockOf(m, s, g);
  if (lock > 0) setLock(m, t, g, lock - 1);
}
