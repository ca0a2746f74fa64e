/**
 * D's KV page pool, optimized: the spec's state in TypedArrays, sized once, with the
 * actions of the protocol as methods of the same names. Each action returns whether it
 * was accepted; `false` means the spec would not enable it, and then nothing changed.
 *
 * Per page: who holds it, whose data it holds (the last write; never cleared) and, under
 * `owner-check`, the owner tag (stamped by every write, cleared when `allocate` hands the
 * page out). Per slot: the request admitted there, its phase (the spec's codes), flags,
 * page table (a row of a flat arena, like SGLang's `req_to_token`) and what its decode
 * read. Labels are described in `options.ts`.
 *
 * Nothing allocates after construction; misuse (a slot or length out of range) is a
 * programming error and throws `RangeError`.
 *
 * The class is built in layers, one file each, so that each reads on its own: the arrays
 * and the queries on them (`pool-state.ts`), what pages hold (`pool-contents.ts`: writes,
 * the owner check, reads), pages taken and given back (`pool-freeing.ts`), and here the
 * protocol's actions. A test's mutant extends `PagePool` and overrides any protected step.
 */
import { EVICTED_FOR, HIT, INSERTED, Ph } from '../spec/state.ts';
import { MAX_SERIAL, NO_PAGE, groupOfLabel, prefixLabelOf } from './options.ts';
import { PoolFreeing } from './pool-freeing.ts';

/** Phases whose request is done with its slot: a new request may be admitted there. */
function finished(phase: number): boolean {
  return phase === Ph.freed || phase === Ph.released || phase === Ph.landed;
}

/** D's page pool: the spec's actions on TypedArrays. */
export class PagePool extends PoolFreeing {
  /**
   * D reserves pages for the whole prompt: the lowest free ids (or the order's), after the
   * cached prefix pages on a prefix-cache hit (the whole entry, page `j` at position `j`). The request gets a fresh serial. `tokens`,
   * the prompt's length in tokens (`length * pageSize` when left out), is what the length
   * rule compares with P's limit.
   */
  allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const s = this.slotIndex(slot);
    const { maxLength } = this.options;
    if (!Number.isInteger(length) || length < 1 || length > maxLength) throw new RangeError(`allocate: length ${length} is not in 1..${maxLength}`);
    const pageSize = this.options.pageSize ?? 1;
    const promptTokens = tokens ?? length * pageSize;
    if (!Number.isInteger(promptTokens) || promptTokens <= (length - 1) * pageSize || promptTokens > length * pageSize) {
      throw new RangeError(`allocate: ${promptTokens} tokens do not need exactly ${length} pages of ${pageSize}`);
    }
    const g = prefix ?? -1;
    if (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix < this.prefixLengths.length)) {
      throw new RangeError(`allocate: prefix ${prefix} is not in 0..${this.prefixLengths.length - 1}`);
    }
    // A request with a prefix needs a page of its own besides (else a stub would write past its table).
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    if (prefix !== undefined && length <= k) throw new RangeError(`allocate: a request with a prefix of ${k} pages needs at least ${k + 1} pages, got ${length}`);
    const phase = this.phases[s] ?? Ph.new;
    if (phase !== Ph.new && !(this.behaviour.reuseSlots && finished(phase))) return false;
    const shared = g >= 0 ? this.matchedPages(g) : 0;
    // A failed attempt still merges `sglang`'s release list (spec/alloc-fail.ts), as `alloc_extend` does before it returns None.
    if (this.freePages < length - shared) {
      this.freeList?.refuse(length - shared);
      return false;
    }

    const base = s * maxLength;
    for (let j = 0; j < shared; j++) this.tables[base + j] = this.prefixPages[this.prefixSlot(g, j)] ?? NO_PAGE;
    // `alloc_extend`'s shortage test counts the tokens it allocates: the prompt's, less the cached prefix's whole pages.
    this.takePages(base + shared, length - shared, promptTokens - shared * pageSize);
    const serial = this.lastSerial === MAX_SERIAL ? 1 : this.lastSerial + 1;
    this.lastSerial = serial;
    const clearTags = this.behaviour.ownerCheck;
    const { tables, holder } = this;
    for (let i = base + shared; i < base + length; i++) {
      const p = tables[i] ?? 0;
      // Only a double free can hand out a page the prefix cache holds: as in the spec, the last taker holds it and the entry is gone.
      const h = holder[p] ?? 0;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      holder[p] = serial;
      if (clearTags) this.clearTag(p);
    }
    // The hit locks the cached page while the request is live; with lock-underflow it locks another node.
    if (shared > 0 && this.behaviour.eviction && !this.behaviour.lockUnderflow) this.locks[g] = (this.locks[g] ?? 0) + 1;
    // An eviction made for this first admission stays on record.
    const evictedFor = phase === Ph.new ? (this.flags[s] ?? 0) & EVICTED_FOR : 0;
    this.phases[s] = Ph.allocated;
    this.flags[s] = (shared > 0 ? HIT : 0) | evictedFor;
    this.lengths[s] = length;
    this.tokens[s] = promptTokens;
    this.groups[s] = g;
    this.serials[s] = serial;
    this.readCounts[s] = 0;
    this.foreign[s] = 0;
    this.garbage[s] = 0;
    return true;
  }

  /**
   * P writes the prompt into every page of the table (its prefix's pages at the prefix's
   * positions); a timed-out request's write lands late. Each page's slots past the prompt's
   * end hold P's stale data. With `auto-truncate` an over-long prompt is cut to the limit first.
   */
  prefill(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    const over = this.overLong(s);
    if (over && !this.behaviour.autoTruncate) return false;
    const pageSize = this.options.pageSize ?? 1;
    const tokens = over ? Math.min(this.tokens[s] ?? 0, this.limitTokens()) : (this.tokens[s] ?? 0);
    const length = Math.ceil(tokens / pageSize);
    const slots = (i: number): number => Math.min(pageSize, tokens - i * pageSize);
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      // D revoked P's access when it timed the request out: the late write lands nowhere.
      this.phases[s] = Ph.landed;
      return true;
    }
    const base = s * this.options.maxLength;
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    let i = this.firstWritten(s);
    if (g >= 0) {
      // The prompt's first pages are its prefix: the same content for every request with that prefix, page j at position j (past a radix tree's partial match, or a load, too).
      for (; i < (this.prefixLengths[g] ?? 1) && i < length; i++) this.write(this.tables[base + i] ?? 0, prefixLabelOf(this.prefixSlot(g, i)), i, slots(i));
    }
    for (; i < length; i++) this.write(this.tables[base + i] ?? 0, serial, i, slots(i));
    this.phases[s] = phase === Ph.timedOut ? Ph.landed : Ph.written;
    return true;
  }

  /** P meets an over-long prompt: with the silent stub, a one-page dummy reported as success; otherwise a refusal. */
  stub(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    if (!this.overLong(s) || this.behaviour.autoTruncate) return false;
    if (!this.behaviour.silentStub) {
      this.phases[s] = phase === Ph.timedOut ? Ph.freed : Ph.refused;
      return true;
    }
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      this.phases[s] = Ph.landed;
      return true;
    }
    const at = this.firstWritten(s);
    // The stub is a one-token dummy.
    this.write(this.tables[s * this.options.maxLength + at] ?? 0, this.serials[s] ?? 0, at, 1);
    this.phases[s] = phase === Ph.timedOut ? Ph.landed : Ph.written;
    return true;
  }

  /** The first table position P's write covers: past the shared prefix pages (a subclass adds what another writer fills, impl/loadback-pool.ts). */
  protected firstWritten(s: number): number {
    return this.sharedPages(s);
  }

  /** P reports Success; D commits the request. */
  handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.written) return false;
    this.phases[s] = Ph.handedOff;
    return true;
  }

  /** D reads every page of the table; under `owner-check`, a foreign tag on any page fails the request and nothing is read. */
  decode(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.handedOff) return false;
    if (this.behaviour.ownerCheck && !this.ownerCheckPasses(s)) {
      this.phases[s] = Ph.failed;
      return true;
    }
    this.read(s);
    this.phases[s] = Ph.decoded;
    return true;
  }

  /** D releases the request's pages, contents untouched; with `stale-free`, also a second, late release of an old table. */
  free(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    const normal = phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed;
    const again = phase === Ph.freed || phase === Ph.landed;
    const stale = again && (this.behaviour.staleFree || (this.behaviour.doubleFree && this.stillFree(s)));
    if (!normal && !stale) return false;
    this.release(s);
    if (normal) this.unlock(s);
    this.phases[s] = normal ? Ph.freed : Ph.released;
    return true;
  }

  /** With `early-free`: D gives up on an allocated request and frees its pages while P's write is in flight. */
  timeout(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.behaviour.earlyFree || this.phases[s] !== Ph.allocated) return false;
    this.release(s);
    this.unlock(s);
    this.phases[s] = Ph.timedOut;
    return true;
  }

  /** Whether the slot's request is one whose prefix `cache_finished_req` inserts: decoded, or with `prefix-poison` refused or failed. */
  protected insertsAtFinish(s: number): boolean {
    const phase = this.phases[s];
    return phase === Ph.decoded || (this.behaviour.prefixPoison && (phase === Ph.refused || phase === Ph.failed));
  }

  /** D inserts the request's prefix pages into the prefix cache; with `prefix-poison`, also a refused or failed request's. */
  insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    const g = this.groups[s] ?? -1;
    const phase = this.phases[s];
    if (g < 0 || phase === Ph.new || !this.entryEmpty(g) || this.sharesFirstPage(s)) return false;
    const base = s * this.options.maxLength;
    const k = this.prefixLengths[g] ?? 1;
    for (let j = 0; j < k; j++) if (this.holder[this.tables[base + j] ?? NO_PAGE] !== this.serials[s]) return false;
    if (!this.insertsAtFinish(s)) return false;
    for (let j = 0; j < k; j++) {
      const p = this.tables[base + j] ?? 0;
      const slotOfPage = this.prefixSlot(g, j);
      // A double free can put one page at two prefix positions: as in the spec, a page has one holder, the last slot.
      const h = this.holder[p] ?? 0;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      this.holder[p] = prefixLabelOf(slotOfPage);
      this.prefixPages[slotOfPage] = p;
    }
    this.flags[s] = (this.flags[s] ?? 0) | INSERTED;
    // Under eviction the inserting request locks the page until its own release.
    if (this.behaviour.eviction) this.locks[g] = (this.locks[g] ?? 0) + 1;
    return true;
  }

  /** How many of prefix group `g`'s first pages an allocation would share now (a radix tree's matched nodes). */
  matchedCount(g: number): number {
    return this.matchedPages(g);
  }

  /** The leading pages an allocation with prefix group `g` shares with the cache: the whole entry when it is cached (a radix tree matches partly, impl/radix-pool.ts). */
  protected matchedPages(g: number): number {
    return this.entryCached(g) ? (this.prefixLengths[g] ?? 1) : 0;
  }

  /**
   * Under eviction: an allocation of `length` pages (prefix `prefix`) for `slot` finds too
   * few free pages, so the prefix cache frees the unlocked entry of another prefix that
   * holds the lowest cached page, all its pages in one release (`RadixCache.evict` frees a
   * whole leaf node); their contents stay.
   */
  evict(slot: number, length: number, prefix?: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s] ?? Ph.new;
    if (!this.behaviour.eviction || (phase !== Ph.new && !(this.behaviour.reuseSlots && finished(phase)))) return false;
    const g = prefix ?? -1;
    const hit = g >= 0 ? this.matchedPages(g) : 0;
    if (this.freePages >= length - hit || !this.evictEntry(g)) return false;
    if (phase === Ph.new) this.flags[s] = (this.flags[s] ?? 0) | EVICTED_FOR;
    return true;
  }

  /** Frees the unlocked entry of a prefix other than `own` that holds the lowest cached page, all its pages in one release; false when there is none. */
  protected evictEntry(own: number): boolean {
    let victim = NO_PAGE;
    let group = -1;
    for (let h = 0; h < this.prefixLengths.length; h++) {
      if (h === own || (this.locks[h] ?? 0) !== 0) continue;
      for (let j = 0; j < (this.prefixLengths[h] ?? 1); j++) {
        const p = this.prefixPages[this.prefixSlot(h, j)] ?? NO_PAGE;
        if (p !== NO_PAGE && (victim === NO_PAGE || p < victim)) [victim, group] = [p, h];
      }
    }
    if (victim === NO_PAGE) return false;
    let n = 0;
    for (let j = 0; j < (this.prefixLengths[group] ?? 1); j++) {
      const at = this.prefixSlot(group, j);
      const p = this.prefixPages[at] ?? NO_PAGE;
      if (p === NO_PAGE) continue;
      this.prefixPages[at] = NO_PAGE;
      this.holder[p] = 0;
      this.batch[n++] = p;
    }
    this.putBack(n);
    return true;
  }
}
