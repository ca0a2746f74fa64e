/**
 * Logs of spec runs, for the validator's tests against the spec (against-spec.test.ts on
 * small configurations, against-spec-real-sizes.test.ts at real sizes): a run of the k-th
 * enabled action at each step, written one event per action as docs/LOG-FORMAT.md says,
 * with the line of each action's main event.
 */
import fc from 'fast-check';
import { DEFAULT_INVARIANTS, enabled, initial, PHASES, phaseOf, step, tableOf, type Action, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import type { SourceLine } from '../../conformance/index.ts';

/** A spec run: the k-th enabled action at each step. */
export function runOf(m: Model, picks: readonly number[]): { actions: Action[]; states: State[] } {
  let s = initial(m);
  const actions: Action[] = [];
  const states: State[] = [s];
  for (const k of picks) {
    const choices = enabled(m, s);
    const a = choices[k % Math.max(1, choices.length)];
    if (a === undefined) break;
    const next = step(m, s, a);
    if (next === undefined) break;
    actions.push(a);
    states.push(next);
    s = next;
  }
  return { actions, states };
}

/** The log lines of a run; `lineOf[i]` is the line number of action i's main event. */
export function logOf(m: Model, config: Config, actions: readonly Action[], states: readonly State[]): { lines: string[]; lineOf: number[] } {
  // The allocator and the length rule only where they are not the defaults, so that the small configurations' logs stay as they were.
  const options = { ...(config.allocator === undefined || config.allocator === 'sorted' ? {} : { allocator: config.allocator }), ...(config.lengthRule === 'ge' ? { lengthRule: 'ge' } : {}) };
  const lines = [JSON.stringify({ kind: 'config', pages: config.pages, prefillLimit: config.prefillLimit, variant: config.variant, faults: config.faults, ...(config.eviction === true ? { eviction: true } : {}), ...(config.radix === true ? { radix: true } : {}), ...(Object.keys(config.prefixPages ?? {}).length > 0 ? { prefixPages: config.prefixPages } : {}), ...options })];
  const lineOf: number[] = [];
  const arrived = new Set<number>();
  const name = (r: number): string => config.requests[r]?.name ?? `#${r}`;
  actions.forEach((a, i) => {
    const after = states[i + 1] ?? initial(m);
    const id = name(a.r);
    const table = tableOf(m, after, a.r);
    const phase = PHASES[phaseOf(m, after, a.r)];
    const q = config.requests[a.r];
    const emit = (e: Record<string, unknown>): void => {
      lines.push(JSON.stringify({ ...e, id }));
    };
    // A request arrives at its first action: its allocation, or an eviction made for it.
    if (!arrived.has(a.r)) {
      arrived.add(a.r);
      emit({ kind: 'arrive', length: q?.length, ...(q?.prefix === undefined ? {} : { prefix: q.prefix }) });
    }
    switch (a.kind) {
      case 'allocate':
        emit({ kind: 'allocate', pages: table });
        break;
      case 'prefill':
      case 'stub':
        if (phase === 'refused' || (phase === 'freed' && a.kind === 'stub')) emit({ kind: 'refuse' });
        else emit({ kind: 'done' });
        break;
      case 'decode':
        emit(phase === 'failed' ? { kind: 'fail' } : { kind: 'decode', pages: table });
        break;
      case 'handoff':
        emit({ kind: 'handoff' });
        // Under radix the handoff inserts (cache_unfinished_req): the table as the tree left it, and the own pages it replaced (the duplicates it freed).
        if (config.radix === true) emit({ kind: 'insert', at: 'handoff', pages: table, freed: duplicates(tableOf(m, states[i] ?? initial(m), a.r), table) });
        break;
      default:
        emit({ kind: a.kind });
    }
    lineOf.push(lines.length);
  });
  return { lines, lineOf };
}

/** The pages of `before` that `after` replaced, in table order: the duplicates a radix insert freed. */
const duplicates = (before: readonly number[], after: readonly number[]): number[] => before.filter((p, j) => after[j] !== p);

/** The lines as the validator reads them, from one file `run.jsonl`. */
export const asSource = (lines: readonly string[]): SourceLine[] => lines.map((text, i) => ({ file: 'run.jsonl', line: i + 1, text }));

/**
 * The invariants validate-log holds a log to: those a search checks when none are named.
 * `Integrity` (issue 14: garbage read, nothing leaked) is not among them: validate-log
 * checks it with `integrity` (`--integrity`), as `check` does when it is named.
 */
export const INVARIANTS = DEFAULT_INVARIANTS;

/** The first step (1-based) after which an invariant breaks, or 0. */
export function firstViolation(m: Model, states: readonly State[], invariants = INVARIANTS): number {
  for (let k = 1; k < states.length; k++) {
    const s = states[k];
    if (s !== undefined && invariants.some((p) => !p.holds(m, s))) return k;
  }
  return 0;
}


/** What a family of {@link radixConfigs} varies: its variants, the faults drawn from and those always on, the feature under test, and which request always has the prefix. */
export interface RadixFamily {
  /** The variants drawn from. */
  readonly variants: readonly Variant[];
  /** Faults drawn as a subset. */
  readonly faults: readonly Fault[];
  /** Faults always on, before the drawn ones. */
  readonly always?: readonly Fault[];
  /** The feature under test (`stateSlots`, `sourcePages`, `draft`, ...). */
  readonly features: Partial<Config>;
  /** Whether the last request, rather than the first, always has the prefix. */
  readonly lastPrefixed?: boolean;
}

/**
 * Small configurations under the radix tree for validate-log's spec-run properties: 3 or 4
 * pages, 2 or 3 requests of 2 or 3 pages named A, B, C with prefix `sys` on one always and
 * on the others when drawn, eviction on, and the family's feature.
 */
export function radixConfigs(f: RadixFamily): fc.Arbitrary<Config> {
  return fc
    .record({
      pages: fc.integer({ min: 3, max: 4 }),
      prefillLimit: fc.integer({ min: 1, max: 3 }),
      lengths: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: 3 }),
      prefixed: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      variant: fc.constantFrom(...f.variants),
      faults: fc.subarray([...f.faults]),
    })
    .map((r): Config => {
      const anchor = f.lastPrefixed === true ? r.lengths.length - 1 : 0;
      const requests = r.lengths.map((length, i) => ({ length, name: 'ABC'[i]!, ...(i === anchor || r.prefixed[i] === true ? { prefix: 'sys' } : {}) }));
      return { pages: r.pages, prefillLimit: r.prefillLimit, requests, variant: r.variant, faults: [...(f.always ?? []), ...r.faults], ...f.features, radix: true, eviction: true };
    });
}
