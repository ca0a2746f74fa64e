/**
 * What every action's relation (`encoding-*.ts`) is made of: the shape of a transition
 * (constraints and post-state), and the phase and free-list terms most of them read.
 * Apart from `encoding.ts`, which gathers the actions, so that the action files and the
 * file that dispatches to them do not import each other.
 */
import { at, put, type Arr, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** One action as a relation: constraints on the pre-state and the fresh choices, and the post-state. */
export interface Transition {
  /** Guards and the constraints on the fresh symbols. */
  readonly constraints: readonly F[];
  /** The post-state. */
  readonly post: ZState;
  /** Set when the variant and faults rule the action out altogether (its guard is false). */
  readonly never?: true;
}

/** Whether request `r` is in one of `phases`. */
export const phaseIn = (v: Vocabulary, s: ZState, r: Z, ...phases: Parameters<Vocabulary['ph']>[0][]): F =>
  v.ctx.Or(...phases.map((p) => at(s.phase, r).eq(v.ph(p))));

/** The phase array with request `r`'s phase set to `phase`. */
export const setPhase = (s: ZState, r: Z, phase: Z): Arr => put(s.phase, r, phase);

/** A page's copies on the free list. */
export const copies = (free: Arr, p: Z): N => at(free, p) as N;
