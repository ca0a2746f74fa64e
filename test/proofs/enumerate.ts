/**
 * The bounded cross-checks of the proof, on the executable spec itself: the invariant on
 * every reachable state (breadth-first), and its inductiveness on every state of a small
 * universe, reachable or not.
 */
import {
  allActions,
  HIT,
  initial,
  INSERTED,
  Isolation,
  mayRead,
  NO_PAGE,
  PHASES,
  Ph,
  setObserved,
  setTag,
  tableIsDead,
  step,
  type ActionKind,
  type Model,
  type State,
  TRANSITIONS,
} from '../../spec/index.ts';
import { failingParts, inductiveInvariant, invariantFor, typeOK, typeOKPages, typeOKRequests } from '../../proofs/invariant.ts';

/** A state that breaks the invariant, with the parts that fail. */
export interface Breach {
  /** How the state was reached: the action taken from a state that satisfied the invariant, or `reachable`. */
  readonly via: string;
  /** The failing parts. */
  readonly parts: readonly string[];
}

/** Every reachable state, breadth-first from `initial`. */
export function reachableStates(m: Model): State[] {
  const actions = allActions(m);
  const start = initial(m);
  const seen = new Set<string>([Buffer.from(start).toString('latin1')]);
  const out: State[] = [start];
  for (let head = 0; head < out.length; head++) {
    for (const a of actions) {
      const t = step(m, out[head] as State, a);
      if (t === undefined) continue;
      const key = Buffer.from(t).toString('latin1');
      // skip if already seen
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(t);
    }
  }
  return out;
}

/** Every reachable state checked against the invariant. */
export function checkReachable(m: Model): { states: number; breaches: Breach[] } {
  const states = reachableStates(m);
  const breaches = states.filter((s) => !inductiveInvariant(m, s)).map((s) => ({ via: 'reachable', parts: failingParts(m, s) }));
  return { states: states.length, breaches };
}

/** What the exhaustive check of a universe counted. */
export interface UniverseResult {
  /** States enumerated (the domains, less what per-component conjuncts rule out early). */
  readonly candidates: number;
  /** Of those, states satisfying the invariant. */
  readonly satisfying: number;
  /** Enabled actions taken from them. */
  readonly transitions: number;
  /** Steps that broke the invariant (at most 20 kept). */
  readonly breaches: readonly Breach[];
  /** How many steps of each kind broke it. */
  readonly brokenBy: Readonly<Partial<Record<ActionKind, number>>>;
}

/** All tables of `len` slots over `pages` pages (with repetitions: the universe is not only the reachable states). */
function tables(pages: number, len: number): number[][] {
  let out: number[][] = [[]];
  for (let i = 0; i < len; i++) out = out.flatMap((t) => Array.from({ length: pages }, (_, p) => [...t, p]));
  return out;
}

/** One request's possible bytes: phase, table, flags, read set. */
interface RequestChoice {
  readonly phase: number;
  readonly table: readonly number[];
  readonly flags: number;
  readonly observed: number;
}

/**
 * A request's choices. Read sets hold only labels it may read (Isolation, one request at
 * a time); the READ_UNHELD flag stays clear: no guard, effect or conjunct reads it, so a
 * state with it set behaves exactly as the same state without it.
 */
function requestChoices(m: Model, r: number): RequestChoice[] {
  const top = m.labels;
  const len = m.len[r] ?? 0;
  const flagSets = (m.group[r] ?? -1) >= 0 ? [0, HIT, INSERTED, HIT | INSERTED] : [0];
  const readable: number[] = [];
  for (let l = 1; l <= top; l++) if (mayRead(m, r, l)) readable.push(l);
  const observedSets: number[] = [];
  for (let mask = 0; mask < 1 << readable.length; mask++) {
    observedSets.push(readable.reduce((bits, l, i) => ((mask >> i) & 1 ? bits | (1 << (l - 1)) : bits), 0));
  }
  const out: RequestChoice[] = [];
  for (let phase = 0; phase < PHASES.length; phase++) {
    // The phases of retraction exist only with it (the proof's configurations hold each request once).
    if (!m.retraction && (phase === Ph.retracted || phase === Ph.offloading)) continue;
    // A new request has no table yet, and a finished one whose table is dead has none any more (spec/liveness.ts).
    const ts = phase === Ph.new || tableIsDead(m, phase) ? [Array.from({ length: len }, () => NO_PAGE)] : tables(m.pages, len);
    for (const table of ts) for (const flags of flagSets) for (const observed of observedSets) out.push({ phase, table, flags, observed });
  }
  return out;
}

/** One page's possible bytes: holder, data, tag (tags only under the owner check, and only ones that name the data). */
function pageChoices(m: Model): (readonly [number, number, number])[] {
  const top = m.labels;
  const out: (readonly [number, number, number])[] = [];
  for (let holder = 0; holder <= top; holder++) {
    for (let data = 0; data <= top; data++) {
      for (let tag = 0; tag <= (m.ownerCheck ? top : 0); tag++) {
        // TagNamesContent, one page at a time (under length-fix tags are zero: TypeOK)
        if (m.ownerCheck && tag !== 0 && tag !== data) continue;
        out.push([holder, data, tag]);
      }
    }
  }
  return out;
}

/**
 * The conjuncts that read the requests' bytes only (phase, flags, table), never a page's:
 * when one fails for the requests chosen, it fails for every choice of the pages, so the
 * pages' subtree is counted as candidates and not visited. Under length-fix, where 98.6%
 * of a universe's states break the invariant, most of them break one of these. (Were a
 * conjunct named here to read a page, the pinned counts of satisfying states would change.)
 */
const REQUESTS_ONLY: ReadonlySet<string> = new Set(['NewIsBlank', 'NoLateWrite', 'DistinctSlots']);

/**
 * The invariant split for a universe: `requests` holds the parts that read the requests'
 * bytes only (TypeOK's part over them, the {@link REQUESTS_ONLY} conjuncts), checked once
 * per choice of the requests; `pages` the rest, checked at each choice of the pages (the
 * requests' part there held already: a third of a leaf's time went to it again); `whole`,
 * all of it, for a step's post-state (inductiveInvariant, its conjuncts looked up once).
 */
function splitInvariant(m: Model, drop?: number) {
  const conjuncts = invariantFor(m.config.variant, m.config.faults).conjuncts.filter((c) => c.id !== drop);
  const requestConjuncts = conjuncts.filter((c) => REQUESTS_ONLY.has(c.name));
  const pageConjuncts = conjuncts.filter((c) => !REQUESTS_ONLY.has(c.name));
  const all = (cs: typeof conjuncts, s: State): boolean => {
    for (const c of cs) if (!c.holds(m, s)) return false;
    return true;
  };
  return {
    requests: (s: State): boolean => typeOKRequests(m, s) && all(requestConjuncts, s),
    pages: (s: State): boolean => typeOKPages(m, s) && Isolation.holds(m, s) && all(pageConjuncts, s),
    whole: (s: State): boolean => typeOK(m, s) && Isolation.holds(m, s) && all(conjuncts, s),
  };
}

/** Checks that every enabled action keeps the invariant, from every state of the universe that satisfies it. */
export function checkUniverse(m: Model, drop?: number): UniverseResult {
  // each action's transition looked up once, not once per state
  const moves = allActions(m).map((a) => ({ kind: a.kind, r: a.r, take: TRANSITIONS[a.kind] }));
  const s = initial(m);
  const perRequest = Array.from({ length: m.n }, (_, r) => requestChoices(m, r));
  const perPage = pageChoices(m);
  let candidates = 0;
  let satisfying = 0;
  let transitions = 0;
  const breaches: Breach[] = [];
  const brokenBy: Partial<Record<ActionKind, number>> = {};
  const holds = splitInvariant(m, drop);

  const leaf = (): void => {
    candidates++;
    if (!holds.pages(s)) return;
    satisfying++;
    for (const { kind, r, take } of moves) {
      const t = take(m, s, r);
      if (t === undefined) continue;
      transitions++;
      if (holds.whole(t)) continue;
      brokenBy[kind] = (brokenBy[kind] ?? 0) + 1;
      if (breaches.length < 20) breaches.push({ via: `${kind}(${r})`, parts: failingParts(m, t, undefined, drop) });
    }
  };
  const pages = (p: number): void => {
    if (p === m.pages) return leaf();
    for (let k = 0; k < perPage.length; k++) {
      const [holder, data, tag] = perPage[k]!;
      s[m.holderAt + p] = holder;
      s[m.dataAt + p] = data;
      setTag(m, s, p, tag);
      pages(p + 1);
    }
  };
  // Without torn writes TypeOK rules out a request writing or landing (invariant.ts), whatever
  // the other bytes: such a choice's whole subtree is counted as candidates and not visited
  // (a third of a universe's states). The premise is checked on the initial state first.
  const inFlight = (phase: number): boolean => !m.fault['torn-write'] && (phase === Ph.writing || phase === Ph.landing);
  for (let r = 0; r < m.n && !m.fault['torn-write']; r++) {
    const t = initial(m);
    t[m.phaseAt + r] = Ph.writing;
    // a table of pages, so that the phase is all that is wrong
    for (let i = 0; i < (m.len[r] ?? 0); i++) t[(m.tableAt[r] ?? 0) + i] = 0;
    if (typeOK(m, t)) throw new Error('TypeOK allows a request writing without torn writes: the universe can no longer skip such states');
  }
  const subtree = (r: number): number => perRequest.slice(r + 1).reduce((n, cs) => n * cs.length, perPage.length ** m.pages);
  const requests = (r: number): void => {
    if (r === m.n && holds.requests(s)) return pages(0);
    if (r === m.n) {
      candidates += perPage.length ** m.pages;
      return;
    }
    for (const c of perRequest[r] ?? []) {
      if (inFlight(c.phase)) {
        candidates += subtree(r);
        continue;
      }
      s[m.phaseAt + r] = c.phase;
      s[m.flagsAt + r] = c.flags;
      setObserved(m, s, r, c.observed);
      s.set(c.table, m.tableAt[r] ?? 0);
      requests(r + 1);
    }
  };
  requests(0);
  return { candidates, satisfying, transitions, breaches, brokenBy };
}

/** `step` and the table above agree on a sample of states: the table is the spec's dispatch. */
export function dispatchAgrees(m: Model, states: readonly State[]): boolean {
  return states.every((s) =>
    allActions(m).every((a) => {
      const viaStep = step(m, s, a);
      const direct = TRANSITIONS[a.kind](m, s, a.r);
      return viaStep === undefined ? direct === undefined : direct !== undefined && Buffer.compare(viaStep, direct) === 0;
    }),
  );
}
