/**
 * The spec states the encoding check (`conformance.ts`) compares the encoding on, and the
 * seeded generator they are drawn with. Apart from the z3 comparison because they are
 * plain spec code, with no z3: what the check can see is decided here, what it does with
 * a state there.
 *
 * The states: for each action and each of the 11 phases of the acting request, states
 * whose acting request has a clean table (distinct pages, held and written as the
 * protocol would: page j of the prefix at position j, held by the cache when shared; one
 * background shares the prefix pages and one does not), over a seeded random background
 * (the other requests and pages, any bytes within the domains). Where the spec's step is
 * enabled, one more state per slot of the table and per field (its page's holder, its
 * content, its tag cleared or another, the table entry itself) with that one slot's field
 * changed, and an empty read set: so every position of every table, up to 5, is where the
 * one odd page sits in some state. Deterministic: `conformance.ts` fixes the seed.
 */
import {
  bodyLabel,
  dataOf,
  flagsOf,
  HIT,
  initial,
  INSERTED,
  isPrefixPosition,
  MISPLACED,
  Ph,
  PHASES,
  prefixLabel,
  READ,
  READ_UNHELD,
  setObserved,
  setPartsLanded,
  setReadRecord,
  tablePage,
  type Action,
  type Model,
  type State,
} from '../spec/index.ts';

/** xorshift32: the check's states are the same on every run. */
export function prng(seed: number): (n: number) => number {
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
 * that the part that lands is at every position of the table, odd page included. `enabled`
 * says whether the step compared (the spec's, or a mutant's) takes `a` from a state.
 */
export function* samples(m: Model, a: Action, rand: (n: number) => number, enabled: (s: State) => boolean): Generator<State> {
  const len = m.len[a.r] ?? 0;
  for (const phase of phasesOf(m)) {
    const landing = (a.kind === 'landData' || a.kind === 'landTag') && (phase === Ph.writing || phase === Ph.landing);
    for (const count of landing ? Array.from({ length: len + 1 }, (_, c) => c) : [undefined]) yield* samplesAt(m, a, phase, count, rand, enabled);
  }
}

/** The sample states of {@link samples} for one phase of the acting request (and, for a part landing, one count of parts landed). */
function* samplesAt(m: Model, a: Action, phase: number, count: number | undefined, rand: (n: number) => number, enabled: (s: State) => boolean): Generator<State> {
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
    if (b > 0 || phase === 0 || !enabled(s)) continue;
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
