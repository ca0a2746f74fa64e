/**
 * The words of `pagecheck mbt`: its flags, what it tests (one configuration, or random ones)
 * in one line, and the command line that replays a failure. Kept apart from the command so
 * that each switch the pool gains adds its words here, beside the others.
 */
import type { Config, Fault, Variant } from '../../spec/index.ts';
import type { LifeOptions } from '../../impl/index.ts';
import type { PoolAllocator } from '../../impl/allocator-order.ts';
import { invocation } from '../invocation.ts';
import type { ModelFlags } from '../model-options.ts';

/** The flags of `mbt`. */
export interface MbtFlags extends ModelFlags {
  /** `--runs`. */
  readonly runs?: string;
  /** `--seed`. */
  readonly seed?: string;
  /** `--path`. */
  readonly path?: string;
  /** `--max-commands`. */
  readonly maxCommands?: string;
  /** `--random`. */
  readonly random?: boolean;
  /** `--no-isolation`: false when given (commander's negated flag). */
  readonly isolation?: boolean;
  /** `--json`. */
  readonly json?: boolean;
  /** `--adapter "COMMAND ARGS"`. */
  readonly adapter?: string;
  /** `--adapter-timeout MS`. */
  readonly adapterTimeout?: string;
}

/** The configuration options of a run: one fixed configuration, or random ones of a variant (and faults, and order). */
export type Target =
  | { readonly config: Config }
  | { readonly variant: Variant; readonly faults?: readonly Fault[]; readonly allocators?: readonly PoolAllocator[]; readonly eviction?: boolean; readonly slots?: boolean; readonly slotSizes?: readonly number[]; readonly life?: LifeOptions; readonly stateSlots?: boolean; readonly draft?: boolean; readonly loadback?: boolean; readonly sourcePages?: boolean; readonly torn?: boolean; readonly radix?: boolean };

/** The random side of a {@link Target}. */
export type RandomTarget = Exclude<Target, { readonly config: Config }>;

/** Whether a configuration has decode steps, growth or retraction. */
export const hasLife = (c: Config): boolean => (c.decodeSteps ?? 1) > 1 || c.tableGrowth === true || c.retraction === true;

/** A value as the shell reads it back. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_.,:=/-]+$/.test(text) ? text : `"${text.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** The command line that replays a failure exactly: the user's own model flags, the seed and the path. */
export function replayLine(flags: MbtFlags, seed: number, path: string): string {
  const words = [invocation(), 'mbt'];
  const add = (flag: string, value: string | undefined): void => {
    if (value !== undefined) words.push(flag, shellWord(value));
  };
  add('--config', flags.config);
  add('--variant', flags.variant);
  add('--pages', flags.pages);
  add('--prefill-limit', flags.prefillLimit);
  add('--requests', flags.requests);
  add('--faults', flags.faults);
  if (flags.adapter !== undefined) add('--adapter', flags.adapter);
  add('--allocator', flags.allocator);
  add('--page-size', flags.pageSize);
  add('--prefix-pages', flags.prefixPages);
  if (flags.eviction === true) words.push('--eviction');
  if (flags.radix === true) words.push('--radix');
  add('--decode-steps', flags.decodeSteps);
  if (flags.tableGrowth === true) words.push('--table-growth');
  if (flags.retraction === true) words.push('--retraction');
  if (flags.stateSlots === true) words.push('--state-slots');
  if (flags.draft === true) words.push('--draft');
  if (flags.loadback === true) words.push('--loadback');
  if (flags.sourcePages === true) words.push('--source-pages');
  if (flags.random === true) words.push('--random');
  if (flags.isolation === false) words.push('--no-isolation');
  if (flags.maxCommands !== undefined && flags.maxCommands !== '40') add('--max-commands', flags.maxCommands);
  add('--seed', String(seed));
  add('--path', path);
  return words.join(' ');
}

/** A configuration in one line. */
export function describeConfig(config: Config): string {
  const requests = config.requests.map((q) => `${q.name}:${q.length}${q.prefix === undefined ? '' : `:${q.prefix}`}`).join(' ');
  const faults = config.faults.length === 0 ? 'none' : config.faults.join(',');
  const order = config.allocator === undefined ? '' : `, allocator ${config.allocator}${config.pageSize === undefined ? '' : ` (page size ${config.pageSize})`}`;
  const long = Object.entries(config.prefixPages ?? {});
  const prefixes = long.length === 0 ? '' : `, prefix pages ${long.map(([name, k]) => `${name}=${k}`).join(',')}`;
  // Token slots: lengths and the limit are in tokens.
  const slots = config.allocator === undefined && config.pageSize !== undefined && config.pageSize > 1 ? `, ${config.pageSize} tokens per page` : '';
  const rule = config.lengthRule === 'ge' ? ' (ge)' : '';
  const life = hasLife(config) ? `, ${config.decodeSteps ?? 1} decode steps${config.tableGrowth === true ? ', table growth' : ''}${config.retraction === true ? ', retraction' : ''}` : '';
  const wire = `${config.stateSlots === true ? ", D's state slots" : ''}${config.draft === true ? ', draft KV' : ''}${config.loadback === true ? ', host loadback' : ''}${config.sourcePages === true ? ", P's source pages" : ''}`;
  const tree = config.radix === true ? ', radix tree' : '';
  return `variant ${config.variant}, faults ${faults}${order}; ${config.pages} pages${slots}, prefill limit ${config.prefillLimit}${rule}, requests ${requests}${prefixes}${life}${wire}${tree}`;
}

/** Random configurations of a target in one line. */
export function describeRandom(target: RandomTarget): string {
  const life = target.life === undefined ? '' : ` with ${target.life.decodeSteps?.join(',') ?? '2,3'} decode steps${target.life.tableGrowth === true ? ', table growth' : ''}${target.life.retraction === true ? ', retraction' : ''}`;
  const wire = `${target.stateSlots === true ? " with D's state slots" : ''}${target.draft === true ? ' with draft KV' : ''}${target.loadback === true ? ' with host loadback' : ''}${target.sourcePages === true ? " with P's source pages and torn writes" : ''}${target.radix === true ? ' with a radix tree (eviction on)' : ''}`;
  return `random configurations${target.slots === true ? ' with token slots' : ''}${life}${wire}, variant ${target.variant}, faults ${target.faults?.join(',') ?? 'random'}${target.allocators === undefined ? '' : `, allocator ${target.allocators.join(',')}`}`;
}
