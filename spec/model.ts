/**
 * A configuration compiled into the layout of its states. A state is a flat byte string
 * (see `state.ts`); the model says where each variable lives in it and how the small
 * integers stored there are to be read.
 *
 * Content labels. A page's data, its owner tag and its holder are all one byte from the
 * same alphabet: `0` is nobody / no data, `1..n` is request `r = label - 1` (its own
 * data, or the request that holds the page), and `n+1 ..` are the pages of the prompt
 * prefixes: prefix group `g` of `k` pages has the `k` labels `prefixLabel(g, 0) ..
 * prefixLabel(g, k-1)`, one per page of the prefix (data written for that page of the
 * shared prefix, or the cache entry's slot that holds it): one tag comparison checks it.
 *
 * Content has a position. A page's content is a label and the table position it was
 * written for (a request's body at position i, page j of a prefix at position j): the KV
 * of a token depends on every token before it, so a page is correct only at the position
 * it was computed for. The position sits in a byte of its own, after the first model's
 * variables: the layout only grows at its end.
 *
 * A prefix of several pages. A prefix of `k` pages (config `prefixPages`, 1 by default)
 * covers table positions `0 .. k-1` of every request that has it, and its page `j` is
 * valid only at position `j`. That is why each page of a prefix has a label of its own,
 * not one label per prefix: the label itself says the position, as SGLang's chained
 * per-page hashes do (a page's hash depends on every page before it), so the owner check
 * (a tag compared with the label expected at that position), `Isolation` and `Integrity`
 * all reject a prefix page at another position with one comparison; and the holder bytes
 * say which page of the cache entry a cached page is, so the entry needs no list of its
 * own. With every prefix one page long the labels are those of the first model.
 */
import { FAULT_REREADS_FINISHED_TABLE, FAULTS, type Allocator, type Config, type Fault, type LengthRule, type RequestSpec, type Variant } from './config.ts';
import { checksOwner, firstPageOf, isOverLongPrompt, mechanismsOf, stubsSilently } from './behaviour.ts';
import type { Mechanism } from './hardening.ts';
import { labelBytesOf, layOut, requestFieldsOf, type Laid, type RequestField, type VariableName } from './layout.ts';
import { groupIndexOf, prefixShapeOf } from './nesting.ts';
import { presenceOf } from './presence.ts';

/** A configuration with the offsets of every state variable precomputed. */
export interface Model {
  /** The configuration this model was compiled from. */
  readonly config: Config;
  /** Number of page slots in a state: the pool's pages, plus the padding page 0 under `sglang` and `lifo`. */
  readonly pages: number;
  /** Number of requests. */
  readonly n: number;
  /** Number of distinct prompt prefixes. */
  readonly groups: number;
  /** The prefix names, indexed by group. */
  readonly groupNames: readonly string[];
  /** Per request: its prefix group, or -1. */
  readonly group: Int32Array;
  /** Per prefix group: its length in pages (config `prefixPages`, 1 when not given). */
  readonly prefixPages: Uint32Array;
  /** Per prefix group: the label of its first page of its own less `n + 1` (the own labels of the groups before it). */
  readonly prefixBase: Uint32Array;
  /** Per prefix group: the group it extends (`sys` for `sys/doc`, spec/nesting.ts), or -1. */
  readonly prefixParent: Int32Array;
  /** Per prefix group: how many of its first pages are its parent's (the parent's length; 0 without a parent); its own labels start past them. */
  readonly prefixFrom: Uint32Array;
  /** The highest label: `n` plus the pages of every prefix (a nested prefix's own pages only). */
  readonly labels: number;
  /**
   * Per request: its page table's room in pages, the table positions a state holds: the
   * prompt's pages, plus under `tableGrowth` the pages its decode steps' tokens can need
   * (`ceil((tokens + decodeSteps - 1) / pageSize)` in all). A position past the pages the
   * table holds now is empty.
   */
  readonly len: Uint16Array;
  /** Per request: its prompt's pages, `ceil(tokens / pageSize)`: what `allocate` takes. Equal to {@link Model.len} without `tableGrowth`. */
  readonly promptPages: Uint16Array;
  /** Whether the table grows by a page when a decode step's token falls past its last slot (action `grow`). */
  readonly tableGrowth: boolean;
  /** Whether D may retract a running request and resume it on new pages (actions `retract`, `resume`; spec/retraction.ts). */
  readonly retraction: boolean;
  /** Whether the prefix cache is a radix tree (config `radix`, under eviction; spec/radix.ts). */
  readonly radix: boolean;
  /** Whether P's source pages are modelled (config `sourcePages`; spec/source-pages.ts). */
  readonly sourcePages: boolean;
  /** Per request: its prompt's length in tokens (the slots decode reads at its first step). */
  readonly tokens: Uint16Array;
  /** Per request: the offset of its page table in the state. */
  readonly tableAt: Uint32Array;
  /** Bytes per page id in a page table: 1, or 2 (little-endian) for a pool of more than 254 pages. */
  readonly pageBytes: 1 | 2;
  /** Offset of the per-page holder bytes. */
  readonly holderAt: number;
  /** Offset of the per-page data bytes (the content last written; never cleared). */
  readonly dataAt: number;
  /** Offset of the per-page owner tags (only ever non-zero under an owner check; without one they take no bytes, see {@link compile}). */
  readonly tagAt: number;
  /** Offset of the per-request phase bytes. */
  readonly phaseAt: number;
  /** Offset of the per-request flag bytes. */
  readonly flagsAt: number;
  /** Offset of the per-request read sets, {@link Model.observedBytes} each, little-endian. */
  readonly observedAt: number;
  /** Bytes per read set: one bit per content label, in whole bytes (1, 2 or 4, then a byte per 8 labels). */
  readonly observedBytes: number;
  /** Offset of the per-page content positions: the table position the content was written for. */
  readonly dataPosAt: number;
  /** Offset of the per-request decode step counts. */
  readonly stepsAt: number;
  /** Offset of the per-request counts of content parts of its write that have landed (fault `torn-write`). */
  readonly dataNextAt: number;
  /** Offset of the per-request counts of tag parts of its write that have landed (fault `torn-write`). */
  readonly tagNextAt: number;
  /** Per request: the offset of its read record, one byte per table position (see `state.ts`). */
  readonly readAt: Uint32Array;
  /** Length of a state in bytes. */
  readonly size: number;
  /** The layout table laid out for this configuration (`layout.ts`): the present fields, their widths and offsets. */
  readonly layout: Laid;
  /** The per-request variables, for the symmetry reduction (see {@link RequestField}). */
  readonly requestFields: readonly RequestField[];
  /** The bytes `[0, labelBytes)` are per-page content labels (holder, data, tag), renamed label by label. */
  readonly labelBytes: number;
  /** Whether some configured fault can read a finished request's page table again (see `liveness.ts`). */
  readonly rereadsFinishedTable: boolean;
  /** Whether dead variables are kept as they were (the naive encoding, for comparison) rather than reset. */
  readonly keepDeadState: boolean;
  /** How many times decode reads the whole table. */
  readonly decodeSteps: number;
  /** Whether `stub` writes a dummy and reports success (rather than refusing). */
  readonly silentStub: boolean;
  /** Whether decode checks owner tags. */
  readonly ownerCheck: boolean;
  /** Whether the fault is switched on, by name. */
  readonly fault: Readonly<Record<Fault, boolean>>;
  /** Which free pages `allocate` hands out (docs/ALLOCATOR.md). */
  readonly allocator: Allocator;
  /** Token slots per page. */
  readonly pageSize: number;
  /** When a prompt is too long for P (`gt`: longer than the prefill limit; `ge`: at least the limit). */
  readonly lengthRule: LengthRule;
  /** Offset of the per-page fill counts (slots `0 .. fill-1` hold the page's content; see `slots.ts`), or -1 with one slot per page, where a written page is always full. */
  readonly fillAt: number;
  /** Offset of the per-page counts carried by the owner tag (`tag-counts-tokens`), or -1 (one slot per page, or no owner check). */
  readonly tagFillAt: number;
  /** The label of stale P-side content: what the slots past a write's end hold (`slots.ts`); never a holder or a tag. */
  readonly staleLabel: number;
  /** The lowest page id ever handed out: 1 where page 0 is SGLang's padding page, else 0. */
  readonly firstPage: number;
  /** Whether the free list is a multiset (fault `double-free` or `segment-overlap`), not a set. */
  readonly multiset: boolean;
  /** Offset where the allocator's fields begin, after the last page table. */
  readonly tailAt: number;
  /** Offset of the per-page copies in the free list, or -1 where a page is free exactly when nobody holds it. */
  readonly freeAt: number;
  /** Offset of the per-page copies in `sglang`'s release list, or -1. */
  readonly releaseAt: number;
  /** Offset of `lifo`'s ordered free list (front first, padded with {@link NO_PAGE}), or -1. */
  readonly listAt: number;
  /** Whether action `evict` is on (config `eviction`) and there is a prefix cache to evict from. */
  readonly eviction: boolean;
  /** Offset of the per-prefix lock counts (under eviction), or -1. */
  readonly lockAt: number;
  /** Entries `lifo`'s free list can hold: every page, plus one extra copy of every table entry under `double-free`. */
  readonly listCap: number;
  /** Whether the mechanism of `hardened` is switched on, by name (all off outside `hardened`). */
  readonly mechanism: Readonly<Record<Mechanism, boolean>>;
}

/** Marks a page-table slot that holds no page yet, as page accessors return it (stored as all-ones bytes). */
export const NO_PAGE = 0xffff;

/** How to compile: `keepDeadState` gives the naive encoding, which keeps dead variables (for comparisons only). */
export interface CompileOptions {
  /** Keep a finished request's dead page table instead of resetting it; default false. */
  readonly keepDeadState?: boolean;
}

/**
 * Compiles a validated configuration: its sizes, then the layout table (`layout.ts`) laid
 * out for them. A variable that can never be non-zero under the configured variant and
 * faults is absent and takes no bytes (the owner tags without an owner check, the counts
 * of landed parts without `torn-write`); `state.ts` reads it through its field or not at
 * all. The `*At` offsets are the fields' offsets, kept for readers that index bytes
 * directly; an absent per-page or per-request variable's offset is the state's length
 * (`tagAt`, `dataNextAt`, `tagNextAt`) or -1 (the rest).
 */
export function compile(config: Config, options: CompileOptions = {}): Model {
  const shape = shapeOf(config);
  const { n, len, groupNames } = shape;
  const allocator: Allocator = config.allocator ?? 'sorted';
  const firstPage = firstPageOf(allocator);
  const pages = config.pages + firstPage;
  const variant: Variant = config.variant;
  const has = (f: Fault): boolean => config.faults.includes(f);
  const ownerCheck = checksOwner(variant);
  const pageSize = config.pageSize ?? 1;
  // SGLang's free list is a tensor that keeps duplicates; the model stores it so only where a fault can put a page on it twice.
  const multiset = has('double-free') || has('segment-overlap');
  const presence = presenceOf(config, allocator, multiset, groupNames.length > 0);
  const eviction = presence.eviction;
  let entries = 0;
  for (let r = 0; r < n; r++) entries += len[r]!;
  // lifo's list: every page once, plus what a fault puts on it twice: a second release of each table (double-free), one page more per release (segment-overlap, a request's normal and second release).
  const listCap = allocator === 'lifo' ? config.pages + (has('double-free') ? entries : 0) + (has('segment-overlap') ? 2 * n : 0) : 0;
  // A read set has a bit per label, the stale P-side label included where slots are modelled.
  const staleLabel = shape.labels + 1;
  // With P's source pages, a write can land another user's KV from P's pool: the stale P-side label too.
  const setBits = shape.labels + (pageSize > 1 || config.sourcePages === true || config.loadback === true ? 1 : 0);
  const layout = layOut(presence, { pages, n, len, groups: groupNames.length, listCap, topLabel: staleLabel, setBits });
  return {
    config,
    ...shape,
    groups: groupNames.length,
    pages,
    layout,
    ...offsetsOf(layout, n),
    pageBytes: layout.widths.page === 1 ? 1 : 2,
    observedBytes: layout.widths.labelSet,
    size: layout.size,
    requestFields: requestFieldsOf(layout, n),
    labelBytes: labelBytesOf(layout),
    rereadsFinishedTable: config.faults.some((f) => FAULT_REREADS_FINISHED_TABLE[f]),
    keepDeadState: options.keepDeadState ?? false,
    decodeSteps: config.decodeSteps ?? 1,
    tableGrowth: config.tableGrowth === true,
    retraction: presence.retraction,
    radix: presence.radix,
    sourcePages: config.sourcePages === true,
    silentStub: stubsSilently(variant, config.faults),
    ownerCheck,
    fault: Object.fromEntries(FAULTS.map((f) => [f, has(f)])) as Record<Fault, boolean>,
    mechanism: mechanismsOf(variant, config.without),
    eviction,
    allocator,
    pageSize,
    lengthRule: config.lengthRule ?? 'gt',
    staleLabel,
    firstPage,
    multiset,
    listCap,
  };
}

/** What a configuration's requests and prefixes make: counts, lengths, groups and labels. */
function shapeOf(config: Config) {
  const n = config.requests.length;
  const groupNames: string[] = [];
  const group = new Int32Array(n);
  const len = new Uint16Array(n);
  const promptPages = new Uint16Array(n);
  const tokens = new Uint16Array(n);
  const pageSize = config.pageSize ?? 1;
  // Steps after the first write one token each, at slots tokens .. tokens + decodeSteps - 2.
  const grown = config.tableGrowth === true ? (config.decodeSteps ?? 1) - 1 : 0;
  config.requests.forEach((req: RequestSpec, r) => {
    tokens[r] = req.length;
    promptPages[r] = Math.ceil(req.length / pageSize);
    len[r] = Math.ceil((req.length + grown) / pageSize);
    if (req.prefix === undefined) {
      group[r] = -1;
      return;
    }
    group[r] = groupIndexOf(groupNames, req.prefix);
  });
  const { prefixPages, prefixBase, prefixParent, prefixFrom, ownLabels } = prefixShapeOf(groupNames, config.prefixPages ?? {});
  return { n, groupNames, group, len, promptPages, tokens, prefixPages, prefixBase, prefixParent, prefixFrom, labels: n + ownLabels };
}

/** The fields' offsets under the names readers know them by (see {@link compile} for the absent ones). */
function offsetsOf(laid: Laid, n: number) {
  const f = laid.fields;
  const end = laid.size;
  const or = (name: VariableName, absent: number): number => f[name]?.at ?? absent;
  const starts = (name: VariableName): Uint32Array => f[name]?.starts ?? new Uint32Array(n);
  return {
    holderAt: or('holder', end),
    dataAt: or('data', end),
    tagAt: or('tag', end),
    phaseAt: or('phase', end),
    flagsAt: or('flags', end),
    observedAt: or('observed', end),
    tableAt: starts('table'),
    dataPosAt: or('dataPos', end),
    stepsAt: or('steps', end),
    dataNextAt: or('dataParts', end),
    tagNextAt: or('tagParts', end),
    readAt: starts('reads'),
    tailAt: or('reads', end) + (f.reads?.bytes ?? 0),
    freeAt: or('free', -1),
    releaseAt: or('release', -1),
    listAt: or('list', -1),
    lockAt: or('lock', -1),
    fillAt: or('fill', -1),
    tagFillAt: or('tagFill', -1),
  };
}

/**
 * Whether request `r`'s prompt is too long for P: more tokens than the prefill limit
 * (rule `gt`), or at least as many (rule `ge`, SGLang's). Such a prompt is stubbed,
 * refused, or (fault `auto-truncate`) cut to the limit.
 */
export function isOverLong(m: Model, r: number): boolean {
  return isOverLongPrompt(m.tokens[r]!, m.config.prefillLimit, m.lengthRule);
}

/** The content labels and their readers (`labels.ts`), with the model they read. */
export * from './labels.ts';
