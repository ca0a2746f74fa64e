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
 * Host memory runs short at any time (`evictHost`): a copy no load reads is evicted and its
 * slot reused, and later requests with that prefix miss and have P compute it. Two faults:
 * - `host-evict-during-load`: the eviction also takes a copy that a load still reads; the
 *   load copies another user's KV, tagged as the prefix's, so an owner check passes it.
 * - `read-before-load`: decode does not wait for the load, and reads what the pages held
 *   before: the previous holder's KV, or nothing. An owner check stops it loudly: the
 *   allocation cleared the tags, and only the load stamps them.
 * What stops them (`hardening.ts`): `protect-host` (the load holds the host copy until it
 * is acknowledged) and `wait-own-load` (decode waits on its own load's completion).
 * Not modelled: the radix tree, retraction (with either, `loadback` is inert), a load's
 * layers landing apart, and the pages of a load that outlives its request (it lands nowhere).
 */
import { NO_PAGE, prefixLabel, prefixLength, type Model } from './model.ts';
import { hostReusedOf, isLive, loadOf, phaseOf, setDraft, setHostReused, setLoad, setTag, tablePage, writeContent, type State } from './state.ts';
import { hasDraft } from './draft.ts';

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
 * @effect While the request holds its table, each of its prefix positions `j` receives
 * what the host copy holds now: page `j` of the prefix's KV, or, when the copy was evicted
 * and its slot reused (`host-evict-during-load`), another user's KV. A request that has let
 * go of its pages (timed out, released) writes nothing: SGLang's loading nodes stay locked
 * until `loading_check`, so no other request holds them while the copy runs. With
 * `draft`, the host copy holds the draft model's KV beside the target's (HiCache manages
 * both since SGLang PR #17338, which found a target hit over a draft page evicted and
 * reused) and the load restores both; before that fix a loaded page kept whatever draft KV
 * it held, which `hardened` with `draft` and `loadback` read as garbage. The load has
 * landed.
 * @variant owner-check Each page loaded is stamped with the tag of the prefix's page `j`,
 * whatever the host slot held: D tags what it asked to load.
 */
export function loadBack(m: Model, s: State, r: number): State | undefined {
  if (loadOf(m, s, r) !== LOAD.posted) return undefined;
  const g = m.group[r]!;
  const t = s.slice();
  const reused = hostReusedOf(m, s, g);
  // A request that let go of its pages (a timeout, a release) drops its load: SGLang keeps loading nodes locked until the ack, so nobody else holds them meanwhile.
  const lands = isLive(phaseOf(m, s, r));
  for (let j = 0; lands && j < prefixLength(m, r); j++) {
    const p = tablePage(m, s, r, j);
    if (p === NO_PAGE) continue;
    const label = reused ? m.staleLabel : prefixLabel(m, g, j);
    writeContent(m, t, p, label, j);
    if (hasDraft(m)) setDraft(m, t, p, label);
    if (m.ownerCheck) setTag(m, t, p, prefixLabel(m, g, j));
  }
  setLoad(m, t, r, LOAD.landed);
  return t;
}

/**
 * Host memory runs short and `evict_host` frees the host copy of the request's prefix; the
 * next `write_backup` puts another request's KV in its slot. Taken on behalf of any request
 * with that prefix, at any time: host pressure comes from traffic the configuration does
 * not name.
 * @guard Config `loadback`; the request has a prefix whose host copy still holds its KV,
 * and no posted load reads that copy (`evict_host` skips a node whose device value is
 * loading). With fault `host-evict-during-load`, also while a load reads it.
 * @effect The host copy is evicted and its slot holds another user's KV: a load still
 * reading it copies that, and no later request finds the prefix on the host (P computes it).
 * @variant hardened With `protect-host`, a load holds the host copy until it is
 * acknowledged: the eviction skips a copy under a load, fault or not.
 */
export function evictHost(m: Model, s: State, r: number): State | undefined {
  const g = m.group[r] ?? -1;
  if (!loadsBack(m) || g < 0 || hostReusedOf(m, s, g)) return undefined;
  if (copyUnderLoad(m, s, g) && !(m.fault['host-evict-during-load'] && !m.mechanism['protect-host'])) return undefined;
  const t = s.slice();
  setHostReused(m, t, g);
  return t;
}

/** Whether a posted load of some request reads prefix group `g`'s host copy. */
export function copyUnderLoad(m: Model, s: State, g: number): boolean {
  for (let q = 0; q < m.n; q++) if (m.group[q] === g && loadOf(m, s, q) === LOAD.posted) return true;
  return false;
}

/** Whether `r`'s decode may read now: it has no load in flight, or under `read-before-load` (without `wait-own-load`) the forward does not wait for it. */
export function loadLetsDecode(m: Model, s: State, r: number): boolean {
  if (loadOf(m, s, r) !== LOAD.posted) return true;
  return m.fault['read-before-load'] && !m.mechanism['wait-own-load'];
}
