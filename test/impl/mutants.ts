/**
 * Pools with deliberately injected defects. Each is the kind of slip a real allocator
 * ships with; the model-based test must catch every one of them (mutants.test.ts).
 */
import { Ph } from '../../spec/state.ts';
import { PagePool, type PoolOptions } from '../../impl/index.ts';

/** A mutant: its name, what it gets wrong, how to build it, and the variant whose runs expose it (random when left out). */
export interface Mutant {
  /** Short name, used as the test's title. */
  readonly name: string;
  /** The defect, in words. */
  readonly defect: string;
  /** Builds the mutated pool. */
  readonly make: (options: PoolOptions) => PagePool;
  /** Restricts the random configurations to the variant that has the code path. */
  readonly variant?: PoolOptions['variant'];
}

/** `free` forgets the last page of the table: it leaks, and the page is never handed out again. */
class FreeForgetsOnePage extends PagePool {
  protected override release(s: number): void {
    const base = s * this.options.maxLength;
    this.releaseEntries(base + (this.sharesFirstPage(s) ? 1 : 0), base + (this.lengths[s] ?? 0) - 1);
  }
}

/** The owner check stops one page short: the last page of the table is read unchecked. */
class OwnerCheckSkipsLastPage extends PagePool {
  protected override ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const own = g >= 0 ? -(g + 1) : serial;
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0) - 1;
    for (let i = base; i < end; i++) {
      const t = this.tag[this.tables[i] ?? 0];
      if (t !== serial && t !== own) return false;
    }
    return true;
  }
}

/** `allocate` takes the highest free pages: still exclusive, but not the sorted free list of SGLang's P/D mode. */
class AllocateTakesHighest extends PagePool {
  protected override takePages(at: number, n: number): void {
    let taken = 0;
    for (let p = this.options.pages - 1; p >= 0 && taken < n; p--) {
      if (this.freeSet.remove(p)) this.tables[at + taken++] = p;
    }
  }
}

/** Under `length-fix`, a refused stub still writes its dummy page before refusing. */
class StubWritesWhenRefusing extends PagePool {
  override stub(slot: number): boolean {
    const phase = this.phases[slot];
    const over = (this.lengths[slot] ?? 0) > this.options.prefillLimit;
    if (!this.behaviour.silentStub && over && (phase === Ph.allocated || phase === Ph.timedOut)) {
      this.write(this.tables[slot * this.options.maxLength] ?? 0, this.serials[slot] ?? 0, 0, 1);
    }
    return super.stub(slot);
  }
}

/** `allocate` does not clear the owner tags of the pages it hands out. */
class TagNotCleared extends PagePool {
  protected override clearTag(_p: number): void {}
}

/** `insert` forgets its phase guard: a request's first page is cached before it was decoded. */
class InsertIgnoresPhase extends PagePool {
  override insert(slot: number): boolean {
    const phase = this.phases[slot] ?? Ph.new;
    if (phase !== Ph.allocated && phase !== Ph.written && phase !== Ph.handedOff) return super.insert(slot);
    this.phases[slot] = Ph.decoded;
    const accepted = super.insert(slot);
    this.phases[slot] = phase;
    return accepted;
  }
}

/** A release that hits a page the prefix cache holds forgets to drop the cache entry. */
class ReleaseKeepsCacheEntry extends PagePool {
  protected override release(s: number): void {
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0);
    for (let i = base + (this.sharesFirstPage(s) ? 1 : 0); i < end; i++) {
      const p = this.tables[i] ?? 0;
      if ((this.holder[p] ?? 0) === 0) continue;
      this.holder[p] = 0;
      this.freeSet.add(p);
    }
  }
}

/** A release also frees the shared prefix page, which the prefix cache still holds. */
class ReleaseFreesSharedPage extends PagePool {
  protected override release(s: number): void {
    const base = s * this.options.maxLength;
    this.releaseEntries(base, base + (this.lengths[s] ?? 0));
  }
}

/** A timed-out request's late write is dropped instead of landing in pages others now hold. */
class LateWriteDropped extends PagePool {
  override prefill(slot: number): boolean {
    if (this.phases[slot] === Ph.timedOut && (this.lengths[slot] ?? 0) <= this.options.prefillLimit) {
      this.phases[slot] = Ph.landed;
      return true;
    }
    return super.prefill(slot);
  }
}

/** Decode records only the pages P would have written under its own limit: the read set misses the tail. */
class DecodeRecordsPrefillView extends PagePool {
  protected override read(s: number): void {
    const length = this.lengths[s] ?? 0;
    const limit = Math.max(1, this.options.prefillLimit);
    if (length <= limit) {
      super.read(s);
      return;
    }
    this.lengths[s] = limit;
    super.read(s);
    this.lengths[s] = length;
  }
}

/** Every mutant, with the variant whose runs reach its code path. */
export const MUTANTS: readonly Mutant[] = [
  { name: 'free-forgets-one-page', defect: 'free forgets the last page of the table', make: (o) => new FreeForgetsOnePage(o) },
  { name: 'owner-check-skips-last-page', defect: 'the owner check skips the last page', make: (o) => new OwnerCheckSkipsLastPage(o), variant: 'owner-check' },
  { name: 'allocate-takes-highest', defect: 'allocate takes the highest free pages', make: (o) => new AllocateTakesHighest(o) },
  { name: 'stub-writes-when-refusing', defect: 'a refused stub writes its dummy page', make: (o) => new StubWritesWhenRefusing(o), variant: 'length-fix' },
  { name: 'tag-not-cleared', defect: 'allocate does not clear owner tags', make: (o) => new TagNotCleared(o), variant: 'owner-check' },
  { name: 'insert-ignores-phase', defect: 'insert caches a page before decode', make: (o) => new InsertIgnoresPhase(o) },
  { name: 'release-keeps-cache-entry', defect: 'a release of a cached page keeps the cache entry', make: (o) => new ReleaseKeepsCacheEntry(o) },
  { name: 'release-frees-shared-page', defect: 'a release frees the shared prefix page', make: (o) => new ReleaseFreesSharedPage(o) },
  { name: 'late-write-dropped', defect: "a timed-out request's late write is dropped", make: (o) => new LateWriteDropped(o) },
  { name: 'decode-records-prefill-view', defect: "decode reads only P's view of the prompt", make: (o) => new DecodeRecordsPrefillView(o) },
];
