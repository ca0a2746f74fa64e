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
import { compile, type ActionKind, type Fault, type Mechanism, type Model, type Variant } from '../spec/index.ts';
import { isProofKind } from './coverage.ts';
import { at, firstOwnSlot, forAll, holds, lambda, leaks, mayReadAt, ownSlot, prefixSlot, put, shares, slotLabel, type Arr, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** What the variant and faults switch on, read from the spec's own `compile` so that both agree. */
export interface Semantics {
  /** Decode checks owner tags; writes stamp them; allocate clears them. */
  readonly ownerCheck: boolean;
  /** `stub` writes one page and reports success, rather than refusing. */
  readonly silentStub: boolean;
  /** The faults switched on. */
  readonly fault: Readonly<Record<Fault, boolean>>;
  /** The mechanisms of `hardened` switched on. */
  readonly mechanism: Readonly<Record<Mechanism, boolean>>;
  /** The free list is a multiset (fault `double-free`): the state counts each page's copies on it. */
  readonly multiset: boolean;
}

/**
 * The semantics of a variant with these faults, as the spec compiles them; `without`
 * switches mechanisms of `hardened` off, as the removal tests of the checker do.
 */
export function semanticsOf(variant: Variant, faults: readonly Fault[], without: readonly Mechanism[] = []): Semantics {
  const m = withoutMechanisms(compile({ pages: 1, prefillLimit: 0, requests: [], variant, faults }), without);
  return { ownerCheck: m.ownerCheck, silentStub: m.silentStub, fault: m.fault, mechanism: m.mechanism, multiset: m.multiset };
}

/** The model with these mechanisms of `hardened` switched off. */
export function withoutMechanisms(m: Model, without: readonly Mechanism[]): Model {
  if (without.length === 0) return m;
  return { ...m, mechanism: { ...m.mechanism, ...Object.fromEntries(without.map((k) => [k, false])) } };
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
  const k = ctx.Const('k', v.Slot);
  return [
    forAll(v, [p], ctx.And(at(s.holder, p).eq(none), at(s.data, p).eq(none), at(s.tag, p).eq(none))),
    forAll(v, [q], ctx.And(at(s.phase, q).eq(v.ph('new')), ctx.Not(holds(s.hit, q)), ctx.Not(holds(s.inserted, q)))),
    forAll(v, [q, l], ctx.Not(holds(s.read, q, l))),
    forAll(v, [q], (at(s.steps, q) as N).eq(0)),
    forAll(v, [q, k], at(s.rec, q, k).eq(v.unread)),
    // every page on the free list at most once (looser than the spec: its pages from the first id on, exactly once)
    ...(s.free === undefined ? [] : [forAll(v, [p], ctx.And((at(s.free, p) as N).ge(0), (at(s.free, p) as N).le(1)))]),
  ];
}

/** The transition of `kind`, taken by request `r` in state `s`. */
export function transition(v: Vocabulary, sem: Semantics, kind: ActionKind, s: ZState, r: Z): Transition {
  // A kind the proof does not cover (proofs/coverage.ts: evict, grow, retraction's) never happens in the configurations it is about.
  if (!isProofKind(kind)) return evictNever(v, s);
  return match(kind)
    .with('allocate', () => allocate(v, sem, s, r))
    .with('prefill', () => prefill(v, sem, s, r))
    .with('stub', () => stub(v, sem, s, r))
    .with('handoff', () => handoff(v, s, r))
    .with('decode', () => decode(v, sem, s, r))
    .with('free', () => free(v, sem, s, r))
    .with('timeout', () => timeout(v, sem, s, r))
    .with('insert', () => insert(v, sem, s, r))
    .with('landData', () => land(v, sem, s, r, 'data'))
    .with('landTag', () => land(v, sem, s, r, 'tag'))
    .exhaustive();
}

const phaseIn = (v: Vocabulary, s: ZState, r: Z, ...phases: Parameters<Vocabulary['ph']>[0][]): F =>
  v.ctx.Or(...phases.map((p) => at(s.phase, r).eq(v.ph(p))));

const setPhase = (s: ZState, r: Z, phase: Z): Arr => put(s.phase, r, phase);

/**
 * allocate(r). Looser than the spec: any free pages, not the lowest ones (every allocation
 * order at once), and a hit may be passed over although the prefix is cached (the spec
 * always takes the cached page). With fault double-free, pages with a copy on the free
 * list, held or not; two slots take the same page only if it is there twice, and each
 * taken page loses at least one copy (the spec: as many as the slots that took it).
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
  const takenSlot = (x: Z): F => And(v.inTable(r, x), Not(And(hit, prefixSlot(v, r, x))));
  const freeAfter = s.free === undefined ? undefined : ctx.Array.const('allocate.free', v.Page, ctx.Int.sort());
  return {
    constraints: [
      at(s.phase, r).eq(v.ph('new')),
      // On a hit, each prefix position k is a page held as page k of r's prefix's cache entry, shared, not taken.
      Implies(hit, And(v.hasPrefix(r), forAll(v, [k], Implies(prefixSlot(v, r, k), at(s.holder, at(row, k)).eq(v.prefix(v.group(r), k)))))),
      // Every other slot takes a free page, each a different one. With fault double-free any
      // page may sit on the free list more than once, so the taken pages are any pages at all.
      ...(s.free !== undefined && freeAfter !== undefined
        ? [
            forAll(v, [k], Implies(takenSlot(k), And(copies(s.free, at(row, k)).ge(1), holds(taken, at(row, k))))),
            forAll(v, [k, k2], Implies(And(takenSlot(k), takenSlot(k2), Not(k.eq(k2)), at(row, k).eq(at(row, k2))), copies(s.free, at(row, k)).ge(2))),
            forAll(v, [p], If(holds(taken, p), And(copies(freeAfter, p).ge(0), copies(freeAfter, p).le(copies(s.free, p).sub(1))), copies(freeAfter, p).eq(copies(s.free, p))) as F),
          ]
        : [
            forAll(v, [k], Implies(takenSlot(k), And(at(s.holder, at(row, k)).eq(none), holds(taken, at(row, k))))),
            forAll(v, [k, k2], Implies(And(takenSlot(k), takenSlot(k2), Not(k.eq(k2))), Not(at(row, k).eq(at(row, k2))))),
          ]),
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
      ...(freeAfter === undefined ? {} : { free: freeAfter }),
    },
  };
}

/** A page's copies on the free list. */
const copies = (free: Arr, p: Z): N => at(free, p) as N;

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
  const lands = landsAnywhere(v, sem, s, r);
  if (sem.fault['torn-write']) return { constraints: [v.len(r).le(v.limit), phaseIn(v, s, r, 'allocated', 'timedOut')], post: posted(v, s, r, lands) };
  return {
    constraints: [
      v.len(r).le(v.limit),
      phaseIn(v, s, r, 'allocated', 'timedOut'),
      forAll(v, [k], Implies(ownSlot(v, s, r, k), holds(written, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(written, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
    ],
    post: {
      ...s,
      data: lambda(v, [p], If(And(lands, holds(written, p)), label(p), at(s.data, p))),
      dataPos: lambda(v, [p], If(And(lands, holds(written, p)), at(slotOf, p), at(s.dataPos, p))),
      tag: sem.ownerCheck ? lambda(v, [p], If(And(lands, holds(written, p)), label(p), at(s.tag, p))) : s.tag,
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
  const slot = firstOwnSlot(v, s, r);
  const page = at(s.table, r, slot);
  const lands = landsAnywhere(v, sem, s, r);
  if (sem.fault['torn-write']) return { constraints: guard, post: posted(v, s, r, lands) };
  return {
    constraints: guard,
    post: {
      ...s,
      data: If(lands, put(s.data, page, v.body(r)), s.data) as Arr,
      dataPos: If(lands, put(s.dataPos, page, slot), s.dataPos) as Arr,
      tag: sem.ownerCheck ? (If(lands, put(s.tag, page, v.body(r)), s.tag) as Arr) : s.tag,
      phase: setPhase(s, r, If(late, v.ph('landed'), v.ph('written')) as Z),
    },
  };
}

/** handoff(r): P reported Success; D commits. */
function handoff(v: Vocabulary, s: ZState, r: Z): Transition {
  return { constraints: [phaseIn(v, s, r, 'written')], post: { ...s, phase: setPhase(s, r, v.ph('handedOff')) } };
}

/**
 * decode(r), one step: with the owner check, every slot's tag must be r's own label, or its
 * prefix's at slot 0, or r fails and reads nothing; otherwise the label of every page in the
 * table joins r's read set, and the read record of every position keeps the worse of what
 * it held and what this step read there (`spec/reads.ts`). `slotOf[l]` is the slot whose
 * page gave label `l`, constrained to name such a slot whenever there is one: a label joins
 * exactly when some slot's page holds it. Every step after the first then writes r's token
 * into its last page. The READ_UNHELD flag is not encoded: nothing reads it.
 */
function decode(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx, none } = v;
  const { And, Implies, If, Not, Or } = ctx;
  const ok = ctx.Bool.const('decode.ok');
  const slotOf = ctx.Array.const('decode.slotOf', v.Label, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const q = ctx.Const('q', v.Req);
  const l = ctx.Const('l', v.Label);
  const p = ctx.Const('p', v.Page);
  const page = (x: Z): Z => at(s.table, r, x);
  const checked = forAll(v, [k], Implies(v.inTable(r, k), mayReadAt(v, r, k, at(s.tag, page(k)))));
  const gainedVia = (x: Z, from: Z): F => And(Not(x.eq(none)), v.inTable(r, from), at(s.data, page(from)).eq(x));
  const gained = gainedVia(l, at(slotOf, l));
  const l2 = ctx.Const('l2', v.Label);
  const read = v.rd(at(s.data, page(k)), And(Not(at(s.data, page(k)).eq(none)), Not(at(s.dataPos, page(k)).eq(k))));
  const old = at(s.rec, r, k);
  const kept = If(Not(v.isRd(old)), read, If(severity(v, r, k, read).gt(severity(v, r, k, old)), read, old)) as Z;
  const steps = (at(s.steps, r) as N).add(1);
  const token = And(ok, steps.gt(1));
  const lastPage = page(v.last(r));
  return {
    constraints: [
      phaseIn(v, s, r, 'handedOff', 'decoding'),
      sem.ownerCheck ? ok.eq(checked) : ok,
      // slotOf names a slot holding the label whenever one does: every label in the table is read
      forAll(v, [l2, k], Implies(gainedVia(l2, k), gainedVia(l2, at(slotOf, l2)))),
    ],
    post: {
      ...s,
      read: lambda(v, [q, l], Or(holds(s.read, q, l), And(ok, q.eq(r), gained))),
      rec: lambda(v, [q, k], If(And(ok, q.eq(r), v.inTable(r, k)), kept, at(s.rec, q, k)) as Z),
      steps: If(ok, put(s.steps, r, steps), s.steps) as Arr,
      data: lambda(v, [p], If(And(token, p.eq(lastPage)), v.body(r), at(s.data, p)) as Z),
      dataPos: lambda(v, [p], If(And(token, p.eq(lastPage)), v.last(r), at(s.dataPos, p)) as Z),
      tag: sem.ownerCheck ? lambda(v, [p], If(And(token, p.eq(lastPage)), v.body(r), at(s.tag, p)) as Z) : s.tag,
      phase: setPhase(s, r, If(ok, If(steps.ge(v.decodeSteps), v.ph('decoded'), v.ph('decoding')), v.ph('failed')) as Z),
    },
  };
}

/** How bad read record `x` of `r` at position `k` is: 0 correct (or unread), 1 garbage (Integrity), 2 a leak (Isolation). */
function severity(v: Vocabulary, r: Z, k: Z, x: Z): N {
  const { If, Or, Not, And, Int } = v.ctx;
  const bad = And(v.isRd(x), Or(v.rdLabel(x).eq(v.none), v.rdMisplaced(x), Not(mayReadAt(v, r, k, v.rdLabel(x)))));
  return If(leaks(v, r, k, x), Int.val(2), If(bad, Int.val(1), Int.val(0))) as N;
}

/**
 * Fault torn-write: P's write is posted, none of its parts landed yet; the request is
 * writing (landing, when D already timed it out). A late write that does not land at all
 * (`revoke-writer`) leaves the request landed.
 */
function posted(v: Vocabulary, s: ZState, r: Z, lands: F): ZState {
  const { ctx } = v;
  const { If, And } = ctx;
  const q = ctx.Const('q', v.Req);
  const k = ctx.Const('k', v.Slot);
  const reset = (a: Arr): Arr => lambda(v, [q, k], If(And(lands, q.eq(r)), ctx.Bool.val(false), at(a, q, k)) as Z);
  const late = phaseIn(v, s, r, 'timedOut');
  return {
    ...s,
    dataLanded: reset(s.dataLanded),
    tagLanded: reset(s.tagLanded),
    phase: setPhase(s, r, If(lands, If(late, v.ph('landing'), v.ph('writing')), v.ph('landed')) as Z),
  };
}

/** Whether slot `k` is in r's write set: its first own slot for a stub, every own slot for a prefill. */
export function inWrite(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  const { If, And } = v.ctx;
  const first = firstOwnSlot(v, s, r);
  return If(v.len(r).gt(v.limit), And(v.inTable(r, k), k.eq(first)), ownSlot(v, s, r, k)) as F;
}

/** What r's write puts at slot `k`: page `k` of its prefix's content at a prefix position of a prefill, else its own. */
export function writeLabel(v: Vocabulary, r: Z, k: Z): Z {
  const { If, And } = v.ctx;
  return If(And(prefixSlot(v, r, k), v.len(r).le(v.limit)), v.prefix(v.group(r), k), v.body(r)) as Z;
}

/**
 * landData(r) / landTag(r), fault torn-write: one part of r's write not yet landed lands,
 * by page id, whoever holds the page now. Looser than the spec: any such part, not the
 * next in table order. When every part of both streams (content only, without an owner
 * check) has landed, r is written (landed, when it was timed out).
 */
function land(v: Vocabulary, sem: Semantics, s: ZState, r: Z, part: 'data' | 'tag'): Transition {
  const { ctx } = v;
  const { And, If, Implies, Not } = ctx;
  const k = ctx.Const(`${part}.part`, v.Slot);
  const k2 = ctx.Const('k2', v.Slot);
  const p = ctx.Const('p', v.Page);
  const flags = part === 'data' ? s.dataLanded : s.tagLanded;
  const after = put(flags, r, k, true);
  const page = at(s.table, r, k);
  const dataLanded = part === 'data' ? after : s.dataLanded;
  const tagLanded = part === 'tag' ? after : s.tagLanded;
  const done = forAll(v, [k2], Implies(inWrite(v, s, r, k2), And(holds(dataLanded, r, k2), sem.ownerCheck ? holds(tagLanded, r, k2) : ctx.Bool.val(true))));
  const finished = If(phaseIn(v, s, r, 'landing'), v.ph('landed'), v.ph('written')) as Z;
  const enabled = sem.fault['torn-write'] && (part === 'data' || sem.ownerCheck);
  return {
    constraints: [ctx.Bool.val(enabled), phaseIn(v, s, r, 'writing', 'landing'), inWrite(v, s, r, k), Not(holds(flags, r, k))],
    post: {
      ...s,
      ...(part === 'data'
        ? {
            data: lambda(v, [p], If(p.eq(page), writeLabel(v, r, k), at(s.data, p)) as Z),
            dataPos: lambda(v, [p], If(p.eq(page), k, at(s.dataPos, p)) as Z),
          }
        : { tag: sem.ownerCheck ? lambda(v, [p], If(p.eq(page), writeLabel(v, r, k), at(s.tag, p)) as Z) : s.tag }),
      dataLanded,
      tagLanded,
      phase: setPhase(s, r, If(done, finished, at(s.phase, r)) as Z),
    },
    ...(enabled ? {} : { never: true as const }),
  };
}

/** Whether r's write lands at all: not a late one under `revoke-writer`, whose access was revoked at the timeout. */
function landsAnywhere(v: Vocabulary, sem: Semantics, s: ZState, r: Z): F {
  return sem.mechanism['revoke-writer'] ? v.ctx.Not(phaseIn(v, s, r, 'timedOut')) : v.ctx.Bool.val(true);
}

/** The pages of r's own slots go back to the free list, whoever holds them now. */
function release(v: Vocabulary, sem: Semantics, s: ZState, r: Z, name: string): Transition {
  const { ctx, none } = v;
  const { And, Implies, If } = ctx;
  const freed = ctx.Array.const(`${name}.released`, v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const(`${name}.slotOf`, v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const p = ctx.Const('p', v.Page);
  // under release-checks-holder, only pages r still holds
  const held = (x: Z): F => (sem.mechanism['release-checks-holder'] ? at(s.holder, x).eq(v.body(r)) : ctx.Bool.val(true));
  return {
    constraints: [
      forAll(v, [k], Implies(And(ownSlot(v, s, r, k), held(at(s.table, r, k))), holds(freed, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(freed, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p), held(p)))),
    ],
    post: {
      ...s,
      holder: lambda(v, [p], If(holds(freed, p), none, at(s.holder, p))),
      // a multiset free list gains a copy of every page released (once per release: the spec deduplicates within one call)
      ...(s.free === undefined ? {} : { free: lambda(v, [p], If(holds(freed, p), copies(s.free, p).add(1), copies(s.free, p)) as Z) }),
    },
  };
}

/**
 * free(r): the normal release, or (fault stale-free) a second one of an old table, or
 * (fault double-free) the same while its pages are still free. The free list stays a set
 * here; the duplicate hand-out that follows in the spec is encoded in `allocate`, which
 * under double-free may take any page.
 */
function free(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const normal = phaseIn(v, s, r, 'decoded', 'refused', 'failed');
  const k = v.ctx.Const('k', v.Slot);
  // Double-free's second release: while every page of the old table is still free.
  const stillFree = forAll(v, [k], v.ctx.Implies(ownSlot(v, s, r, k), at(s.holder, at(s.table, r, k)).eq(v.none)));
  const stale = sem.fault['stale-free']
    ? phaseIn(v, s, r, 'freed', 'landed')
    : sem.fault['double-free']
      ? v.ctx.And(phaseIn(v, s, r, 'freed', 'landed'), stillFree)
      : v.ctx.Bool.val(false);
  const rel = release(v, sem, s, r, 'free');
  return {
    constraints: [v.ctx.Or(normal, stale), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, v.ctx.If(normal, v.ph('freed'), v.ph('released')) as Z) },
  };
}

/**
 * evict(r), and every kind the proof does not cover (proofs/coverage.ts): not encoded. The
 * spec enables evict only with config `eviction` (grow with `tableGrowth`, retraction's
 * with `retraction`), and the proof is about configurations without it (the prefix cache
 * there holds a page for good), so the action never happens.
 */
function evictNever(v: Vocabulary, s: ZState): Transition {
  return { constraints: [v.ctx.Bool.val(false)], post: s, never: true };
}

/** timeout(r), fault early-free: D frees r's pages while P's write is in flight (posted, or with parts landing). */
function timeout(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const rel = release(v, sem, s, r, 'timeout');
  const { If } = v.ctx;
  const torn = sem.mechanism['revoke-writer'] ? v.ph('landed') : v.ph('landing');
  return {
    constraints: [v.ctx.Bool.val(sem.fault['early-free']), phaseIn(v, s, r, 'allocated', 'writing'), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, If(phaseIn(v, s, r, 'allocated'), v.ph('timedOut'), torn) as Z) },
    ...(sem.fault['early-free'] ? {} : { never: true as const }),
  };
}

/**
 * insert(r): r's pages at its prefix's positions `k < plen` go to its prefix's cache entry,
 * page `k` as the entry's page `k`, if the entry holds no page yet. `slotOf[p]` is the
 * position whose page `p` is. Looser than the spec: a page at two positions becomes either
 * page of the entry (the spec: the later one's).
 */
function insert(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx } = v;
  const { And, If, Implies, Not, Or, Bool } = ctx;
  const moved = ctx.Array.const('insert.moved', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('insert.slotOf', v.Page, v.Slot);
  const p = ctx.Const('p', v.Page);
  const k = ctx.Const('k', v.Slot);
  const g = v.group(r);
  const poison = sem.fault['prefix-poison'] ? phaseIn(v, s, r, 'refused', 'failed') : Bool.val(false);
  const entryPage = (l: Z): F => And(v.isPrefix(l), v.prefixGrp(l).eq(g), prefixSlot(v, r, v.prefixPos(l)));
  return {
    constraints: [
      v.hasPrefix(r),
      forAll(v, [p], Not(entryPage(at(s.holder, p)))),
      Not(shares(v, s, r)),
      forAll(v, [k], Implies(prefixSlot(v, r, k), And(at(s.holder, at(s.table, r, k)).eq(v.body(r)), holds(moved, at(s.table, r, k))))),
      forAll(v, [p], Implies(holds(moved, p), And(prefixSlot(v, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
      Or(phaseIn(v, s, r, 'decoded'), poison),
    ],
    post: { ...s, holder: lambda(v, [p], If(holds(moved, p), v.prefix(g, at(slotOf, p)), at(s.holder, p)) as Z), inserted: put(s.inserted, r, true) },
  };
}
