/**
 * Evaluates the properties on every stored state: the invariants until each first fails,
 * the witnesses until each is first reached. A property that has settled is no longer
 * evaluated, so a long search pays only for the questions still open.
 */
import { WITNESSES, type Model, type Property, type State } from '../spec/index.ts';
import { fastFormOf, type FastPredicate } from './fast-properties.ts';
import type { WitnessResult } from './types.ts';

/** Where an invariant first failed: the state's number (breadth-first order) and depth. */
export interface FirstFailure {
  /** The invariant. */
  readonly invariant: Property;
  /** The violating state's number. */
  readonly state: number;
  /** Its depth. */
  readonly depth: number;
}

/** Tracks the invariants' first failures and the witnesses reached. */
export class PropertyMonitor {
  private readonly m: Model;
  /** Invariants not yet violated. */
  private open: Property[];
  /** Per invariant: its fast form (checker/fast-properties.ts), or the spec's own predicate. */
  private readonly forms = new Map<Property, FastPredicate>();
  /** Witnesses not yet reached. */
  private unreached: Property[];
  /** First failures, in the order found. */
  readonly failures: FirstFailure[] = [];

  constructor(m: Model, invariants: readonly Property[]) {
    this.m = m;
    this.open = [...invariants];
    for (const inv of invariants) this.forms.set(inv, fastFormOf(m, inv) ?? ((s) => inv.holds(m, s)));
    // A witness that does not apply is not looked for: it would be evaluated, in vain, on every state.
    this.unreached = WITNESSES.filter((w) => w.appliesTo(m));
  }

  /** Evaluates the open properties on state number `index` at `depth`; true when an invariant failed there for the first time. */
  visit(s: State, index: number, depth: number): boolean {
    const m = this.m;
    let failed = false;
    for (let k = 0; k < this.open.length; k++) {
      const inv = this.open[k]!;
      if (this.forms.get(inv)!(s)) continue;
      this.failures.push({ invariant: inv, state: index, depth });
      failed = true;
    }
    if (failed) this.open = this.open.filter((inv) => !this.failures.some((f) => f.invariant === inv));
    for (let k = 0; k < this.unreached.length; k++) {
      if (!this.unreached[k]!.holds(m, s)) continue;
      // Swap-remove: order among the unreached does not matter.
      this.unreached[k] = this.unreached[this.unreached.length - 1]!;
      this.unreached.pop();
      k--;
    }
    return failed;
  }

  /** Every witness of the spec with whether it applies here and was reached (one that does not apply is never reached). */
  witnesses(): WitnessResult[] {
    return WITNESSES.map((w) => {
      const applies = w.appliesTo(this.m);
      return { name: w.name, applies, reached: applies && !this.unreached.includes(w) };
    });
  }
}
