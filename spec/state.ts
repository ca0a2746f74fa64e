/**
 * The state of the model: plain data, one flat byte string per state so that the checker
 * can hash and store it as it is. Read it through the accessors below or through
 * {@link view}; never write into a state you did not just copy.
 *
 * Per page:
 * - holder: who holds the page: nobody (it is on the free list), a request, or the prefix
 *   cache entry of a prompt prefix;
 * - data: whose content the page holds: the request (or prefix) whose write last landed
 *   in it. Never cleared: neither `free` nor `allocate` zeroes KV pages, as in SGLang;
 * - tag (`owner-check` only): the owner tag, stamped with the label of every write and
 *   cleared when `allocate` hands the page out. Zero in the other variants.
 *
 * Per request:
 * - phase: where it is in its lifecycle (see {@link PHASES});
 * - flags: whether its first pages are its prefix's shared pages ({@link HIT}, {@link INSERTED})
 *   and whether its decode read a page it did not hold ({@link READ_UNHELD});
 * - observed: the set of content labels its decode read (bit `label - 1`);
 * - table: its page table, the ordered page ids decode reads; kept after `free`, because a
 *   stale second release frees exactly that list.
 *
 * Per page, appended for content with a position (the layout only grows at its end):
 * - dataPos: the table position the page's content was written for.
 *
 * Per page, appended last and only with more than one token slot per page (`slots.ts`):
 * - fill: how many of its slots, from the first, hold its content; the rest hold stale
 *   P-side data;
 * - tagFill (`owner-check`, `hardened`): how many slots its owner tag says were written
 *   (read only under `hardened`'s `tag-counts-tokens`).
 *
 * Per position, appended last and only with config `retraction` (`retraction.ts`), the
 * saved copy of a retracted request: what its page at that position held when the copy
 * read it:
 * - savedData [savedPageOf]: the content's label (0: a page never written);
 * - savedPos [savedPageOf]: the table position the content was written for;
 * - savedTag (`owner-check`, `hardened`) [savedPageOf]: the owner tag, restored by the
 *   load under `copy-carries-tag`;
 * - savedFill (token slots) [savedPageOf]: how many slots held the content;
 * - savedTagFill (token slots, `owner-check`, `hardened`) [savedPageOf]: how many slots
 *   the tag says were written.
 *
 * Per request, appended for writes as they land and decode as steps:
 * - steps: how many decode steps it has taken;
 * - dataParts (`torn-write`): how many content parts of P's write for it have landed;
 * - tagParts (`torn-write`): how many tag parts of P's write for it have landed;
 * - readRecord: per table position, one byte saying what its decode read there. Over
 *   several steps it keeps the worst read per position (one that breaks `Isolation` over
 *   one that breaks only `Integrity`, over a correct one), the first of equals: what a
 *   step read is never lost by a later step.
 */
import { initFree } from './allocator.ts';
import type { Model } from './model.ts';
import { clearTable } from './state-position.ts';

// The accessors, one file per scope. Effects: the transitions write a state they have just
// copied only through the setters there, so an action's body reads as what happens: a
// phase, a holder, a write with its label and position.
export * from './state-request.ts';
export * from './state-page.ts';
export * from './state-position.ts';
export * from './state-entry.ts';
export * from './state-slot.ts';
export * from './state-pool.ts';

/** A state: `Model.size` bytes laid out as `model.ts` describes. */
export type State = Uint8Array;

/** The initial state: every page free (but the padding page) and never written, every request new. */
export function initial(m: Model): State {
  const s = new Uint8Array(m.size);
  for (let r = 0; r < m.n; r++) clearTable(m, s, r);
  initFree(m, s);
  return s;
}
