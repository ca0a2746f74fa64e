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
import type { Context, FuncDecl, Sort } from 'z3-solver';
import { PHASES } from '../spec/index.ts';
import type { Arr, Bounds, F, N, Vocabulary, Z, ZState } from './vocabulary-types.ts';

export type { Arr, Bounds, F, N, Vocabulary, Z, ZState } from './vocabulary-types.ts';
export { at, holds, lambda, put } from './arrays.ts';
export { firstOwnSlot, leaks, live, mayRead, mayReadAt, ownSlot, prefixSlot, sharedSlot, shares, slotLabel } from './predicates.ts';

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

/** The sorts: pages, requests, groups and slots (uninterpreted, or enumerated when bounded), and the label, phase and record datatypes. */
function sortsOf(ctx: Context<'main'>, bounds: Bounds | undefined) {
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
  return { page, req, grp, slot, Page, Req, Grp, Slot, Label, Phase, Rec };
}

/** The sorts {@link sortsOf} declares. */
type Sorts = ReturnType<typeof sortsOf>;

/** The rigid symbols: the uninterpreted functions of requests, groups and slots, and the two named slots. */
function symbolsOf(ctx: Context<'main'>, { Req, Grp, Slot, slot }: Sorts) {
  const lastSlot = ctx.Function.declare('last', Req, Slot);
  const inPrefix = ctx.Function.declare('inPrefix', Grp, Slot, ctx.Bool.sort());
  const firstOwn = ctx.Function.declare('firstOwn', Grp, Slot);
  const len = ctx.Function.declare('len', Req, ctx.Int.sort());
  const hasPrefix = ctx.Function.declare('hasPrefix', Req, ctx.Bool.sort());
  const group = ctx.Function.declare('group', Req, Grp);
  const inTable = ctx.Function.declare('inTable', Req, Slot, ctx.Bool.sort());
  const [slot0 = ctx.Const('slot0', Slot), slot1 = ctx.Const('slot1', Slot)] = slot.elements;
  return { lastSlot, inPrefix, firstOwn, len, hasPrefix, group, inTable, slot0, slot1 };
}

/** The elements of each finite sort, by sort name, and of the labels (bounded universes only; empty otherwise). */
function elementsOf(bounds: Bounds | undefined, { page, req, grp, slot, Page, Req, Grp, Slot, Label }: Sorts): Map<string, Z[]> {
  const elements = new Map<string, Z[]>();
  if (bounds === undefined) return elements;
  const body = member<FuncDecl<'main'>>(Label, 'body');
  const prefix = member<FuncDecl<'main'>>(Label, 'prefix');
  for (const [sort, els] of [[Page, page.elements], [Req, req.elements], [Grp, grp.elements], [Slot, slot.elements]] as const) elements.set(String(sort.name()), els);
  // every value of the datatype, pages past a prefix's length included: a bounded quantifier over labels misses none
  const labels = [member<Z>(Label, 'none'), ...req.elements.map((x) => body.call(x) as Z), ...grp.elements.flatMap((g) => slot.elements.map((k) => prefix.call(g, k) as Z))];
  elements.set(String(Label.name()), labels);
  return elements;
}

/** Builds the vocabulary in `ctx`: unbounded (uninterpreted sorts) unless `bounds` are given. */
export function vocabulary(ctx: Context<'main'>, bounds?: Bounds): Vocabulary {
  const sorts = sortsOf(ctx, bounds);
  const { Page, Req, Grp, Slot, Label, Phase, Rec } = sorts;
  const f = symbolsOf(ctx, sorts);
  const elements = elementsOf(bounds, sorts);
  const body = member<FuncDecl<'main'>>(Label, 'body');
  const prefix = member<FuncDecl<'main'>>(Label, 'prefix');
  const v: Vocabulary = {
    ctx,
    ...(bounds === undefined ? {} : { bounds }),
    Page,
    Req,
    Grp,
    Slot,
    slot0: f.slot0,
    slot1: f.slot1,
    inPrefix: (g, k) => f.inPrefix.call(g, k) as F,
    firstOwn: (g) => f.firstOwn.call(g) as Z,
    inTable: (x, k) => f.inTable.call(x, k) as F,
    Label,
    Phase,
    Rec,
    unread: member<Z>(Rec, 'unread'),
    rd: (l, mis) => member<FuncDecl<'main'>>(Rec, 'rd').call(l, mis) as Z,
    isRd: (x) => member<FuncDecl<'main'>>(Rec, 'is_rd').call(x) as F,
    rdLabel: (x) => member<FuncDecl<'main'>>(Rec, 'rdLabel').call(x) as Z,
    rdMisplaced: (x) => member<FuncDecl<'main'>>(Rec, 'rdMisplaced').call(x) as F,
    last: (x) => f.lastSlot.call(x) as Z,
    decodeSteps: ctx.Int.const('decodeSteps'),
    none: member<Z>(Label, 'none'),
    body: (x) => body.call(x) as Z,
    prefix: (g, k) => prefix.call(g, k) as Z,
    isPrefix: (l) => member<FuncDecl<'main'>>(Label, 'is_prefix').call(l) as F,
    prefixGrp: (l) => member<FuncDecl<'main'>>(Label, 'grp').call(l) as Z,
    prefixPos: (l) => member<FuncDecl<'main'>>(Label, 'pos').call(l) as Z,
    ph: (p) => member<Z>(Phase, p),
    len: (x) => f.len.call(x) as N,
    hasPrefix: (x) => f.hasPrefix.call(x) as F,
    group: (x) => f.group.call(x) as Z,
    limit: ctx.Int.const('prefillLimit'),
    elements,
    axioms: [],
  };
  return { ...v, axioms: axiomsOf(v) };
}

/** What the slots and the configuration's validation guarantee ({@link Vocabulary.axioms}). */
function axiomsOf(v: Vocabulary): F[] {
  const { ctx, slot0, slot1 } = v;
  const r = ctx.Const('r', v.Req);
  const g = ctx.Const('g', v.Grp);
  const k = ctx.Const('k', v.Slot);
  const pg = v.group(r);
  return [
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
  ];
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
