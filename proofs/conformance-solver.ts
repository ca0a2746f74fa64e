/**
 * The z3 side of the encoding check (`conformance.ts`): one solver per action kind holding
 * the encoding's relation for an arbitrary request, the configuration's rigid facts, and
 * assumption literals that pin its pre- and post-state to given spec states. Apart from
 * the sampled states and the comparison loop because it is the one place that translates
 * a spec state, byte by byte, into the bounded vocabulary's terms.
 */
import type { Bool, Solver } from 'z3-solver';
import {
  dataOf,
  dataPartsOf,
  dataPosOf,
  flagsOf,
  freeCopies,
  groupOfLabel,
  HIT,
  holderOf,
  INSERTED,
  MISPLACED,
  NO_PAGE,
  observedOf,
  Ph,
  PHASES,
  phaseOf,
  prefixPageOfLabel,
  READ,
  READ_LABEL,
  readRecordOf,
  stepsOf,
  tablePage,
  tagOf,
  tagPartsOf,
  writeCount,
  writePosition,
  type ActionKind,
  type Mechanism,
  type Model,
  type State,
} from '../spec/index.ts';
import { transition } from './encoding.ts';
import { semanticsOf } from './semantics.ts';
import { at, freshState, holds, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { solve } from './z3-cleanups.ts';

/** z3's time limit per query of the encoding check (a bounded universe: normally milliseconds). */
const CONFORMANCE_TIMEOUT_MS = 60_000;

/** z3 answered unknown in the encoding check: neither agreement nor a disagreement can be reported. */
export class Z3Undecided extends Error {
  override readonly name = 'Z3Undecided';
}

/** One solver per action kind: the relation for an arbitrary request, and literals that pin states to spec states. */
export class KindSolver {
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

  /** Terms a literal's formula is made of, by key: made once, as literals are, so that each page's select and each label is built once per solver, not once per value it is pinned to (z3's JavaScript API spent most of the check's own time building them). */
  private readonly terms = new Map<string, unknown>();

  /** The term `key` names, made once. */
  private term<T>(key: string, make: () => T): T {
    if (this.terms.has(key)) return this.terms.get(key) as T;
    const made = make();
    this.terms.set(key, made);
    return made;
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
    const [pages, reqs, slots] = ['Page', 'Req', 'Slot'].map((sort): readonly Z[] => v.elements.get(sort) ?? []) as [readonly Z[], readonly Z[], readonly Z[]];
    const label = (byte: number): Z => this.term(`label.${byte}`, () => labelOf(v, m, byte));
    const record = (x: number): Z => this.term(`record.${x}`, () => ((x & READ) === 0 ? v.unread : v.rd(label(x & READ_LABEL), v.ctx.Bool.val((x & MISPLACED) !== 0))));
    const sel = (name: string, make: () => Z): Z => this.term(`${which}.${name}`, make); // a select of `which` state's variable
    const out: Bool<'main'>[] = [];
    for (let p = 0; p < m.pages; p++) {
      const page = pages[p] as Z;
      for (const [name, byte] of [['holder', holderOf(m, s, p)], ['data', dataOf(m, s, p)], ['tag', tagOf(m, s, p)]] as const) {
        out.push(this.lit(`${which}.${name}.${p}.${byte}`, () => sel(`${name}.${p}`, () => at(z[name], page)).eq(label(byte))));
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
      out.push(this.lit(`${which}.phase.${q}.${phase}`, () => sel(`phase.${q}`, () => at(z.phase, req)).eq(v.ph(PHASES[phase] ?? 'new'))));
      for (const [name, on] of [['hit', (flags & HIT) !== 0], ['inserted', (flags & INSERTED) !== 0]] as const) {
        out.push(this.lit(`${which}.${name}.${q}.${on}`, () => holds(z[name], req).eq(v.ctx.Bool.val(on))));
      }
      for (let l = 0; l <= m.labels; l++) {
        const on = l > 0 && ((bits >>> (l - 1)) & 1) === 1;
        out.push(this.lit(`${which}.read.${q}.${l}.${on}`, () => this.term(`${which}.read.${q}.${l}`, () => holds(z.read, req, label(l))).eq(v.ctx.Bool.val(on))));
      }
      for (let i = 0; i < (m.len[q] ?? 0); i++) {
        const x = readRecordOf(m, s, q, i);
        out.push(this.lit(`${which}.rec.${q}.${i}.${x}`, () => sel(`rec.${q}.${i}`, () => at(z.rec, req, slots[i] as Z)).eq(record(x))));
        const p = tablePage(m, s, q, i);
        if (p === NO_PAGE) continue;
        out.push(this.lit(`${which}.table.${q}.${i}.${p}`, () => sel(`table.${q}.${i}`, () => at(z.table, req, slots[i] as Z)).eq(pages[p] as Z)));
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
