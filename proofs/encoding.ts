/**
 * The spec's transitions (`spec/transitions.ts`) as z3 relations between a pre-state `s`
 * and a post-state built from it, for an arbitrary acting request `r`.
 *
 * Each action gives its guards, then its effects; whatever it does not mention is the
 * pre-state's array itself. Where the spec is deterministic in a way that needs a bounded
 * loop (which free pages, which page a write lands in), the encoding chooses with fresh
 * symbols, constrained by what the spec guarantees. Where it is looser than the spec, the
 * comment says so; every such place only adds behaviours, and an invariant preserved by a
 * larger transition relation is preserved by the spec's.
 */
import { match } from 'ts-pattern';
import { compile, type ActionKind, type Fault, type Variant } from '../spec/index.ts';
import { at, forAll, holds, lambda, mayRead, ownSlot, put, shares, slotLabel, type Arr, type F, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** What the variant and faults switch on, read from the spec's own `compile` so that both agree. */
export interface Semantics {
  /** Decode checks owner tags; writes stamp them; allocate clears them. */
  readonly ownerCheck: boolean;
  /** `stub` writes one page and reports success, rather than refusing. */
  readonly silentStub: boolean;
  /** The faults switched on. */
  readonly fault: Readonly<Record<Fault, boolean>>;
}

/** The semantics of a variant with these faults, as the spec compiles them. */
export function semanticsOf(variant: Variant, faults: readonly Fault[]): Semantics {
  const m = compile({ pages: 1, prefillLimit: 0, requests: [], variant, faults });
  return { ownerCheck: m.ownerCheck, silentStub: m.silentStub, fault: m.fault };
}

/** One action as a relation: constraints on the pre-state and the fresh choices, and the post-state. */
export interface Transition {
  /** Guards and the constraints on the fresh symbols. */
  readonly constraints: readonly F[];
  /** The post-state. */
  readonly post: ZState;
  /** Set when the variant and faults rule the action out altogether (its guard is false). */
  readonly never?: true;
}

/** The initial state: every page free and never written, every request new with nothing read. Tables are left arbitrary. */
export function initial(v: Vocabulary, s: ZState): F[] {
  const { ctx, none } = v;
  const p = ctx.Const('p', v.Page);
  const q = ctx.Const('q', v.Req);
  const l = ctx.Const('l', v.Label);
  return [
    forAll(v, [p], ctx.And(at(s.holder, p).eq(none), at(s.data, p).eq(none), at(s.tag, p).eq(none))),
    forAll(v, [q], ctx.And(at(s.phase, q).eq(v.ph('new')), ctx.Not(holds(s.hit, q)), ctx.Not(holds(s.inserted, q)))),
    forAll(v, [q, l], ctx.Not(holds(s.read, q, l))),
  ];
}

/** The transition of `kind`, taken by request `r` in state `s`. */
export function transition(v: Vocabulary, sem: Semantics, kind: ActionKind, s: ZState, r: Z): Transition {
  return match(kind)
    .with('allocate', () => allocate(v, sem, s, r))
    .with('prefill', () => prefill(v, sem, s, r))
    .with('stub', () => stub(v, sem, s, r))
    .with('handoff', () => handoff(v, s, r))
    .with('decode', () => decode(v, sem, s, r))
    .with('free', () => free(v, sem, s, r))
    .with('timeout', () => timeout(v, sem, s, r))
    .with('insert', () => insert(v, sem, s, r))
    // Not encoded yet: `prove` refuses fault torn-write (cli/commands/prove.ts), without which these never happen.
    .with('landData', 'landTag', (): Transition => ({ constraints: [v.ctx.Bool.val(false)], post: s, never: true }))
    .exhaustive();
}

const phaseIn = (v: Vocabulary, s: ZState, r: Z, ...phases: Parameters<Vocabulary['ph']>[0][]): F =>
  v.ctx.Or(...phases.map((p) => at(s.phase, r).eq(v.ph(p))));

const setPhase = (s: ZState, r: Z, phase: Z): Arr => put(s.phase, r, phase);

/**
 * allocate(r). Looser than the spec: any free pages, not the lowest ones, and a hit may be
 * passed over although the prefix is cached (the spec always takes the cached page).
 */
function allocate(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx, none } = v;
  const { And, Implies, If, Not, Or } = ctx;
  const hit = ctx.Bool.const('allocate.hit');
  const row = ctx.Array.const('allocate.row', v.Slot, v.Page);
  const taken = ctx.Array.const('allocate.taken', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('allocate.slotOf', v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const k2 = ctx.Const('k2', v.Slot);
  const p = ctx.Const('p', v.Page);
  const q = ctx.Const('q', v.Req);
  const takenSlot = (x: Z): F => And(v.inTable(r, x), Not(And(hit, x.eq(v.slot0))));
  return {
    constraints: [
      at(s.phase, r).eq(v.ph('new')),
      // On a hit, slot 0 is a page held by r's prefix's cache entry, shared, not taken.
      Implies(hit, And(v.hasPrefix(r), at(s.holder, at(row, v.slot0)).eq(v.prefix(v.group(r))))),
      // Every other slot takes a free page, each a different one.
      forAll(v, [k], Implies(takenSlot(k), And(at(s.holder, at(row, k)).eq(none), holds(taken, at(row, k))))),
      forAll(v, [k, k2], Implies(And(takenSlot(k), takenSlot(k2), Not(k.eq(k2))), Not(at(row, k).eq(at(row, k2))))),
      // And nothing else is taken.
      forAll(v, [p], Implies(holds(taken, p), And(takenSlot(at(slotOf, p)), at(row, at(slotOf, p)).eq(p)))),
    ],
    post: {
      ...s,
      holder: lambda(v, [p], If(holds(taken, p), v.body(r), at(s.holder, p))),
      tag: sem.ownerCheck ? lambda(v, [p], If(holds(taken, p), none, at(s.tag, p))) : s.tag,
      table: lambda(v, [q, k], If(q.eq(r), at(row, k), at(s.table, q, k))),
      hit: put(s.hit, r, Or(holds(s.hit, r), hit)),
      phase: setPhase(s, r, v.ph('allocated')),
    },
  };
}

/**
 * prefill(r): every own slot (all but a shared slot 0) is written, by page id, whoever
 * holds the page now. `slotOf[p]` is the slot whose write page `p` got. Looser than the
 * spec: a page named by two slots gets either slot's label (the spec: the later one's).
 */
function prefill(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx } = v;
  const { And, Implies, If } = ctx;
  const written = ctx.Array.const('prefill.written', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('prefill.slotOf', v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const p = ctx.Const('p', v.Page);
  const label = (x: Z): Z => slotLabel(v, r, at(slotOf, x));
  return {
    constraints: [
      v.len(r).le(v.limit),
      phaseIn(v, s, r, 'allocated', 'timedOut'),
      forAll(v, [k], Implies(ownSlot(v, s, r, k), holds(written, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(written, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
    ],
    post: {
      ...s,
      data: lambda(v, [p], If(holds(written, p), label(p), at(s.data, p))),
      tag: sem.ownerCheck ? lambda(v, [p], If(holds(written, p), label(p), at(s.tag, p))) : s.tag,
      phase: setPhase(s, r, If(phaseIn(v, s, r, 'timedOut'), v.ph('landed'), v.ph('written')) as Z),
    },
  };
}

/** stub(r): the silent stub writes r's data into its first own page only; otherwise P refuses. */
function stub(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { If } = v.ctx;
  const guard = [v.len(r).gt(v.limit), phaseIn(v, s, r, 'allocated', 'timedOut')];
  const late = phaseIn(v, s, r, 'timedOut');
  if (!sem.silentStub) {
    return { constraints: guard, post: { ...s, phase: setPhase(s, r, If(late, v.ph('freed'), v.ph('refused')) as Z) } };
  }
  const page = at(s.table, r, If(shares(v, s, r), v.slot1, v.slot0) as Z);
  return {
    constraints: guard,
    post: {
      ...s,
      data: put(s.data, page, v.body(r)),
      tag: sem.ownerCheck ? put(s.tag, page, v.body(r)) : s.tag,
      phase: setPhase(s, r, If(late, v.ph('landed'), v.ph('written')) as Z),
    },
  };
}

/** handoff(r): P reported Success; D commits. */
function handoff(v: Vocabulary, s: ZState, r: Z): Transition {
  return { constraints: [phaseIn(v, s, r, 'written')], post: { ...s, phase: setPhase(s, r, v.ph('handedOff')) } };
}

/**
 * decode(r): with the owner check, every slot's tag must be r's or its prefix's, or r
 * fails and reads nothing; otherwise the label of every page in the table joins r's read
 * set. `slotOf[l]` is the slot whose page gave label `l`, constrained to name such a slot
 * whenever there is one: a label joins exactly when some slot's page holds it. The READ_UNHELD flag is not encoded: nothing reads it.
 */
function decode(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx, none } = v;
  const { And, Implies, If, Not, Or } = ctx;
  const ok = ctx.Bool.const('decode.ok');
  const slotOf = ctx.Array.const('decode.slotOf', v.Label, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const q = ctx.Const('q', v.Req);
  const l = ctx.Const('l', v.Label);
  const checked = forAll(v, [k], Implies(v.inTable(r, k), mayRead(v, r, at(s.tag, at(s.table, r, k)))));
  const gainedVia = (x: Z, from: Z): F => And(Not(x.eq(none)), v.inTable(r, from), at(s.data, at(s.table, r, from)).eq(x));
  const gained = gainedVia(l, at(slotOf, l));
  const l2 = ctx.Const('l2', v.Label);
  return {
    constraints: [
      phaseIn(v, s, r, 'handedOff'),
      sem.ownerCheck ? ok.eq(checked) : ok,
      // slotOf names a slot holding the label whenever one does: every label in the table is read
      forAll(v, [l2, k], Implies(gainedVia(l2, k), gainedVia(l2, at(slotOf, l2)))),
    ],
    post: {
      ...s,
      read: lambda(v, [q, l], Or(holds(s.read, q, l), And(ok, q.eq(r), gained))),
      phase: setPhase(s, r, If(ok, v.ph('decoded'), v.ph('failed')) as Z),
    },
  };
}

/** The pages of r's own slots go back to the free list, whoever holds them now. */
function release(v: Vocabulary, s: ZState, r: Z, name: string): Transition {
  const { ctx, none } = v;
  const { And, Implies, If } = ctx;
  const freed = ctx.Array.const(`${name}.released`, v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const(`${name}.slotOf`, v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const p = ctx.Const('p', v.Page);
  return {
    constraints: [
      forAll(v, [k], Implies(ownSlot(v, s, r, k), holds(freed, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(freed, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
    ],
    post: { ...s, holder: lambda(v, [p], If(holds(freed, p), none, at(s.holder, p))) },
  };
}

/** free(r): the normal release, or (fault stale-free) a second one of an old table. */
function free(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const normal = phaseIn(v, s, r, 'decoded', 'refused', 'failed');
  const stale = sem.fault['stale-free'] ? phaseIn(v, s, r, 'freed', 'landed') : v.ctx.Bool.val(false);
  const rel = release(v, s, r, 'free');
  return {
    constraints: [v.ctx.Or(normal, stale), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, v.ctx.If(normal, v.ph('freed'), v.ph('released')) as Z) },
  };
}

/** timeout(r), fault early-free: D frees r's pages while P's write is in flight. */
function timeout(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const rel = release(v, s, r, 'timeout');
  return {
    constraints: [v.ctx.Bool.val(sem.fault['early-free']), phaseIn(v, s, r, 'allocated'), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, v.ph('timedOut')) },
    ...(sem.fault['early-free'] ? {} : { never: true as const }),
  };
}

/** insert(r): r's first page goes to its prefix's cache entry, if the prefix has none yet. */
function insert(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { Not, Or, Bool } = v.ctx;
  const first = at(s.table, r, v.slot0);
  const p = v.ctx.Const('p', v.Page);
  const poison = sem.fault['prefix-poison'] ? phaseIn(v, s, r, 'refused', 'failed') : Bool.val(false);
  return {
    constraints: [
      v.hasPrefix(r),
      forAll(v, [p], Not(at(s.holder, p).eq(v.prefix(v.group(r))))),
      Not(shares(v, s, r)),
      at(s.holder, first).eq(v.body(r)),
      Or(phaseIn(v, s, r, 'decoded'), poison),
    ],
    post: { ...s, holder: put(s.holder, first, v.prefix(v.group(r))), inserted: put(s.inserted, r, true) },
  };
}
