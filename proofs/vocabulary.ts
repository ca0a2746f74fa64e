/**
 * The vocabulary of the z3 encoding: sorts, labels, phases, the rigid parameters and the
 * state as a record of arrays.
 *
 * Pages, requests and prefix groups are uninterpreted sorts: no size is fixed, so what is
 * proved holds for any number of each. The slots of page tables are a fourth uninterpreted
 * sort with two named elements, slot 0 and slot 1, and a relation saying which slots a
 * request's length covers. A content label is the datatype
 * `none | body(Req) | prefix(Grp, Slot)`, the spec's one alphabet (`model.ts`) with the
 * byte arithmetic replaced by constructors: `prefix(g, k)` is page `k` of prefix `g`,
 * one label per (group, page), distinct by construction. A prefix's length `plen(g)` is
 * the relation `inPrefix(g, k)` (`k < plen(g)`), unconstrained but for what the config's
 * validation guarantees (slot 0 is in it, every request with the prefix is longer than
 * it) and its first own slot `firstOwn(g)` (position `plen(g)`): so what is proved holds
 * for prefixes of any length. No order on slots is needed, and with every quantifier over
 * an uninterpreted sort (none over integers) z3 proves each obligation in seconds.
 * TypeOK is not a formula here: it is these sorts.
 *
 * The same vocabulary can be built over a bounded universe (enumerated sorts, every
 * quantifier expanded), where z3 finds counterexamples at once; see `obligations.ts`.
 */
import type { Arith, Bool, Context, Expr, FuncDecl, SMTArray, Sort } from 'z3-solver';
import { isLive, PHASES, type Phase } from '../spec/index.ts';

/** A z3 expression of the encoding. */
export type Z = Expr<'main'>;
/** A z3 formula. */
export type F = Bool<'main'>;
/** A z3 integer term. */
export type N = Arith<'main'>;
/** A z3 array: a state variable. */
export type Arr = SMTArray<'main'>;

/** One state: every variable of `state.ts` that the proofs need, as an array. */
export interface ZState {
  /** Page → Label: who holds the page (none, a request, or a prefix's cache entry). */
  readonly holder: Arr;
  /** Page → Label: whose content the page holds. */
  readonly data: Arr;
  /** Page → Label: the owner tag. */
  readonly tag: Arr;
  /** Req → Phase. */
  readonly phase: Arr;
  /** Req → Bool: allocated on its prefix's cached page (flag HIT). */
  readonly hit: Arr;
  /** Req → Bool: its first page was inserted into the prefix cache (flag INSERTED). */
  readonly inserted: Arr;
  /** Req × Label → Bool: the read set. */
  readonly read: Arr;
  /** Req × Slot → Page: the page table; the slots that count are those `inTable` says. */
  readonly table: Arr;
  /** Page → Slot: the table position the page's content was written for (meaningless while it holds nothing). */
  readonly dataPos: Arr;
  /** Req → Int: the decode steps taken. */
  readonly steps: Arr;
  /** Req × Slot → Rec: the read record, what decode read at each position (`spec/reads.ts`). */
  readonly rec: Arr;
  /** Req × Slot → Bool: the content part of r's write for this slot has landed (fault `torn-write`; meaningful while writing or landing). */
  readonly dataLanded: Arr;
  /** Req × Slot → Bool: the tag part of r's write for this slot has landed (likewise). */
  readonly tagLanded: Arr;
  /**
   * Page → Int: the page's copies on the free list (fault `double-free`, where it is a
   * multiset). Absent without the fault: the free list is then the set of pages nobody
   * holds, as `holder` says.
   */
  readonly free?: Arr;
}

/** Sizes of a bounded universe: the finite sorts used to search for counterexamples fast. */
export interface Bounds {
  /** Number of pages. */
  readonly pages: number;
  /** Number of requests. */
  readonly requests: number;
  /** Number of prefix groups. */
  readonly groups: number;
  /** Number of page-table slots (at least 2). */
  readonly slots: number;
}

/** Sorts, constructors and rigid symbols, built once per z3 context. */
export interface Vocabulary {
  /** The z3 context everything lives in. */
  readonly ctx: Context<'main'>;
  /** Set for a bounded universe: then every quantifier is expanded over the elements. */
  readonly bounds?: Bounds;
  /** The sort of pages. */
  readonly Page: Sort<'main'>;
  /** The sort of requests. */
  readonly Req: Sort<'main'>;
  /** The sort of prefix groups. */
  readonly Grp: Sort<'main'>;
  /** The sort of page-table slots. */
  readonly Slot: Sort<'main'>;
  /** Slot 0: a table's first position, always one of its prefix's. */
  readonly slot0: Z;
  /** Slot 1: a table's second position. */
  readonly slot1: Z;
  /** Whether slot `k` is one of prefix group `g`'s positions (`k < plen(g)`). */
  readonly inPrefix: (g: Z, k: Z) => F;
  /** Prefix group `g`'s first position past its pages (`plen(g)`): where a stub writes when the prefix is shared. */
  readonly firstOwn: (g: Z) => Z;
  /** Whether slot `k` is below request `r`'s length (`k < len(r)`). */
  readonly inTable: (r: Z, k: Z) => F;
  /** The label datatype. */
  readonly Label: Sort<'main'>;
  /** The phase datatype, one constructor per spec phase. */
  readonly Phase: Sort<'main'>;
  /** The read-record datatype: `unread | rd(label, misplaced)`. */
  readonly Rec: Sort<'main'>;
  /** Record `unread`. */
  readonly unread: Z;
  /** Record `rd(l, misplaced)`: label `l` read, written for another position when `misplaced`. */
  readonly rd: (l: Z, misplaced: F) => Z;
  /** Whether a record is some `rd(...)`. */
  readonly isRd: (x: Z) => F;
  /** The label of a record `rd(l, _)`. */
  readonly rdLabel: (x: Z) => Z;
  /** The misplaced flag of a record `rd(_, m)`. */
  readonly rdMisplaced: (x: Z) => F;
  /** A request's last table position (where a decode step writes its token). */
  readonly last: (r: Z) => Z;
  /** How many decode steps a request takes. */
  readonly decodeSteps: N;
  /** Label `none`: no data, no tag, free. */
  readonly none: Z;
  /** Label `body(r)`. */
  readonly body: (r: Z) => Z;
  /** Label `prefix(g, k)`: page `k` of prefix group `g`'s data. */
  readonly prefix: (g: Z, k: Z) => Z;
  /** Whether a label is some `prefix(g, k)`. */
  readonly isPrefix: (l: Z) => F;
  /** The group of a label `prefix(g, k)`. */
  readonly prefixGrp: (l: Z) => Z;
  /** The page (position) of a label `prefix(g, k)`. */
  readonly prefixPos: (l: Z) => Z;
  /** The phase constant of that name. */
  readonly ph: (p: Phase) => Z;
  /** A request's length in pages. */
  readonly len: (r: Z) => N;
  /** Whether a request has a prompt prefix. */
  readonly hasPrefix: (r: Z) => F;
  /** A request's prefix group (meaningful when it has one). */
  readonly group: (r: Z) => Z;
  /** P's prefill limit. */
  readonly limit: N;
  /** The elements of each finite sort, by sort name (bounded universes only). */
  readonly elements: ReadonlyMap<string, readonly Z[]>;
  /**
   * What the slots and the configuration's validation guarantee: slots 0 and 1 differ,
   * every request has slot 0 and a length of at least 1, it has slot 1 exactly when its
   * length is at least 2, which a request with a prefix is; every prefix has slot 0, and
   * a request with a prefix covers the prefix's slots and its first own slot, at which or
   * past which its last slot lies; and the limit is not negative.
   */
  readonly axioms: readonly F[];
}

/** A datatype member by name (constructors, recognizers), which z3-solver attaches untyped. */
function member<T>(sort: Sort<'main'>, name: string): T {
  const m = (sort as unknown as Record<string, unknown>)[name];
  if (m === undefined) throw new Error(`z3 datatype ${sort.name()} has no member ${name}`);
  return m as T;
}

/** A sort: uninterpreted, or (bounded) an enumeration `p0 .. p{n-1}`. */
function declareSort(ctx: Context<'main'>, name: string, prefix: string, size: number | undefined): { sort: Sort<'main'>; elements: Z[] } {
  if (size === undefined) return { sort: ctx.Sort.declare(name), elements: [] };
  const dt = ctx.Datatype(name);
  for (let i = 0; i < size; i++) dt.declare(`${prefix}${i}`);
  const sort = dt.create();
  return { sort, elements: Array.from({ length: size }, (_, i) => member<Z>(sort, `${prefix}${i}`)) };
}

/** Builds the vocabulary in `ctx`: unbounded (uninterpreted sorts) unless `bounds` are given. */
export function vocabulary(ctx: Context<'main'>, bounds?: Bounds): Vocabulary {
  const page = declareSort(ctx, 'Page', 'p', bounds?.pages);
  const req = declareSort(ctx, 'Req', 'r', bounds?.requests);
  const grp = declareSort(ctx, 'Grp', 'g', bounds?.groups);
  const slot = declareSort(ctx, 'Slot', 'k', bounds?.slots);
  const [Page, Req, Grp, Slot] = [page.sort, req.sort, grp.sort, slot.sort];
  const label = ctx.Datatype('Label');
  label.declare('none').declare('body', ['who', Req]).declare('prefix', ['grp', Grp], ['pos', Slot]);
  const Label = label.create();
  const phase = ctx.Datatype('Phase');
  for (const p of PHASES) phase.declare(p);
  const Phase = phase.create();
  const rec = ctx.Datatype('Rec');
  rec.declare('unread').declare('rd', ['rdLabel', Label], ['rdMisplaced', ctx.Bool.sort()]);
  const Rec = rec.create();
  const lastSlot = ctx.Function.declare('last', Req, Slot);
  const body = member<FuncDecl<'main'>>(Label, 'body');
  const prefix = member<FuncDecl<'main'>>(Label, 'prefix');
  const isPrefix = member<FuncDecl<'main'>>(Label, 'is_prefix');
  const prefixGrp = member<FuncDecl<'main'>>(Label, 'grp');
  const prefixPos = member<FuncDecl<'main'>>(Label, 'pos');
  const inPrefix = ctx.Function.declare('inPrefix', Grp, Slot, ctx.Bool.sort());
  const firstOwn = ctx.Function.declare('firstOwn', Grp, Slot);
  const none = member<Z>(Label, 'none');
  const len = ctx.Function.declare('len', Req, ctx.Int.sort());
  const hasPrefix = ctx.Function.declare('hasPrefix', Req, ctx.Bool.sort());
  const group = ctx.Function.declare('group', Req, Grp);
  const inTable = ctx.Function.declare('inTable', Req, Slot, ctx.Bool.sort());
  const [slot0 = ctx.Const('slot0', Slot), slot1 = ctx.Const('slot1', Slot)] = slot.elements;
  const elements = new Map<string, Z[]>();
  if (bounds !== undefined) {
    for (const [sort, els] of [[Page, page.elements], [Req, req.elements], [Grp, grp.elements], [Slot, slot.elements]] as const) elements.set(String(sort.name()), els);
    // every value of the datatype, pages past a prefix's length included: a bounded quantifier over labels misses none
    const labels = [none, ...req.elements.map((x) => body.call(x) as Z), ...grp.elements.flatMap((g) => slot.elements.map((k) => prefix.call(g, k) as Z))];
    elements.set(String(Label.name()), labels);
  }
  const v: Vocabulary = {
    ctx,
    ...(bounds === undefined ? {} : { bounds }),
    Page,
    Req,
    Grp,
    Slot,
    slot0,
    slot1,
    inPrefix: (g, k) => inPrefix.call(g, k) as F,
    firstOwn: (g) => firstOwn.call(g) as Z,
    inTable: (x, k) => inTable.call(x, k) as F,
    Label,
    Phase,
    Rec,
    unread: member<Z>(Rec, 'unread'),
    rd: (l, mis) => member<FuncDecl<'main'>>(Rec, 'rd').call(l, mis) as Z,
    isRd: (x) => member<FuncDecl<'main'>>(Rec, 'is_rd').call(x) as F,
    rdLabel: (x) => member<FuncDecl<'main'>>(Rec, 'rdLabel').call(x) as Z,
    rdMisplaced: (x) => member<FuncDecl<'main'>>(Rec, 'rdMisplaced').call(x) as F,
    last: (x) => lastSlot.call(x) as Z,
    decodeSteps: ctx.Int.const('decodeSteps'),
    none,
    body: (x) => body.call(x) as Z,
    prefix: (g, k) => prefix.call(g, k) as Z,
    isPrefix: (l) => isPrefix.call(l) as F,
    prefixGrp: (l) => prefixGrp.call(l) as Z,
    prefixPos: (l) => prefixPos.call(l) as Z,
    ph: (p) => member<Z>(Phase, p),
    len: (x) => len.call(x) as N,
    hasPrefix: (x) => hasPrefix.call(x) as F,
    group: (x) => group.call(x) as Z,
    limit: ctx.Int.const('prefillLimit'),
    elements,
    axioms: [],
  };
  const r = ctx.Const('r', Req);
  const g = ctx.Const('g', Grp);
  const k = ctx.Const('k', Slot);
  const pg = v.group(r);
  return {
    ...v,
    axioms: [
      ctx.Not(slot0.eq(slot1)),
      forAll(v, [r], ctx.And(v.inTable(r, slot0), v.len(r).ge(1))),
      forAll(v, [r], ctx.Implies(v.hasPrefix(r), v.len(r).ge(2))),
      forAll(v, [r], v.inTable(r, slot1).eq(v.len(r).ge(2))),
      v.limit.ge(0),
      v.decodeSteps.ge(1),
      // the last position is in the table; it is slot 0 exactly when the table has one page
      forAll(v, [r], ctx.And(v.inTable(r, v.last(r)), v.last(r).eq(slot0).eq(v.len(r).eq(1)))),
      forAll(v, [r], ctx.Implies(v.len(r).eq(2), v.last(r).eq(slot1))),
      // plen(g) >= 1, position plen(g) is not a prefix position, and a request is longer than its prefix
      forAll(v, [g], ctx.And(v.inPrefix(g, slot0), ctx.Not(v.inPrefix(g, v.firstOwn(g))))),
      forAll(v, [r, k], ctx.Implies(ctx.And(v.hasPrefix(r), v.inPrefix(pg, k)), v.inTable(r, k))),
      forAll(v, [r], ctx.Implies(v.hasPrefix(r), ctx.And(v.inTable(r, v.firstOwn(pg)), ctx.Not(v.inPrefix(pg, v.last(r)))))),
    ],
  };
}

/**
 * A fresh state named `name`: every variable an unconstrained array, except that without
 * the owner check there is no tag to speak of: the spec keeps it zero, so it is the
 * constant array `none`; and only a free list that is a multiset (`multiset`, fault
 * `double-free`) has its copies counted.
 */
export function freshState(v: Vocabulary, name: string, ownerCheck: boolean, multiset = false): ZState {
  const { Array: A, Bool } = v.ctx;
  return {
    holder: A.const(`${name}.holder`, v.Page, v.Label),
    data: A.const(`${name}.data`, v.Page, v.Label),
    tag: ownerCheck ? A.const(`${name}.tag`, v.Page, v.Label) : (A.K as unknown as (d: Sort<'main'>, x: Z) => Arr)(v.Page, v.none),
    phase: A.const(`${name}.phase`, v.Req, v.Phase),
    hit: A.const(`${name}.hit`, v.Req, Bool.sort()),
    inserted: A.const(`${name}.inserted`, v.Req, Bool.sort()),
    read: A.const(`${name}.read`, v.Req, v.Label, Bool.sort()),
    table: A.const(`${name}.table`, v.Req, v.Slot, v.Page),
    dataPos: A.const(`${name}.dataPos`, v.Page, v.Slot),
    steps: A.const(`${name}.steps`, v.Req, v.ctx.Int.sort()),
    rec: A.const(`${name}.rec`, v.Req, v.Slot, v.Rec),
    dataLanded: A.const(`${name}.dataLanded`, v.Req, v.Slot, Bool.sort()),
    tagLanded: A.const(`${name}.tagLanded`, v.Req, v.Slot, Bool.sort()),
    ...(multiset ? { free: A.const(`${name}.free`, v.Page, v.ctx.Int.sort()) } : {}),
  };
}

/** `a[i, ...]` as a term. */
export function at(a: Arr, ...ix: (Z | number)[]): Z {
  return (a.select as (...i: (Z | number)[]) => Z)(...ix);
}

/** `a[i, ...]` as a formula (for the Bool-valued arrays). */
export function holds(a: Arr, ...ix: (Z | number)[]): F {
  return at(a, ...ix) as F;
}

/** `a` with `a[i, ...] = x`. */
export function put(a: Arr, ...ixAndValue: (Z | number | boolean)[]): Arr {
  return (a.store as (...x: (Z | number | boolean)[]) => Arr)(...ixAndValue);
}

/** Whether slot `k` is one of request `r`'s prefix positions (`k < plen(group(r))`; none without a prefix). */
export function prefixSlot(v: Vocabulary, r: Z, k: Z): F {
  return v.ctx.And(v.hasPrefix(r), v.inPrefix(v.group(r), k));
}

/** Whether request `r` may read label `l`: its own data, or any page of its prefix's. */
export function mayRead(v: Vocabulary, r: Z, l: Z): F {
  const { Or, And } = v.ctx;
  return Or(l.eq(v.body(r)), And(v.isPrefix(l), v.prefixGrp(l).eq(v.group(r)), prefixSlot(v, r, v.prefixPos(l))));
}

/** Whether request `r` may read label `l` at table position `k`: its own data anywhere, page `k` of its prefix only at position `k < plen`. */
export function mayReadAt(v: Vocabulary, r: Z, k: Z, l: Z): F {
  const { Or, And } = v.ctx;
  return Or(l.eq(v.body(r)), And(prefixSlot(v, r, k), l.eq(v.prefix(v.group(r), k))));
}

/** Whether read record `x` of `r` at position `k` is a leak (`spec/reads.ts`, verdict `isolation`). */
export function leaks(v: Vocabulary, r: Z, k: Z, x: Z): F {
  const { And, Not } = v.ctx;
  const l = v.rdLabel(x);
  return And(v.isRd(x), Not(l.eq(v.none)), Not(mayReadAt(v, r, k, l)));
}

/** Whether `r` shares its first pages with the prefix cache (HIT or INSERTED). */
export function shares(v: Vocabulary, s: ZState, r: Z): F {
  return v.ctx.Or(holds(s.hit, r), holds(s.inserted, r));
}

/** Whether slot `k` of `r`'s table is a shared prefix page: a prefix position of a request that shares. */
export function sharedSlot(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  return v.ctx.And(shares(v, s, r), prefixSlot(v, r, k));
}

/** Whether slot `k` of `r`'s table is one of its own pages: in its table, and not a shared prefix page. */
export function ownSlot(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  const { And, Not } = v.ctx;
  return And(v.inTable(r, k), Not(sharedSlot(v, s, r, k)));
}

/** r's first own slot: past the shared prefix pages (`plen`) when it shares them, else slot 0. */
export function firstOwnSlot(v: Vocabulary, s: ZState, r: Z): Z {
  const { If, And } = v.ctx;
  return If(And(shares(v, s, r), v.hasPrefix(r)), v.firstOwn(v.group(r)), v.slot0) as Z;
}

/** What prefill writes into slot `k` of `r`'s table: page `k` of the prefix's data at a prefix position, else r's own. */
export function slotLabel(v: Vocabulary, r: Z, k: Z): Z {
  return v.ctx.If(prefixSlot(v, r, k), v.prefix(v.group(r), k), v.body(r)) as Z;
}

/** Whether a phase is one in which the request holds its table (`isLive` in `state.ts`). */
export function live(v: Vocabulary, phase: Z): F {
  return v.ctx.Or(...PHASES.filter((_, code) => isLive(code)).map((p) => phase.eq(v.ph(p))));
}

/** The array `λ vars. body`: a state variable defined pointwise. */
export function lambda(v: Vocabulary, vars: [Z, ...Z[]], body: Z): Arr {
  return (v.ctx.Lambda as (vs: Z[], b: Z) => Arr)(vars, body);
}

/**
 * `∀ vars. body`. In a bounded universe the quantifier is expanded into the conjunction of
 * its instances, so that z3 sees a quantifier-free problem.
 */
export function forAll(v: Vocabulary, vars: readonly Z[], body: F): F {
  if (vars.length === 0) return body;
  if (v.bounds === undefined) return (v.ctx.ForAll as unknown as (vs: readonly Z[], b: F) => F)(vars, body);
  let instances: [Z, Z][][] = [[]];
  for (const x of vars) {
    const els = v.elements.get(String(x.sort.name())) ?? [];
    instances = instances.flatMap((pairs) => els.map((e): [Z, Z][] => [...pairs, [x, e]]));
  }
  return v.ctx.And(...instances.map((pairs) => v.ctx.substitute(body, ...pairs) as F));
}
