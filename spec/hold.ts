/**
 * How a request comes to hold a page table, and how it lets go of its prefix: the one
 * home of what `allocate` does at admission (SGLang's `_pre_alloc` after `match_prefix`,
 * `alloc_extend` for the rest) and `resume` does again after a retraction (`_pre_alloc`
 * with no prefix match: every position a page of its own).
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
import { addLocks, matchDepth, unlockPath } from './radix.ts';
import { addFlags, cachedPage, entryCached, flagsOf, HIT, INSERTED, lockOf, setDepth, setHolder, setLock, setTablePage, setTag, type State } from './state.ts';

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
  // The radix tree matches as deep as its path goes: a partial match shares what it matched (radix.ts).
  if (m.radix) {
    const shared = g >= 0 ? matchDepth(m, s, g) : 0;
    return { hit: shared > 0, shared, need: room - shared };
  }
  const hit = g >= 0 && entryCached(m, s, g);
  const shared = hit ? prefixLength(m, r) : 0;
  return { hit, shared, need: room - shared };
}

/**
 * Request `r` takes its table into `t` (a copy of `s`) by `plan`: the shared prefix pages
 * first (flagged {@link HIT}, the entry locked under eviction), then the `need` pages the
 * allocation order hands out for an allocation of `tokens` tokens, or those named in
 * `pages` (allocator `any`).
 */
export function takeHold(m: Model, s: State, t: State, r: number, plan: HoldPlan, tokens: number, pages?: readonly number[]): void {
  const g = m.group[r] ?? -1;
  let i = 0;
  if (plan.hit) {
    for (; i < plan.shared; i++) setTablePage(m, t, r, i, cachedPage(m, s, g, i));
    addFlags(m, t, r, HIT);
    // The radix tree locks every node of the matched path (`inc_lock_ref`); its fault is in the release (radix.ts).
    if (m.radix) addLocks(m, t, r, 0, plan.shared, +1);
    // With lock-underflow the hit locks another node: nothing protects this entry.
    else if (m.eviction && !m.fault['lock-underflow']) setLock(m, t, g, lockOf(m, s, g) + 1);
  }
  // The request's last node: the end of its matched path (0, the root, with no match or on a resume).
  if (m.radix) setDepth(m, t, r, plan.shared);
  const taken = pages ?? takenPages(m, s, t, plan.need, tokens);
  for (let k = 0; k < plan.need; k++) {
    const p = taken[k]!;
    if (pages !== undefined) takeOne(m, t, p);
    setHolder(m, t, p, bodyLabel(r));
    if (m.ownerCheck) setTag(m, t, p, 0);
    setTablePage(m, t, r, i++, p);
  }
}

/** The allocation order's `need` pages (`takeInto`; `alloc_extend`'s shortage test counts `tokens`). */
function takenPages(m: Model, s: State, t: State, need: number, tokens: number): Int32Array {
  const out = new Int32Array(need);
  takeInto(m, s, t, need, out, 'extend', tokens);
  return out;
}

/** Request `r`, which hit its prefix's entry or inserted into it, unlocks the entry as it lets go of its table; the count never goes below 0 (with lock-underflow it was never raised). Under `radix`, the request's path, with no floor. */
export function unlockPrefix(m: Model, s: State, t: State, r: number): void {
  // The radix tree unlocks the request's path with no floor (radix.ts).
  if (m.radix) return unlockPath(m, s, t, r);
  const g = m.group[r] ?? -1;
  if (!m.eviction || g < 0 || (flagsOf(m, s, r) & (HIT | INSERTED)) === 0) return;
  const lock = lockOf(m, s, g);
  if (lock > 0) setLock(m, t, g, lock - 1);
}
