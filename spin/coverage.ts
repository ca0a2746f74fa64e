/**
 * What the Promela model follows of the spec, declared once: `toPromela` and `export`
 * refuse any other configuration (spec/coverage.ts derives the refusals). The model is the
 * spec written again by hand (template.ts), and a feature the spec gains is refused here
 * until the template has it and this list names it.
 */
import { coverage, kindsGuard, type Coverage } from '../spec/coverage.ts';
import type { ActionKind } from '../spec/actions.ts';

/** The action kinds the Promela model has, one inline each (template-actions.ts). */
export const PROMELA_KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert', 'landData', 'landTag'] as const satisfies readonly ActionKind[];

/** One of {@link PROMELA_KINDS}. */
export type PromelaKind = (typeof PROMELA_KINDS)[number];

/** Whether the Promela model has action kind `k`. */
export const isPromelaKind = kindsGuard(PROMELA_KINDS);

/** The Promela model's coverage. lock-underflow acts only under eviction, which it refuses: with it alone the spec does nothing either. */
export const PROMELA_COVERAGE: Coverage = coverage('the Promela model', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted'],
  switches: ['decodeSteps', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'auto-truncate'],
  actions: PROMELA_KINDS,
  instead: {
    tableGrowth: 'keeps a fixed page table',
    retraction: 'holds each request once',
    // Under sorted, a release's calls free each page once, as the model's one release does; only the overlap differs.
    'fault:segment-overlap': 'releases a table in one call',
  },
});
