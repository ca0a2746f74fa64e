/**
 * The host tier of D's prefix cache and its load back (config `loadback`): a prefix that is
 * no longer on D but still in host memory is copied back into D's pages, a second writer
 * into them beside P's transfer. Read from `sgl-project/sglang`, `python/sglang/srt/`:
 * - `disaggregation/decode.py`, `DecodePreallocQueue._pre_alloc`: with the hierarchical
 *   cache the prefix match gives `prefix_len` on D's device and `total_prefix_len` with
 *   the host hit; D allocates pages for the gap `[prefix_len, total_prefix_len)`, which is
 *   "filled by loading from host memory", and P's transfer covers only what follows.
 * - `mem_cache/hiradix_cache.py`, `HiRadixCache.init_load_back` and `load_back`: the host
 *   nodes get device pages (`cache_controller.load(host_indices, node_id)`), are marked
 *   `loading`, and the copy runs on its own stream; `loading_check` drops the lock when the
 *   controller acknowledges the load (`ack_load_queue`).
 * - `managers/cache_controller.py`, `HiCacheController.load` and `LayerDoneCounter`: the
 *   forward that reads the pages waits per layer on the load's producer index
 *   (`ready_to_load_host_cache` hands the batch its index; `wait_until` in the layer).
 * - `hiradix_cache.py`, `evict_host`: frees a node's host value when host memory runs
 *   short, skipping a node that is not evicted from the device or has `host_ref_counter >
 *   0` (`protect_host`, `TreeNode` in `mem_cache/radix_cache.py`); the freed host pages
 *   (`memory_pool_host.py`, `HostKVCache.free`) go to the next `write_backup`.
 *
 * In the model. Each prefix has one host copy, holding the prefix's KV from the start (an
 * earlier request's write-back, its device copy since evicted) until it is evicted and its
 * slot reused, after which it holds another user's KV (`hostCopy`). A request whose
 * prefix misses D's cache but is on the host takes pages of its own for the whole prompt
 * (`allocate`), and posts a load into its prefix positions (`load` = 1); P's write starts
 * past them (`writes.ts`). `loadBack` lands the load whole: each prefix page gets what the
 * host copy holds now, and under an owner check the tag of the prefix's page (the load is
 * a write for that content). Decode waits for the load (`load` = 2). After its decode the
 * request may insert those pages into D's cache as any request that computed them.
 * Two faults:
 * - `host-evict-during-load` (action `evictHost`): the host copy is evicted while a load
 *   still reads it and its slot is reused; the load copies another user's KV, tagged as the
 *   prefix's, so an owner check passes it.
 * - `read-before-load`: decode does not wait for the load, and reads what the pages held
 *   before: the previous holder's KV, or nothing. An owner check stops it loudly: the
 *   allocation cleared the tags, and only the load stamps them.
 * What stops them (`hardening.ts`): `protect-host` (the load holds the host copy until it
 * is acknowledged) and `wait-own-load` (decode waits on its own load's completion).
 * Not modelled: the radix tree, retraction (both refused with `loadback`), a load's
 * layers landing apart, and a load that outlives its request's pages (it lands nowhere).
 */
import { NO_PAGE, prefixLabel, prefixLength, type Model } from './model.ts';
import { hostReusedOf, loadOf, setHostReused, setLoad, setTag, tablePage, writeContent, type State } from './state.ts';

/** Load state: none, posted (reading the host copy), landed. */
export const LOAD = { none: 0, posted: 1, landed: 2 } as const;

/** Whether `m` models the host tier and its loads (config `loadback` with a prefix). */
export function loadsBack(m: Model): boolean {
  return m.layout.fields.load !== undefined;
}

/** How many leading table positions of `r` a load from host memory writes (not P): its prefix's, once it posted a load. */
export function loadedPages(m: Model, s: State, r: number): number {
  return loadOf(m, s, r) === LOAD.none ? 0 : prefixLength(m, r);
}

/**
 * At `allocate` (`_pre_alloc` → `init_load_back`): a request whose prefix missed D's cache
 * (`hit` false) while the host copy still holds the prefix's KV posts a load into `t`.
 */
export function postLoad(m: Model, s: State, t: State, r: number, hit: boolean): void {
  const g = m.group[r] ?? -1;
  if (!loadsBack(m) || g < 0 || hit || hostReusedOf(m, s, g)) return;
  setLoad(m, t, r, LOAD.posted);
}

/**
 * The load from host memory lands (`HiCacheController.load` done, acknowledged in
 * `loading_check`).
 * @guard Config `loadback`; the request posted a load that has not landed.
 * @effect Each of the request's prefix positions `j` still in its table receives what the
 * host copy holds now: page `j` of the prefix's KV, or, when the copy was evicted and its
 * slot reused (`host-evict-during-load`), another user's KV. The load has landed.
 * @variant owner-check Each page loaded is stamped with the tag of the prefix's page `j`,
 * whatever the host slot held: D tags what it asked to load.
 */
export function loadBack(m: Model, s: State, r: number): State | undefined {
  if (loadOf(m, s, r) !== LOAD.posted) return undefined;
  const g = m.group[r]!;
  const t = s.slice();
  const reused = hostReusedOf(m, s, g);
  for (let j = 0; j < prefixLength(m, r); j++) {
    const p = tablePage(m, s, r, j);
    if (p === NO_PAGE) continue;
    writeContent(m, t, p, reused ? m.staleLabel : prefixLabel(m, g, j), j);
    if (m.ownerCheck) setTag(m, t, p, prefixLabel(m, g, j));
  }
  setLoad(m, t, r, LOAD.landed);
  return t;
}

/**
 * Host memory runs short and `evict_host` frees the host copy of the request's prefix while
 * the request's load still reads it; the next `write_backup` puts another request's KV in
 * the slot.
 * @guard Fault `host-evict-during-load` with `loadback`; the request's load is posted and
 * not landed, and its prefix's host copy still holds the prefix's KV.
 * @effect The host copy is evicted and its slot holds another user's KV: the rest of the
 * load copies that, and no later request finds the prefix on the host.
 * @variant hardened With `protect-host`, a load holds the host copy until it is
 * acknowledged: the eviction skips it (never enabled).
 */
export function evictHost(m: Model, s: State, r: number): State | undefined {
  if (!m.fault['host-evict-during-load'] || m.mechanism['protect-host']) return undefined;
  if (loadOf(m, s, r) !== LOAD.posted) return undefined;
  const g = m.group[r]!;
  if (hostReusedOf(m, s, g)) return undefined;
  const t = s.slice();
  setHostReused(m, t, g);
  return t;
}

/** Whether `r`'s decode may read now: it has no load in flight, or under `read-before-load` (without `wait-own-load`) the forward does not wait for it. */
export function loadLetsDecode(m: Model, s: State, r: number): boolean {
  if (loadOf(m, s, r) !== LOAD.posted) return true;
  return m.fault['read-before-load'] && !m.mechanism['wait-own-load'];
}
