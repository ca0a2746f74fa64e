/**
 * The search's defaults and limits, in one place: every entry point (`check`,
 * `checkParallel`, `simulate`) reads its options through this module, so that an option
 * left out means the same everywhere, and the rules the state numbering depends on
 * (batches, the deadlock group, the action limit) are written once for both searches.
 */
import type { Checkable, HashedSuccessors } from './model.ts';
import type { CheckOptions } from './types.ts';
import { SPILL_DEFAULTS, type SpillSettings } from './spill.ts';
import { strideOf } from './words.ts';

/** Actions a model may have: a path stores each as one byte. */
export const ACTION_LIMIT = 256;

/** What an option left out means. */
export const DEFAULTS = {
  symmetry: true,
  deadlock: true,
  continueAfterViolation: false,
  maxStates: Number.POSITIVE_INFINITY,
  fingerprintFirst: true,
  /** Partial-order reduction: asked for by name (the command line asks for it by default, `check --no-por` not). */
  por: false,
  /** `checkParallel`: levels smaller than this stay on the main thread. */
  parallelFrom: 20_000,
  /** `checkParallel`: grow the table ahead of each level. */
  growAhead: true,
} as const;

/** States expanded per batch, at most: enough successors to overlap their misses (64 measured 5% faster than 8), few enough to stay in cache. */
export const BATCH_STATES = 64;
/** Bytes a batch may take when every action of every state in it is enabled: fewer states per batch for large states. */
const BATCH_BYTES = 1 << 20;
/**
 * A deadlock that stops the search takes effect at the start of its group of this many
 * states of its level: the successors of the states before that group are stored, the
 * others not (the search once expanded 8 states per batch). Both searches apply it; it
 * divides `BATCH_STATES`.
 */
export const STOP_GROUP = 8;
/** How often, in new states, the one-thread search calls `onProgress`: when a state's number has these bits clear. */
export const PROGRESS_MASK = 0xffff;

/** The options of a search with every default filled in. */
export interface Settings {
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  readonly continueAfterViolation: boolean;
  readonly maxStates: number;
  readonly fingerprintFirst: boolean;
  readonly por: boolean;
  readonly spill: SpillSettings;
}

/** `options` with the defaults filled in. */
export function settingsOf(options: CheckOptions): Settings {
  return {
    symmetry: options.symmetry ?? DEFAULTS.symmetry,
    deadlock: options.deadlock ?? DEFAULTS.deadlock,
    continueAfterViolation: options.continueAfterViolation ?? DEFAULTS.continueAfterViolation,
    maxStates: options.maxStates ?? DEFAULTS.maxStates,
    fingerprintFirst: options.fingerprintFirst ?? DEFAULTS.fingerprintFirst,
    por: options.por ?? DEFAULTS.por,
    spill: { ...SPILL_DEFAULTS, ...options.spill },
  };
}

/** Throws unless `model`'s actions fit a path's one-byte action numbers. */
export function checkActionLimit<A>(model: Checkable<A>): void {
  const n = model.actions.length;
  if (n > ACTION_LIMIT) throw new Error(`checker: ${n} actions do not fit a one-byte action index (at most ${ACTION_LIMIT})`);
}

/** The canonicaliser a search uses: the model's, when symmetry is asked for. */
export function canonicalizerOf<A>(model: Checkable<A>, settings: Pick<Settings, 'symmetry'>): ((s: Uint8Array) => Uint8Array) | undefined {
  return settings.symmetry ? model.canonicalize?.bind(model) : undefined;
}

/** The legitimate-end test a search uses for deadlock, or undefined when it looks for none. */
export function endTestOf<A>(model: Checkable<A>, settings: Pick<Settings, 'deadlock'>): ((s: Uint8Array) => boolean) | undefined {
  return settings.deadlock ? model.isLegitimateEnd?.bind(model) : undefined;
}

/** The fingerprint-first successors a search uses: the model's, unless a canonicaliser is in effect or the option turns them off. */
export function fingerprintFirstOf<A>(model: Checkable<A>, settings: Pick<Settings, 'symmetry' | 'fingerprintFirst'>): HashedSuccessors | undefined {
  if (!settings.fingerprintFirst || canonicalizerOf(model, settings) !== undefined) return undefined;
  return model.fast?.hashed;
}

/** Parents per batch for `model`: `BATCH_STATES`, fewer where their successors would pass `BATCH_BYTES`. */
export function batchStates<A>(model: Checkable<A>): number {
  return Math.max(1, Math.min(BATCH_STATES, Math.floor(BATCH_BYTES / (Math.max(model.actions.length, 1) * strideOf(model.stateBytes)))));
}
