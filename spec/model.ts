/**
 * A configuration compiled into the layout of its states. A state is a flat byte string
 * (see `state.ts`); the model says where each variable lives in it and how the small
 * integers stored there are to be read.
 *
 * Content labels. A page's data, its owner tag and its holder are all one byte from the
 * same alphabet: `0` is nobody / no data, `1..n` is request `r = label - 1` (its own
 * data, or the request that holds the page), and `n+1 .. n+groups` is prefix group
 * `g = label - n - 1` (data written for that shared prefix, or the prefix cache entry
 * that holds the page). One alphabet keeps the tag check a single comparison.
 *
 * Content has a position. A page's content is a label and the table position it was
 * written for (a request's body at position i, a prefix at position 0, its only one):
 * the KV of a token depends on every token before it, so a page is correct only at the
 * position it was computed for. The position sits in a byte of its own, after the
 * first model's variables: the layout only grows at its end.
 */
import { FAULT_REREADS_FINISHED_TABLE, type Allocator, type Config, type Fault, type LengthRule, type RequestSpec, type Variant } from './config.ts';

/**
 * A per-request variable of the state, as a renaming of requests moves it: request `r`'s
 * bytes `at[r] .. at[r]+width[r]` go to the renamed request's place. A `value` is copied
 * as it is (a phase, flags, page ids); a `labelSet` is a 32-bit little-endian set of
 * content labels (bit `label - 1`), whose request bits are renamed too; a `readRecord`
 * byte holds a label in its low bits (`READ_LABEL` in `state.ts`), renamed too, and flags
 * above them. Every
 * per-request variable is listed here, in the order the symmetry key compares them: a
 * new variable registered here is permuted, and compared, with no other change.
 */
export interface RequestField {
  /** The variable's name. */
  readonly name: string;
  /** How its bytes change under a renaming. */
  readonly kind: 'value' | 'labelSet' | 'readRecord';
  /** Per request: its offset in the state. */
  readonly at: Uint32Array;
  /** Per request: its width in bytes. */
  readonly width: Uint16Array;
}
import { MECHANISMS, type Mechanism } from './hardening.ts';

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
  readonly group: Int8Array;
  /** Per request: its length in pages, `ceil(tokens / pageSize)`. */
  readonly len: Uint16Array;
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
  /** Offset of the per-page owner tags (only ever non-zero under `owner-check`). */
  readonly tagAt: number;
  /** Offset of the per-request phase bytes. */
  readonly phaseAt: number;
  /** Offset of the per-request flag bytes. */
  readonly flagsAt: number;
  /** Offset of the per-request read sets, 4 bytes each, little-endian. */
  readonly observedAt: number;
  /** Offset of the per-page content positions: the table position the content was written for. */
  readonly dataPosAt: number;
  /** Offset of the per-request decode step counts. */
  readonly stepsAt: number;
  /** Offset of the per-request counts of content parts of its write that have landed (fault `torn-write`). */
  readonly dataNextAt: number;
  /** Offset of the per-request counts of tag parts of its write that have landed (fault `torn-write`). */
  readonly tagNextAt: number;
  /** Per request: the offset of its read record, one byte per table position (see `state.ts`). */
  readonly readAt: Uint16Array;
  /** Length of a state in bytes. */
  readonly size: number;
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
  /** Whether the free list is a multiset (fault `double-free`), not a set. */
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

/** Pools up to this many pages store a page id in one byte. */
const ONE_BYTE_PAGES = 254;

/** How to compile: `keepDeadState` gives the naive encoding, which keeps dead variables (for comparisons only). */
export interface CompileOptions {
  /** Keep a finished request's dead page table instead of resetting it; default false. */
  readonly keepDeadState?: boolean;
}

/** Compiles a validated configuration. */
export function compile(config: Config, options: CompileOptions = {}): Model {
  const n = config.requests.length;
  const groupNames: string[] = [];
  const group = new Int8Array(n);
  const len = new Uint16Array(n);
  const tokens = new Uint16Array(n);
  const pageSize = config.pageSize ?? 1;
  config.requests.forEach((req: RequestSpec, r) => {
    tokens[r] = req.length;
    len[r] = Math.ceil(req.length / pageSize);
    if (req.prefix === undefined) {
      group[r] = -1;
      return;
    }
    let g = groupNames.indexOf(req.prefix);
    if (g < 0) g = groupNames.push(req.prefix) - 1;
    group[r] = g;
  });
  const allocator: Allocator = config.allocator ?? 'sorted';
  const firstPage = allocator === 'sglang' || allocator === 'lifo' ? 1 : 0;
  const pages = config.pages + firstPage;
  const holderAt = 0;
  const dataAt = pages;
  const tagAt = 2 * pages;
  const phaseAt = 3 * pages;
  const flagsAt = phaseAt + n;
  const observedAt = flagsAt + n;
  const pageBytes = pages > ONE_BYTE_PAGES ? 2 : 1;
  const tableAt = new Uint32Array(n);
  let at = observedAt + 4 * n;
  for (let r = 0; r < n; r++) {
    tableAt[r] = at;
    at += pageBytes * (len[r] ?? 0);
  }
  const dataPosAt = at;
  at += pages;
  const stepsAt = at;
  const dataNextAt = stepsAt + n;
  const tagNextAt = dataNextAt + n;
  at = tagNextAt + n;
  const readAt = new Uint16Array(n);
  for (let r = 0; r < n; r++) {
    readAt[r] = at;
    at += len[r] ?? 0;
  }
  const has = (f: Fault): boolean => config.faults.includes(f);
  const every = (offset: (r: number) => number, width: (r: number) => number) => ({
    at: Uint32Array.from({ length: n }, (_, r) => offset(r)),
    width: Uint16Array.from({ length: n }, (_, r) => width(r)),
  });
  const requestFields: RequestField[] = [
    { name: 'phase', kind: 'value', ...every((r) => phaseAt + r, () => 1) },
    { name: 'flags', kind: 'value', ...every((r) => flagsAt + r, () => 1) },
    { name: 'table', kind: 'value', ...every((r) => tableAt[r] ?? 0, (r) => pageBytes * (len[r] ?? 0)) },
    { name: 'observed', kind: 'labelSet', ...every((r) => observedAt + 4 * r, () => 4) },
    { name: 'steps', kind: 'value', ...every((r) => stepsAt + r, () => 1) },
    { name: 'dataParts', kind: 'value', ...every((r) => dataNextAt + r, () => 1) },
    { name: 'tagParts', kind: 'value', ...every((r) => tagNextAt + r, () => 1) },
    { name: 'reads', kind: 'readRecord', ...every((r) => readAt[r] ?? 0, (r) => len[r] ?? 0) },
  ];
  const variant: Variant = config.variant;
  const multiset = has('double-free');
  const tailAt = at;
  const freeAt = allocator === 'sglang' || (multiset && allocator !== 'lifo') ? at : -1;
  if (freeAt >= 0) at += pages;
  const releaseAt = allocator === 'sglang' ? at : -1;
  if (releaseAt >= 0) at += pages;
  let entries = 0;
  for (let r = 0; r < n; r++) entries += len[r] ?? 0;
  const listCap = allocator === 'lifo' ? config.pages + (multiset ? entries : 0) : 0;
  const listAt = allocator === 'lifo' ? at : -1;
  at += listCap;
  const eviction = config.eviction === true && groupNames.length > 0;
  const lockAt = eviction ? at : -1;
  if (eviction) at += groupNames.length;
  // Slots: appended last, and only with more than one slot per page, so whole pages keep the first model's layout.
  const fillAt = pageSize > 1 ? at : -1;
  if (fillAt >= 0) at += pages;
  const ownerCheck = variant === 'owner-check' || variant === 'hardened';
  const tagFillAt = pageSize > 1 && ownerCheck ? at : -1;
  if (tagFillAt >= 0) at += pages;
  return {
    config,
    pages,
    n,
    groups: groupNames.length,
    groupNames,
    group,
    len,
    tableAt,
    pageBytes,
    holderAt,
    dataAt,
    tagAt,
    phaseAt,
    flagsAt,
    observedAt,
    dataPosAt,
    stepsAt,
    dataNextAt,
    tagNextAt,
    readAt,
    size: at,
    requestFields,
    labelBytes: phaseAt,
    rereadsFinishedTable: config.faults.some((f) => FAULT_REREADS_FINISHED_TABLE[f]),
    keepDeadState: options.keepDeadState ?? false,
    decodeSteps: config.decodeSteps ?? 1,
    silentStub: variant !== 'length-fix' && has('silent-stub'),
    ownerCheck,
    fault: {
      'silent-stub': has('silent-stub'),
      'early-free': has('early-free'),
      'stale-free': has('stale-free'),
      'prefix-poison': has('prefix-poison'),
      'double-free': multiset,
      'lock-underflow': has('lock-underflow'),
      'torn-write': has('torn-write'),
      'auto-truncate': has('auto-truncate'),
    },
    mechanism: Object.fromEntries(MECHANISMS.map((k) => [k, variant === 'hardened'])) as Record<Mechanism, boolean>,
    eviction,
    lockAt,
    allocator,
    pageSize,
    lengthRule: config.lengthRule ?? 'gt',
    fillAt,
    tagFillAt,
    staleLabel: n + groupNames.length + 1,
    tokens,
    firstPage,
    multiset,
    tailAt,
    freeAt,
    releaseAt,
    listAt,
    listCap,
  };
}

/** The label of request `r`'s own data (and of `r` as a holder). */
export function bodyLabel(r: number): number {
  return r + 1;
}

/** The label of prefix group `g`'s data (and of its prefix-cache entry as a holder). */
export function prefixLabel(m: Model, g: number): number {
  return m.n + 1 + g;
}

/** The labels request `r` may legitimately read somewhere in its table: its own data and its prefix's. */
export function mayRead(m: Model, r: number, label: number): boolean {
  if (label === bodyLabel(r)) return true;
  const g = m.group[r] ?? -1;
  return g >= 0 && label === prefixLabel(m, g);
}

/** Whether table position `i` of request `r` is its prefix's position (the prefix is one page, at position 0). */
export function isPrefixPosition(m: Model, r: number, i: number): boolean {
  return i === 0 && (m.group[r] ?? -1) >= 0;
}

/**
 * The labels request `r` may read at table position `i`: its own data anywhere, its
 * prefix's data only at the prefix's position. The owner check and `Isolation` both ask this.
 */
export function mayReadAt(m: Model, r: number, i: number, label: number): boolean {
  if (label === bodyLabel(r)) return true;
  return isPrefixPosition(m, r, i) && label === prefixLabel(m, m.group[r] ?? -1);
}

/**
 * Whether request `r`'s prompt is too long for P: more tokens than the prefill limit
 * (rule `gt`), or at least as many (rule `ge`, SGLang's). Such a prompt is stubbed,
 * refused, or (fault `auto-truncate`) cut to the limit.
 */
export function isOverLong(m: Model, r: number): boolean {
  const t = m.tokens[r] ?? 0;
  return m.lengthRule === 'ge' ? t >= m.config.prefillLimit : t > m.config.prefillLimit;
}

/** Whether a label names a request's body (not a prefix, not nobody). */
export function isBodyLabel(m: Model, label: number): boolean {
  return label >= 1 && label <= m.n;
}

/** A label in words: `A`, `prefix sys`, or `nobody`. */
export function labelName(m: Model, label: number): string {
  if (label === 0) return 'nobody';
  if (label === m.staleLabel) return 'stale P-side data';
  if (label <= m.n) return m.config.requests[label - 1]?.name ?? `?${label}`;
  return `prefix ${m.groupNames[label - m.n - 1] ?? '?'}`;
}
