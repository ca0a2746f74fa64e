/**
 * An independent account of the symmetry the checker exploits, for its tests: the whole
 * reachable space by plain breadth-first search, request renaming written out from the
 * state's documented layout, and orbits counted by trying every renaming. Slow and
 * simple on purpose; only small configurations go through it.
 */
import { allActions, dataPartsOf, initial, observedOf, setObserved, setPartsLanded, setTag, step, tagOf, tagPartsOf, type Model, type State } from '../../spec/index.ts';
import { symmetryClasses } from '../../binding/index.ts';

/** A state as a map key (bytes as latin1 characters). */
export const keyOf = (s: State): string => Buffer.from(s).toString('latin1');

/** Every reachable state, without any reduction. */
export function reachable(m: Model): State[] {
  const seen = new Map<string, State>();
  const s0 = initial(m);
  seen.set(keyOf(s0), s0);
  let frontier = [s0];
  while (frontier.length > 0) {
    const next: State[] = [];
    for (const s of frontier) {
      for (const a of allActions(m)) {
        const t = step(m, s, a);
        if (t !== undefined && !seen.has(keyOf(t))) {
          seen.set(keyOf(t), t);
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  return [...seen.values()];
}

/** Every permutation of `xs`. */
function permutations(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** Every renaming that maps each symmetry class onto itself, as `perm[r]` = new index of `r`. */
export function renamings(m: Model): number[][] {
  let out: number[][] = [Array.from({ length: m.n }, (_, r) => r)];
  for (const cls of symmetryClasses(m)) {
    out = out.flatMap((perm) =>
      permutations(cls).map((image) => {
        const p = [...perm];
        cls.forEach((r, i) => (p[r] = image[i]!));
        return p;
      }),
    );
  }
  return out;
}

/** `s` with every request `r` renamed `perm[r]`: labels in page bytes and read sets relabelled, per-request fields moved. */
export function rename(m: Model, s: State, perm: readonly number[]): State {
  const t = new Uint8Array(s);
  const label = (l: number): number => (l >= 1 && l <= m.n ? perm[l - 1]! + 1 : l);
  for (let p = 0; p < m.pages; p++) {
    t[m.holderAt + p] = label(s[m.holderAt + p]!);
    t[m.dataAt + p] = label(s[m.dataAt + p]!);
    setTag(m, t, p, label(tagOf(m, s, p)));
  }
  for (let r = 0; r < m.n; r++) {
    const q = perm[r]!;
    t[m.phaseAt + q] = s[m.phaseAt + r]!;
    t[m.flagsAt + q] = s[m.flagsAt + r]!;
    const bits = observedOf(m, s, r);
    let moved = 0;
    for (let b = 0; b < 32; b++) if ((bits >>> b) & 1) moved |= 1 << (b < m.n ? perm[b]! : b);
    setObserved(m, t, q, moved >>> 0);
    for (let i = 0; i < (m.len[r] ?? 0); i++) t[(m.tableAt[q] ?? 0) + i] = s[(m.tableAt[r] ?? 0) + i]!;
    t[m.stepsAt + q] = s[m.stepsAt + r]!;
    setPartsLanded(m, t, q, dataPartsOf(m, s, r), tagPartsOf(m, s, r));
    // A read record: the label read in the low six bits, two flags above.
    for (let i = 0; i < (m.len[r] ?? 0); i++) {
      const rec = s[(m.readAt[r] ?? 0) + i]!;
      t[(m.readAt[q] ?? 0) + i] = (rec & 0xc0) | label(rec & 0x3f);
    }
  }
  return t;
}

/** The number of orbits of the reachable states under the renamings. */
export function orbitCount(m: Model, states: readonly State[]): number {
  const perms = renamings(m);
  const orbits = new Set<string>();
  for (const s of states) orbits.add(perms.map((p) => keyOf(rename(m, s, p))).sort()[0]!);
  return orbits.size;
}
