/**
 * The figures of docs/LIFE.md: for each part of a request's life that the model follows
 * (table growth, retraction and its two faults, the radix tree's lock-underflow, releases in several calls), the shortest
 * counterexample under each variant, or its verdict, from the checker itself. Each line
 * carries the command that reproduces it, so a reader can run what the page says.
 */
import { check } from '../checker/index.ts';
import { checkedModel } from '../binding/index.ts';
import { configArgs } from '../cli/model-options.ts';
import { actionLabel, compile, configFrom, Integrity, Isolation, VARIANTS, type Config, type Variant } from '../spec/index.ts';
import type { Figure } from './readme-figures.ts';

/** One part of a request's life: the configuration each variant is checked on. */
interface Part {
  /** The figure's name in docs/LIFE.md. */
  readonly name: string;
  /** The configuration, per variant. */
  readonly config: (variant: Variant) => Config;
  /** Flags the search needs beyond the model's (growth deadlocks where SGLang would retract). */
  readonly extra?: readonly string[];
}

/** The parts, in the order docs/LIFE.md tells them. */
const PARTS: readonly Part[] = [
  {
    name: 'life-growth',
    config: (variant) => configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant, decodeSteps: 2, tableGrowth: true }),
    extra: ['--no-deadlock'],
  },
  { name: 'life-retraction', config: (variant) => configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant, retraction: true }) },
  { name: 'life-offload-after-free', config: (variant) => configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2 }, { length: 1 }], variant, faults: ['offload-after-free'], retraction: true }) },
  { name: 'life-resume-stale', config: (variant) => configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2 }, { length: 1 }], variant, faults: ['resume-stale'], retraction: true }) },
  {
    name: 'life-lock-underflow',
    config: (variant) =>
      configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }], variant, faults: ['lock-underflow'], eviction: true, radix: true }),
  },
  { name: 'life-segment-overlap', config: (variant) => configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant, faults: ['segment-overlap'], allocator: 'lifo' }) },
];

/** One variant's line: the first of Isolation and Integrity to break, with its actions, or the verdict. */
function line(part: Part, variant: Variant): string {
  const config = part.config(variant);
  const m = compile(config);
  const deadlock = !(part.extra ?? []).includes('--no-deadlock');
  // Every invariant's shortest violation: a leak is told before garbage, however long.
  const r = check(checkedModel(m), { invariants: [Isolation, Integrity], deadlock, continueAfterViolation: true });
  const v = r.violations.find((x) => x.invariant === 'Isolation') ?? r.violations[0];
  const invariant = v?.invariant ?? 'Isolation,Integrity';
  const cmd = `npm run -s pagecheck -- check ${[...configArgs(config), ...(part.extra ?? []), '--invariant', invariant].join(' ')}`;
  const verdict = v === undefined ? `holds (${r.distinctStates.toLocaleString('en-US')} states)` : `${v.invariant} in ${v.trace.steps.length}: ${v.trace.steps.map((s) => actionLabel(m, s.action)).join(' ')}`;
  return `- \`${variant}\`: ${verdict}\n  \`${cmd}\``;
}

/** docs/LIFE.md's figures, one per part. */
export const LIFE_FIGURES: readonly Figure[] = PARTS.map((part) => ({
  name: part.name,
  file: 'docs/LIFE.md',
  render: async () => VARIANTS.map((v) => line(part, v)).join('\n'),
}));
