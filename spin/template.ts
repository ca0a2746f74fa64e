/**
 * The fixed body of the Promela model: the actions of spec/transitions.ts and the
 * invariants of spec/properties.ts, written once as Promela `inline`s over a request's
 * constants (index, length, prefix group, page-table offset). `promela.ts` puts a
 * configuration's `#define`s and the action loop around it.
 *
 * Why it is shaped this way (the correspondence with pagecheck's states):
 * - Every action is one `d_step`: its guard is the step's first statement, a pure
 *   expression, so a disabled action is simply not executable, and SPIN stores no state
 *   inside it. A guard that needs a loop (free pages, the cached prefix page) is an
 *   unrolled macro instead, because a statement after the first may not block in a
 *   `d_step`.
 * - The loops inside an action need counters. SPIN's breadth-first search refuses
 *   `hidden` variables, so the counters are ordinary globals, and every action sets them
 *   back to 0 before it ends: in every stored state they are 0 and add no states.
 * - The invariants are evaluated at the end of every action, on the state it produced,
 *   into one-bit globals named after them, asserted, and set back to 1. An assertion thus
 *   fails on the transition into the first violating state, and the trail's length is
 *   the number of actions, as in pagecheck's counterexample.
 * - `printf("@kind r")` names the action in a replay (`spin -t`); verification ignores it.
 *
 * The text is in five files, one per piece: constants, state, the steps the actions share,
 * the actions, the invariants.
 */
import { PROMELA_ACTIONS } from './template-actions.ts';
import { PROMELA_CONSTANTS } from './template-constants.ts';
import { PROMELA_INVARIANTS } from './template-invariants.ts';
import { PROMELA_STATE } from './template-state.ts';
import { PROMELA_STEPS } from './template-steps.ts';

/** The configuration-independent part of the model, in the order it must appear after the configuration's `#define`s. */
export const PROMELA_BODY = [PROMELA_CONSTANTS, PROMELA_STATE, PROMELA_STEPS, PROMELA_ACTIONS, PROMELA_INVARIANTS].join('');
