/**
 * Token slots. A page holds `pageSize` token slots; a request of `tokens` tokens has
 * `ceil(tokens / pageSize)` pages, and its last page is partial. Decode reads slots, not
 * pages: at its first step the prompt's `tokens` slots, and at every later step one more,
 * the token the step before it wrote (up to the table's last slot). A free still releases
 * whole pages, and P still copies whole pages: P computes the prompt in pages of its own
 * pool and copies each P-side page whole into D's page, so the slots past the prompt's
 * end in P's last page carry whatever that P-side page held before.
 *
 * What a slot holds, kept small. A page's content is one label and one position (as with
 * whole pages) plus a fill count: slots `0 .. fill-1` hold the content, slots `fill ..`
 * hold stale P-side data. That is enough, because every write fills a prefix of a page:
 * P writes a page from its first slot (the prompt's tokens, then the stale tail), and a
 * decode step writes the slot right after the ones it has just read. A page never holds
 * two writers' slots side by side, with one exception the count cannot express: a token
 * written into a page whose earlier slots are not the writer's own (the page was foreign
 * or never written). Then the page becomes the writer's up to that slot. That loses no
 * verdict: the step that writes the token has just read every earlier slot of the page,
 * and its read record (`reads.ts`) keeps the worst read of each position for good.
 *
 * Why stale P-side data is one label, "stale, another user's", and not a P-side pool. P's
 * pool is another machine's memory, whose earlier tenants are requests that this model
 * does not need to name: what the properties ask of a slot is only whether its content is
 * the reader's own for that position. P's stale slots are never the reader's own (every
 * request is prefilled once, so the P-side page held somebody else's prompt or nothing),
 * and taking them to be another user's is the worst case: a leak found with the label is
 * a leak in some P-side history, and a variant that holds with it holds whatever P's pool
 * held. A P-side pool would multiply the states by its contents and name no new bug.
 *
 * With one slot per page none of this shows: every written page is full, the fill counts
 * are not stored, and the model is the first model, state for state.
 */
import { bodyLabel, NO_PAGE, type Model } from './model.ts';
import { readRecord, verdictOf } from './reads.ts';
import { dataOf, dataPosOf, fillOf, setDraft, setTag, stepsOf, tablePage, tagFillOf, tagOf, writeContent, type State } from './state.ts';

/** The slots of request `r`'s table: every slot of its pages. */
export function capacity(m: Model, r: number): number {
  return (m.len[r] ?? 0) * m.pageSize;
}

/** How many tokens request `r`'s earlier decode steps have written: one per step after the first. */
function tokensDecoded(m: Model, s: State, r: number): number {
  return Math.max(0, stepsOf(m, s, r) - 1);
}

/** How many slots, from the first, request `r`'s next decode step reads: its prompt and the tokens decoded so far, within its table. */
export function readEnd(m: Model, s: State, r: number): number {
  return Math.min((m.tokens[r] ?? 0) + tokensDecoded(m, s, r), capacity(m, r));
}

/** How many slots of table position `i` a read of the first `end` slots covers (at least one for every position of the table). */
export function slotsReadAt(m: Model, i: number, end: number): number {
  return Math.min(m.pageSize, end - i * m.pageSize);
}

/**
 * The read record of reading the first `slots` slots of page `p` at table position `i`
 * for request `r`: the page's content, unless its content is fine and some slot read lies
 * past its fill, in stale P-side data, which is another user's.
 */
export function slotRecord(m: Model, s: State, r: number, i: number, p: number, slots: number): number {
  const label = dataOf(m, s, p);
  const record = readRecord(label, dataPosOf(m, s, p), i);
  if (label === 0 || slots <= fillOf(m, s, p) || verdictOf(m, r, i, record) === 'isolation') return record;
  return readRecord(m.staleLabel, i, i);
}

/**
 * Under `tag-counts-tokens`: whether page `p`'s owner tag says that at least the `slots`
 * slots about to be read were written. Without the mechanism, nothing is counted.
 */
export function tagCovers(m: Model, s: State, p: number, slots: number): boolean {
  return !m.mechanism['tag-counts-tokens'] || tagFillOf(m, s, p) >= slots;
}

/** How many table positions a read of the first `end` slots covers: every page of the table without `tableGrowth`, and no page `grow` added for a token not yet written. */
export function positionsRead(m: Model, end: number): number {
  return Math.ceil(end / m.pageSize);
}

/**
 * Under `tableGrowth`: whether request `r`'s next decode step writes a token (it is not
 * the first step) into a table position that holds no page yet, so that `grow` must come
 * first. SGLang's `alloc_decode` takes the page in `prepare_for_decode`, before the
 * step's forward pass; the model's step writes after it reads, so the step that writes
 * slot `tokens` (its second) is SGLang's step 0, and it needs a page when the prompt
 * filled its last one.
 */
export function needsPage(m: Model, s: State, r: number): boolean {
  if (!m.tableGrowth || stepsOf(m, s, r) === 0) return false;
  const slot = (m.tokens[r] ?? 0) + tokensDecoded(m, s, r);
  const i = Math.floor(slot / m.pageSize);
  return i < (m.len[r] ?? 0) && tablePage(m, s, r, i) === NO_PAGE;
}

/**
 * A decode step after the first writes its new token into the next slot of request `r`'s
 * table. Without `tableGrowth` the table is the prompt's pages, and the token goes into
 * the table's last slot once the table is full (with one slot per page this is the first
 * model's write into the last page); with it, `grow` has added the page first. The
 * page's content and, under an owner check, its tag become `r`'s up to that slot.
 */
export function writeToken(m: Model, s: State, t: State, r: number): void {
  const slot = Math.min((m.tokens[r] ?? 0) + tokensDecoded(m, s, r), capacity(m, r) - 1);
  const i = Math.floor(slot / m.pageSize);
  const filled = slot - i * m.pageSize + 1;
  const p = tablePage(m, s, r, i);
  if (p === NO_PAGE) return;
  const own = bodyLabel(r);
  const grows = dataOf(m, s, p) === own && dataPosOf(m, s, p) === i;
  writeContent(m, t, p, own, i, grows ? Math.max(fillOf(m, s, p), filled) : filled);
  if (m.ownerCheck) setTag(m, t, p, own, tagOf(m, s, p) === own ? Math.max(tagFillOf(m, s, p), filled) : filled);
  // With a draft model (config `draft`, draft.ts), its forward over the token writes the token's draft KV too.
  if (m.layout.fields.draft !== undefined) setDraft(m, t, p, own);
}
