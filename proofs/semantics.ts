/**
 * What a variant and its faults switch on in the encoding, read from the spec's own
 * `compile` so that the spec and the proof cannot disagree about it: the owner check, the
 * silent stub, the faults, the mechanisms of `hardened` and a multiset free list. Apart
 * from the relations (`encoding-*.ts`) because the obligations and the encoding check ask
 * it before any relation is built.
 */
import { compile, type Fault, type Mechanism, type Model, type Variant } from '../spec/index.ts';

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
