/**
 * Evaluates the properties on every stored state: the invariants until each first fails,
 * the witnesses until each is both reached and seen false somewhere. A property that has
 * settled is no longer evaluated, so a long search pays only for the questions still open.
 *
 * A witness must be reached *and* false in some state: one true in the initial state, or
 * in every state explored, is trivial, since a predicate made true everywhere would pass.
 *
 * A model's {@link Conjunction} stands in for the invariants it names: where it holds,
 * they are not evaluated one by one; where it does not, they are, so that every failure
 * is found and named exactly as without it.
 */
import type { Conjunction, ModelProperty } from './model.ts';
import type { WitnessResult } from './types.ts';

/** Where an invariant first failed: the state's number (breadth-first order) and depth. */
export interface FirstFailure {
  /** The invariant's name. */
  readonly invariant: string;
  /** The violating state's number. */
  readonly state: number;
  /** Its depth. */
  readonly depth: number;
}

/** Tracks the invariants' first failures and the witnesses reached. */
export class PropertyMonitor {
  /** Invariants not yet violated. */
  private open: ModelProperty[];
  /** Every witness, in the model's order. */
  private readonly all: readonly ModelProperty[];
  /** Witnesses that apply and are not yet both reached and seen false. */
  private unsettled: ModelProperty[];
  private readonly reached = new Set<string>();
  private readonly falsified = new Set<string>();
  private readonly trueInitially = new Set<string>();
  /** First failures, in the order found. */
  readonly failures: FirstFailure[] = [];
  private readonly conjunction: Conjunction | undefined;
  /** Per open invariant: whether the conjunction stands for it. */
  private covered: boolean[] = [];
  /** Whether some open invariant is covered, so that the conjunction is worth asking. */
  private ask = false;
  /** Whether every open invariant is covered: where the conjunction holds, none is left to evaluate. */
  private allCovered = false;

  constructor(invariants: readonly ModelProperty[], witnesses: readonly ModelProperty[], conjunction?: Conjunction) {
    this.open = [...invariants];
    this.all = witnesses;
    // A witness that does not apply is not looked for: it would be evaluated, in vain, on every state.
    this.unsettled = witnesses.filter((w) => w.applies !== false);
    this.conjunction = conjunction;
    this.cover();
  }

  private cover(): void {
    const names = this.conjunction?.names ?? [];
    this.covered = this.open.map((inv) => names.includes(inv.name));
    this.ask = this.covered.includes(true);
    this.allCovered = this.ask && this.covered.every((c) => c);
  }

  /** Evaluates the open properties on state number `index` at `depth` (those the conjunction covers only unless `coveredHold`); true when an invariant failed there for the first time. */
  visit(s: Uint8Array, index: number, depth: number, coveredHold = false): boolean {
    let failed = false;
    // `coveredHold`: the caller knows that the conjunction's open invariants hold here (a quiet successor, `model.ts`).
    const together = this.ask && (coveredHold || this.conjunction!.holds(s));
    // Where the conjunction holds and stands for every open invariant, none is left to evaluate, and a loop that only skipped each one is not run.
    if (!together || !this.allCovered) {
      for (let k = 0; k < this.open.length; k++) {
        if (together && this.covered[k] === true) continue;
        const inv = this.open[k]!;
        if (inv.holds(s)) continue;
        this.failures.push({ invariant: inv.name, state: index, depth });
        failed = true;
      }
    }
    if (failed) {
      this.open = this.open.filter((inv) => !this.failures.some((f) => f.invariant === inv.name));
      this.cover();
    }
    for (let k = 0; k < this.unsettled.length; k++) {
      const w = this.unsettled[k]!;
      if (w.holds(s)) {
        this.reached.add(w.name);
        if (index === 0) this.trueInitially.add(w.name);
      } else this.falsified.add(w.name);
      if (!this.reached.has(w.name) || !this.falsified.has(w.name)) continue;
      // Swap-remove: order among the unsettled does not matter.
      this.unsettled[k] = this.unsettled[this.unsettled.length - 1]!;
      this.unsettled.pop();
      k--;
    }
    return failed;
  }

  /** Records that invariant `name` (still open) first failed at state number `index` at `depth`: for a search that evaluates states elsewhere. */
  failedAt(name: string, index: number, depth: number): void {
    this.failures.push({ invariant: name, state: index, depth });
    this.open = this.open.filter((inv) => inv.name !== name);
  }

  /** Records that witness `name` held (or not) in state number `index`: for a search that evaluates states elsewhere. */
  observed(name: string, held: boolean, index: number): void {
    if (held) {
      this.reached.add(name);
      if (index === 0) this.trueInitially.add(name);
    } else this.falsified.add(name);
    if (this.reached.has(name) && this.falsified.has(name)) this.unsettled = this.unsettled.filter((w) => w.name !== name);
  }

  /** Whether the property of that name is still evaluated: an invariant not yet violated, a witness not yet settled. */
  isOpen(name: string): boolean {
    return this.open.some((p) => p.name === name) || this.unsettled.some((p) => p.name === name);
  }

  /** Every witness with whether it applies here, was reached, and was trivial. */
  witnesses(): WitnessResult[] {
    return this.all.map((w) => {
      const applies = w.applies !== false;
      const reached = applies && this.reached.has(w.name);
      return { name: w.name, applies, reached, trivial: reached && (this.trueInitially.has(w.name) || !this.falsified.has(w.name)) };
    });
  }
}
