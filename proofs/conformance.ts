/**
 * The encoding checked against the spec's own `step`, by `prove` itself, before any
 * obligation counts.
 *
 * `encoding.ts` restates the transitions as z3 relations; nothing but this check ties
 * that restatement to `spec/transitions.ts`. So for every action kind and every request
 * of a universe wide enough to pass every loop bound of the spec (6 pages, tables of 1,
 * 2, 4 and 5 pages, two prefixes, one of them of 2 pages, a request exactly at the
 * prefill limit and one above it), it takes spec states and compares, in z3, the spec's step with the encoding's
 * relation, both ways:
 *
 * - **every spec step is an encoding step** (what soundness needs: the proof covers every
 *   behaviour of the spec): the pre-state, the acting request and the spec's post-state,
 *   pinned as assumptions, must satisfy the relation;
 * - **the encoding is enabled only where the spec is**: when `step` returns `undefined`,
 *   the pre-state and the request must make the relation unsatisfiable.
 *
 * The states: for each action and each of the 11 phases of the acting request, states
 * whose acting request has a clean table (distinct pages, held and written as the
 * protocol would: page j of the prefix at position j, held by the cache when shared; one
 * background shares the prefix pages and one does not), over a seeded random background
 * (the other requests and pages, any bytes within the domains). Where the spec's step is
 * enabled, one more state per slot of the table and per field (its page's holder, its
 * content, its tag cleared or another, the table entry itself) with that one slot's field
 * changed, and an empty read set: so every position of every table, up to 5, is where the
 * one odd page sits in some state. Deterministic: the seed is fixed.
 *
 * What it cannot see: a difference the sampled states never exercise, and the spec's
 * READ_UNHELD flag, which the encoding leaves out (no guard, effect or conjunct reads it).
 */
import type { Bool, Solver } from 'z3-solver';
import {
  ACTION_KINDS,
  OBSERVED_ONLY_KINDS,
  bodyLabel,
  compile,
  dataOf,
  dataPosOf,
  flagsOf,
  freeCopies,
  MISPLACED,
  Ph,
  READ,
  READ_LABEL,
  readRecordOf,
  stepsOf,
  dataPartsOf,
  tagPartsOf,
  writeCount,
  writePosition,
  HIT,
  holderOf,
  initial,
  INSERTED,
  NO_PAGE,
  observedOf,
  PHASES,
  phaseOf,
  prefixLabel,
  groupOfLabel,
  isPrefixPosition,
  prefixPageOfLabel,
  READ_UNHELD,
  setObserved,
  setPartsLanded,
  setReadRecord,
  step as specStep,
  tablePage,
  tagOf,
  view,
  type Action,
  type ActionKind,
  type Config,
  type Fault,
  type Mechanism,
  type Model,
  type State,
  type Variant,
} from '../spec/index.ts';
import { transition } from './encoding.ts';
import { semanticsOf, withoutMechanisms } from './semantics.ts';
import { at, freshState, holds, type Bounds, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import type { Z3Session } from './z3.ts';
import { solve } from './z3-cleanups.ts';

/** The spec's step function, as `spec/transitions.ts` exports it (a parameter, so that a test can hand in a mutant). */
export type StepFn = (m: Model, s: State, a: Action) => State | undefined;

/** The universe of the check: wide enough that every loop of the spec runs past its third round. */
export function conformanceConfig(variant: Variant, faults: readonly Fault[]): Config {
  return {
    pages: 6,
    prefillLimit: 4,
    requests: [
      { name: 'A', length: 1 },
      { name: 'B', length: 4, prefix: 'sys' },
      { name: 'C', length: 5, prefix: 'sys' },
      { name: 'D', length: 2, prefix: 'tmp' },
    ],
    // a prefix of two pages and one of one: page j of sys is valid only at table position j
    prefixPages: { sys: 2 },
    // three steps: a step that is not the first writes a token, and a step that is not the last leaves the request decoding
    variant,
    faults,
    decodeSteps: 3,
  };
}

/** The bounded sorts matching {@link conformanceConfig}. */
export const CONFORMANCE_BOUNDS: Bounds = { pages: 6, requests: 4, groups: 2, slots: 5 };

/** z3's time limit per query of the encoding check (a bounded universe: normally milliseconds). */
const CONFORMANCE_TIMEOUT_MS = 60_000;

/** z3 answered unknown in the encoding check: neither agreement nor a disagreement can be reported. */
export class Z3Undecided extends Error {
  override readonly name = 'Z3Undecided';
}

/** A step on which the spec and the encoding disagree. */
export interface Mismatch {
  /** The action, as the spec writes it: `decode(C)`. */
  readonly action: string;
  /** `spec-step-missing`: the spec takes a step the encoding does not allow; `encoding-only`: the encoding is enabled where the spec is not. */
  readonly kind: 'spec-step-missing' | 'encoding-only';
  /** The story: the state before, what the spec does, in words. */
  readonly story: readonly string[];
}

/** What the check compared and found. */
export interface ConformanceReport {
  /** Steps compared (spec step present), and disabled actions compared. */
  readonly steps: number;
  /** Disabled (state, action) pairs compared. */
  readonly disabled: number;
  /** The universe, in words. */
  readonly universe: string;
  /** The disagreements found (at most one per action kind is kept). */
  readonly mismatches: readonly Mismatch[];
  /** Wall-clock time, in milliseconds. */
  readonly ms: number;
}

/** xorshift32: the check's states are the same on every run. */
function prng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/**
 * The sample states for action `a` of model `m`. For a part landing from a write in
 * flight, every count of parts already landed is sampled in turn (the acting stream's
 * count; the other stream's the same in the first background, random in the second), so
 * that the part that lands is at every position of the table, odd page included.
 */
function* samples(m: Model, a: Action, rand: (n: number) => number, step: StepFn): Generator<State> {
  const len = m.len[a.r] ?? 0;
  for (const phase of phasesOf(m)) {
    const landing = (a.kind === 'landData' || a.kind === 'landTag') && (phase === Ph.writing || phase === Ph.landing);
    for (const count of landing ? Array.from({ length: len + 1 }, (_, c) => c) : [undefined]) yield* samplesAt(m, a, phase, count, rand, step);
  }
}

/** The sample states of {@link samples} for one phase of the acting request (and, for a part landing, one count of parts landed). */
function* samplesAt(m: Model, a: Action, phase: number, count: number | undefined, rand: (n: number) => number, step: StepFn): Generator<State> {
  const backgrounds = phase === 0 ? 6 : 2;
  let firstShared = false;
  for (let b = 0; b < backgrounds; b++) {
    // the second background shares the prefix pages exactly when the first does not, so that both kinds of table are seen
    const s = cleanState(m, a.r, phase, rand, b === 1 ? !firstShared : undefined);
    if (b === 0) firstShared = (flagsOf(m, s, a.r) & (HIT | INSERTED)) !== 0;
    if (count !== undefined) {
      const other = b === 0 ? count : rand((m.len[a.r] ?? 0) + 1);
      const [data, tag] = a.kind === 'landData' ? [count, other] : [other, count];
      // A count the layout does not have (tag parts without an owner check, spec/layout.ts) stays absent: the kind is then never enabled.
      const { dataParts, tagParts } = m.layout.fields;
      setPartsLanded(m, s, a.r, dataParts === undefined ? 0 : data, tagParts === undefined ? 0 : tag);
    }
    // The first background is the base of the odd-page states: its read set is empty, so any label read shows.
    if (b === 0) setObserved(m, s, a.r, 0);
    yield s;
    if (b > 0 || phase === 0 || step(m, s, a) === undefined) continue;
    for (let i = 0; i < (m.len[a.r] ?? 0); i++) {
      for (const odd of ODD_FIELDS) {
        const t = s.slice();
        if (corrupt(m, t, a.r, i, odd, rand)) yield t;
      }
    }
  }
}

/** What is made odd about one slot: its page's holder, content or tag (cleared, or another label), or the table entry itself. */
const ODD_FIELDS = ['holder', 'data', 'cleared tag', 'tag', 'table'] as const;

/** The phases a request can be in: without fault `torn-write` no write is in flight part by part (the invariant's NoPartsInFlight), and without retraction (never in the proof's configurations) nothing is retracted. */
function phasesOf(m: Model): number[] {
  const torn = new Set<number>([Ph.writing, Ph.landing]);
  const retraction = new Set<number>([Ph.retracted, Ph.offloading]);
  return PHASES.map((_, code) => code).filter((code) => (m.fault['torn-write'] || !torn.has(code)) && (m.retraction || !retraction.has(code)));
}

/** A random state, within the domains, in which request `r` is in `phase` with a clean table (sharing its prefix pages as `share` says, if set). */
function cleanState(m: Model, r: number, phase: number, rand: (n: number) => number, share?: boolean): State {
  const s = initial(m);
  const top = m.labels;
  const subset = (labels: number[]): number => labels.reduce((bits, l) => (rand(2) ? bits | (1 << (l - 1)) : bits), 0);
  const everyLabel = Array.from({ length: top }, (_, i) => i + 1);
  for (let p = 0; p < m.pages; p++) {
    s[m.holderAt + p] = rand(2) ? 0 : rand(top + 1);
    s[m.dataAt + p] = rand(top + 1);
    s[m.tagAt + p] = m.ownerCheck ? (rand(2) ? dataOf(m, s, p) : rand(top + 1)) : 0;
  }
  const phases = phasesOf(m);
  const maxLen = Math.max(...m.len);
  for (let p = 0; p < m.pages; p++) s[m.dataPosAt + p] = rand(maxLen);
  for (let q = 0; q < m.n; q++) {
    const ph = q === r ? phase : (phases[rand(phases.length)] ?? 0);
    s[m.stepsAt + q] = rand(m.decodeSteps + 1);
    s[m.dataNextAt + q] = rand(maxLen + 1);
    s[m.tagNextAt + q] = rand(maxLen + 1);
    for (let i = 0; i < (m.len[q] ?? 0); i++) {
      const label = rand(top + 1);
      setReadRecord(m, s, q, i, rand(3) === 0 ? 0 : READ | label | (label !== 0 && rand(2) ? MISPLACED : 0));
    }
    const prefixed = (m.group[q] ?? -1) >= 0;
    s[m.phaseAt + q] = ph;
    const sharing = prefixed ? rand(4) : 0;
    const forced = q === r && prefixed && share !== undefined ? (share ? sharing | HIT : 0) : sharing;
    s[m.flagsAt + q] = forced | (rand(2) ? READ_UNHELD : 0);
    setObserved(m, s, q, subset(everyLabel));
    const len = m.len[q] ?? 0;
    if (ph === 0) continue;
    const pages = distinctPages(m.pages, len, rand);
    for (let i = 0; i < len; i++) s[(m.tableAt[q] ?? 0) + i] = q === r ? (pages[i] ?? 0) : rand(m.pages);
  }
  if (phase === 0) return s;
  const g = m.group[r] ?? -1;
  const shared = (flagsOf(m, s, r) & (HIT | INSERTED)) !== 0;
  for (let i = 0; i < (m.len[r] ?? 0); i++) {
    const p = tablePage(m, s, r, i);
    const prefixed = isPrefixPosition(m, r, i);
    const label = prefixed ? prefixLabel(m, g, i) : bodyLabel(r);
    s[m.holderAt + p] = prefixed && shared ? label : bodyLabel(r);
    s[m.dataAt + p] = label;
    s[m.dataPosAt + p] = i;
    if (m.ownerCheck) s[m.tagAt + p] = label;
  }
  return s;
}

/** `len` distinct page ids out of `pages`, in random order. */
function distinctPages(pages: number, len: number, rand: (n: number) => number): number[] {
  const ids = Array.from({ length: pages }, (_, p) => p);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = rand(i + 1);
    [ids[i], ids[j]] = [ids[j] ?? 0, ids[i] ?? 0];
  }
  return ids.slice(0, len);
}

/** Makes one field of slot `i` of `r`'s table odd; false when there is nothing to change. */
function corrupt(m: Model, t: State, r: number, i: number, field: (typeof ODD_FIELDS)[number], rand: (n: number) => number): boolean {
  const top = m.labels;
  const p = tablePage(m, t, r, i);
  if (field === 'table') {
    const len = m.len[r] ?? 0;
    const other = len > 1 ? tablePage(m, t, r, (i + 1 + rand(len - 1)) % len) : (p + 1 + rand(m.pages - 1)) % m.pages;
    t[(m.tableAt[r] ?? 0) + i] = other;
    return true;
  }
  if ((field === 'tag' || field === 'cleared tag') && !m.ownerCheck) return false;
  const at = (field === 'holder' ? m.holderAt : field === 'data' ? m.dataAt : m.tagAt) + p;
  const old = t[at] ?? 0;
  if (field === 'cleared tag') {
    if (old === 0) return false;
    t[at] = 0;
    return true;
  }
  // another label; for content and tag a written one, so that a read of it shows
  const choices = Array.from({ length: top + 1 }, (_, l) => l).filter((l) => l !== old && (field === 'holder' || l !== 0));
  t[at] = choices[rand(choices.length)] ?? old;
  return true;
}

/** One solver per action kind: the relation for an arbitrary request, and literals that pin states to spec states. */
class KindSolver {
  readonly solver: Solver<'main'>;
  private readonly literals = new Map<string, Bool<'main'>>();
  private readonly pre: ZState;
  private readonly post: ZState;
  private readonly r: Z;

  constructor(
    private readonly v: Vocabulary,
    private readonly m: Model,
    kind: ActionKind,
    without: readonly Mechanism[],
  ) {
    const sem = semanticsOf(m.config.variant, m.config.faults, without);
    this.pre = freshState(v, 's', sem.ownerCheck, sem.multiset);
    this.r = v.ctx.Const('r', v.Req);
    const t = transition(v, sem, kind, this.pre, this.r);
    this.post = t.post;
    this.solver = new v.ctx.Solver();
    // Each query is over a finite universe and answers in milliseconds; the limit only bounds a z3 that stops answering.
    this.solver.set('timeout', CONFORMANCE_TIMEOUT_MS);
    // Every query pins the states whole, so every atom matters: z3's relevancy filter only costs (15% of the check's time, measured; a fresh solver per query instead doubled it).
    this.solver.set('smt.relevancy', 0);
    this.solver.add(...v.axioms, ...rigid(v, m), ...t.constraints);
  }

  /** An assumption literal standing for `formula`, made once. */
  private lit(key: string, formula: () => F): Bool<'main'> {
    const known = this.literals.get(key);
    if (known !== undefined) return known;
    const b = this.v.ctx.Bool.const(`pin.${key}`);
    this.solver.add(this.v.ctx.Implies(b, formula()));
    this.literals.set(key, b);
    return b;
  }

  /** The literals that pin `which` state to spec state `s`. */
  pin(which: 'pre' | 'post', s: State): Bool<'main'>[] {
    const { v, m } = this;
    const z = which === 'pre' ? this.pre : this.post;
    const els = (sort: string): readonly Z[] => v.elements.get(sort) ?? [];
    const [pages, reqs, slots] = [els('Page'), els('Req'), els('Slot')];
    const label = (byte: number): Z => labelOf(v, m, byte);
    const record = (x: number): Z => ((x & READ) === 0 ? v.unread : v.rd(label(x & READ_LABEL), v.ctx.Bool.val((x & MISPLACED) !== 0)));
    const out: Bool<'main'>[] = [];
    for (let p = 0; p < m.pages; p++) {
      const page = pages[p] as Z;
      for (const [name, byte] of [['holder', holderOf(m, s, p)], ['data', dataOf(m, s, p)], ['tag', tagOf(m, s, p)]] as const) {
        out.push(this.lit(`${which}.${name}.${p}.${byte}`, () => at(z[name], page).eq(label(byte))));
      }
      // a position means something only for content that was written
      const pos = dataPosOf(m, s, p);
      if (dataOf(m, s, p) !== 0) out.push(this.lit(`${which}.dataPos.${p}.${pos}`, () => at(z.dataPos, page).eq(slots[pos] as Z)));
      // a multiset free list: the page's copies on it
      const free = z.free;
      if (free !== undefined) {
        const copies = freeCopies(m, s, p);
        out.push(this.lit(`${which}.free.${p}.${copies}`, () => (at(free, page) as N).eq(copies)));
      }
    }
    for (let q = 0; q < m.n; q++) {
      const req = reqs[q] as Z;
      const phase = phaseOf(m, s, q);
      const flags = flagsOf(m, s, q);
      const bits = observedOf(m, s, q);
      out.push(this.lit(`${which}.phase.${q}.${phase}`, () => at(z.phase, req).eq(v.ph(PHASES[phase] ?? 'new'))));
      for (const [name, on] of [['hit', (flags & HIT) !== 0], ['inserted', (flags & INSERTED) !== 0]] as const) {
        out.push(this.lit(`${which}.${name}.${q}.${on}`, () => holds(z[name], req).eq(v.ctx.Bool.val(on))));
      }
      for (let l = 0; l <= m.labels; l++) {
        const on = l > 0 && ((bits >>> (l - 1)) & 1) === 1;
        out.push(this.lit(`${which}.read.${q}.${l}.${on}`, () => holds(z.read, req, label(l)).eq(v.ctx.Bool.val(on))));
      }
      for (let i = 0; i < (m.len[q] ?? 0); i++) {
        const x = readRecordOf(m, s, q, i);
        out.push(this.lit(`${which}.rec.${q}.${i}.${x}`, () => at(z.rec, req, slots[i] as Z).eq(record(x))));
        const p = tablePage(m, s, q, i);
        if (p === NO_PAGE) continue;
        out.push(this.lit(`${which}.table.${q}.${i}.${p}`, () => at(z.table, req, slots[i] as Z).eq(pages[p] as Z)));
      }
      if (phase === Ph.writing || phase === Ph.landing) {
        // the parts landed: the spec's two counts, as one flag per slot of the write set
        const count = writeCount(m, s, q);
        const first = writePosition(m, s, q, 0);
        for (let i = 0; i < (m.len[q] ?? 0); i++) {
          const part = i - first;
          for (const [name, landed] of [['dataLanded', dataPartsOf(m, s, q)], ['tagLanded', tagPartsOf(m, s, q)]] as const) {
            const on = part >= 0 && part < count && part < landed;
            out.push(this.lit(`${which}.${name}.${q}.${i}.${on}`, () => holds(z[name], req, slots[i] as Z).eq(v.ctx.Bool.val(on))));
          }
        }
      }
      const steps = stepsOf(m, s, q);
      out.push(this.lit(`${which}.steps.${q}.${steps}`, () => (at(z.steps, req) as N).eq(steps)));
    }
    return out;
  }

  /** One of `states` from which the relation lets request `q` step, if there is one: one query for all of them (throws {@link Z3Undecided} when z3 cannot tell). */
  async enabledFrom(q: number, states: readonly State[]): Promise<State | undefined> {
    if (states.length === 0) return undefined;
    const { And, Bool, Implies, Or } = this.v.ctx;
    const each = states.map((s) => And(this.actor(q), ...this.pin('pre', s)));
    const any = Bool.const(`pin.any.${this.batches++}`);
    this.solver.add(Implies(any, Or(...each)));
    const answer = await solve(this.solver, any);
    // An unknown must not pass for "not enabled": the check would then agree without having looked.
    if (answer === 'unknown') throw new Z3Undecided(`z3 could not decide whether the encoding is enabled (${this.solver.reasonUnknown()})`);
    if (answer !== 'sat') return undefined;
    const model = this.solver.model();
    return states.find((_, i) => model.eval(each[i] as F, true).toString() === 'true');
  }

  private batches = 0;

  /** The literal `r = request q`. */
  actor(q: number): Bool<'main'> {
    const req = this.v.elements.get('Req')?.[q] as Z;
    return this.lit(`actor.${q}`, () => this.r.eq(req));
  }
}

/** Spec label `byte` as the bounded vocabulary names it: none, `body(r)`, or `prefix(g, k)` for page `k` of prefix group `g`. */
function labelOf(v: Vocabulary, m: Model, byte: number): Z {
  if (byte === 0) return v.none;
  if (byte <= m.n) return v.body(v.elements.get('Req')?.[byte - 1] as Z);
  const g = v.elements.get('Grp')?.[groupOfLabel(m, byte)] as Z;
  return v.prefix(g, v.elements.get('Slot')?.[prefixPageOfLabel(m, byte)] as Z);
}

/** The configuration's rigid facts, as the bounded vocabulary names them: lengths, slots covered, prefixes and their lengths, the limit. */
function rigid(v: Vocabulary, m: Model): F[] {
  const reqs = v.elements.get('Req') ?? [];
  const slots = v.elements.get('Slot') ?? [];
  const groups = v.elements.get('Grp') ?? [];
  const out: F[] = [v.limit.eq(m.config.prefillLimit), v.decodeSteps.eq(m.decodeSteps)];
  groups.forEach((g, j) => {
    const plen = m.prefixPages[j] ?? 1;
    out.push(v.firstOwn(g).eq(slots[plen] as Z));
    slots.forEach((k, i) => out.push(v.inPrefix(g, k).eq(v.ctx.Bool.val(i < plen))));
  });
  for (let q = 0; q < m.n; q++) {
    const req = reqs[q] as Z;
    const len = m.len[q] ?? 0;
    const g = m.group[q] ?? -1;
    out.push(v.len(req).eq(len), v.hasPrefix(req).eq(v.ctx.Bool.val(g >= 0)));
    if (g >= 0) out.push(v.group(req).eq(groups[g] as Z));
    out.push(v.last(req).eq(slots[len - 1] as Z));
    slots.forEach((k, i) => out.push(v.inTable(req, k).eq(v.ctx.Bool.val(i < len))));
  }
  return out;
}

/** A state in words, one line per request and page. */
export function stateLines(m: Model, s: State): string[] {
  const w = view(m, s);
  return [
    ...w.requests.map(
      (q, i) =>
        `request ${q.name}: ${q.phase}; length ${m.len[i] ?? 0}${(m.group[i] ?? -1) >= 0 ? `, prefix ${m.groupNames[m.group[i] ?? 0]}` : ''}${q.hit || q.inserted ? `, prefix pages shared (${[q.hit ? 'hit' : '', q.inserted ? 'inserted' : ''].filter(Boolean).join(', ')})` : ''}; table ${q.table.map((p) => `p${p}`).join(' ') || 'empty'}; has read ${q.read.join(', ') || 'nothing'}`,
    ),
    ...w.pages.map((p) => `page p${p.id}: held by ${p.holder ?? 'nobody (free)'}; holds ${p.data ?? 'nothing'}; tag ${p.tag ?? 'none'}`),
  ];
}

/**
 * Compares the encoding of `variant` with these faults against `step` on the universe of
 * {@link conformanceConfig}. `step` is the spec's unless a test hands in another; `kinds`
 * (every kind unless a test names fewer) are the actions compared; `without` names
 * mechanisms of `hardened` switched off in both.
 */
export async function checkConformance(
  z3: Z3Session,
  variant: Variant,
  faults: readonly Fault[],
  step: StepFn = specStep,
  kinds: readonly ActionKind[] = ACTION_KINDS.filter((k) => !(OBSERVED_ONLY_KINDS as readonly ActionKind[]).includes(k)),
  without: readonly Mechanism[] = [],
): Promise<ConformanceReport> {
  const start = performance.now();
  const m = withoutMechanisms(compile(conformanceConfig(variant, faults)), without);
  const v = z3.bounded(CONFORMANCE_BOUNDS);
  const rand = prng(0x5eed14);
  const mismatches: Mismatch[] = [];
  let steps = 0;
  let disabled = 0;
  for (const kind of kinds) {
    const ks = new KindSolver(v, m, kind, without);
    // Released at once: z3's heap is fixed, and the collector does not see it fill (obligations.ts).
    try {
      for (let q = 0; q < m.n; q++) {
        const a: Action = { kind, r: q };
        const name = `${kind}(${m.config.requests[q]?.name ?? q})`;
        const off: State[] = [];
        let found: Mismatch | undefined;
        for (const s of samples(m, a, rand, step)) {
          const t = step(m, s, a);
          if (t === undefined) {
            off.push(s);
            continue;
          }
          steps++;
          const untouched = unmodelledChange(m, s, t);
          if (untouched !== undefined) {
            found = { action: name, kind: 'spec-step-missing', story: [`from this state:`, ...indent(stateLines(m, s)), `the spec's ${name} changes ${untouched}, which the encoding does not model.`] };
            break;
          }
          const answer = await solve(ks.solver, ks.actor(q), ...ks.pin('pre', s), ...ks.pin('post', t));
          if (answer === 'sat') continue;
          if (answer === 'unknown') throw new Z3Undecided(`z3 could not decide whether the encoding allows the spec's ${name} (${ks.solver.reasonUnknown()})`);
          found = { action: name, kind: 'spec-step-missing', story: [`from this state:`, ...indent(stateLines(m, s)), `the spec's ${name} leads to this state, which no step of the encoding allows:`, ...indent(changed(m, s, t))] };
          break;
        }
        // The disabled ones in one query: is the encoding enabled from any of them?
        disabled += off.length;
        const s = found === undefined ? await ks.enabledFrom(q, off) : undefined;
        if (s !== undefined) found = { action: name, kind: 'encoding-only', story: [`from this state:`, ...indent(stateLines(m, s)), `the encoding can take ${name}, where the spec's step is not enabled.`] };
        if (found !== undefined) {
          mismatches.push(found);
          break;
        }
      }
    } finally {
      ks.solver.release();
    }
  }
  const prefixText = (name: string): string => ((m.config.prefixPages?.[name] ?? 1) > 1 ? `, ${name} of ${m.config.prefixPages?.[name]} pages` : `, ${name}`);
  const universe = `${m.pages} pages; ${m.config.requests.map((q) => `${q.name} (${q.length}${q.prefix ? prefixText(q.prefix) : ''})`).join(', ')}; prefill limit ${m.config.prefillLimit}`;
  return { steps, disabled, universe, mismatches, ms: Math.round(performance.now() - start) };
}

/**
 * What the step changes that the encoding has no variable for, if anything: the counts of
 * parts landed outside a write in flight (where the encoding's flags stand for them), and
 * flags other than the sharing ones. READ_UNHELD is left out on purpose: no guard, effect
 * or invariant the proof concerns reads it.
 */
function unmodelledChange(m: Model, s: State, t: State): string | undefined {
  for (let q = 0; q < m.n; q++) {
    const who = m.config.requests[q]?.name ?? String(q);
    // the counts of parts landed are modelled (as flags) while a write is in flight; elsewhere they mean nothing, and must not change
    const inFlight = (x: State): boolean => phaseOf(m, x, q) === Ph.writing || phaseOf(m, x, q) === Ph.landing;
    const counts = s[m.dataNextAt + q] !== t[m.dataNextAt + q] || s[m.tagNextAt + q] !== t[m.tagNextAt + q];
    if (counts && !inFlight(s) && !inFlight(t)) return `the parts landed of ${who}'s write`;
    if (((flagsOf(m, s, q) ^ flagsOf(m, t, q)) & ~(HIT | INSERTED | READ_UNHELD)) !== 0) return `${who}'s flags`;
  }
  return undefined;
}

const indent = (lines: readonly string[]): string[] => lines.map((l) => `  ${l}`);

/** The lines of the post-state that differ from the pre-state. */
function changed(m: Model, s: State, t: State): string[] {
  const before = stateLines(m, s);
  const after = stateLines(m, t);
  const diff = after.filter((line, i) => line !== before[i]);
  return diff.length > 0 ? diff : ['nothing changed'];
}
