/**
 * What the commands that run and report a search share (`check`, `simulate`, `matrix`,
 * `demo`, `replay`, `export`): the configuration they check when no flag says otherwise,
 * the `--invariant` parser, and how a configuration, a count, a trace's length, the
 * witnesses and the replay line are said. `commands/check.ts` is one command among them.
 */
import type { WitnessResult } from '../checker/index.ts';
import { INVARIANTS, requestName, type Config, type Property } from '../spec/index.ts';
import { UsageError } from './errors.ts';
import { commandLine } from './invocation.ts';
import { configArgs, prefixPagesFlag } from './model-options.ts';

/** The configuration `check` uses when no flag says otherwise: the minimal incident. */
export const CHECK_DEFAULTS = { pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }] } as const;

/** `--invariant` as the invariants it names, or a {@link UsageError} naming the unknown one. */
export function parseInvariants(text: string | undefined): readonly Property[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((x) => x.trim()).filter((x) => x !== '');
  const known = INVARIANTS.map((p) => p.name).join(', ');
  if (names.length === 0) throw new UsageError(`--invariant: expected one or more of ${known}, got ${JSON.stringify(text)}`);
  return names.map((name) => {
    const p = INVARIANTS.find((q) => q.name.toLowerCase() === name.toLowerCase());
    if (p === undefined) throw new UsageError(`--invariant: unknown invariant ${JSON.stringify(name)}; expected one or more of ${known}`);
    return p;
  });
}

/** The command line that reproduces a check of `config`, for the hints the commands print; `--faults` only when not the variant's own, unless forced. */
export function replayCommand(config: Config, extra: readonly string[] = [], forceFaults = false): string {
  const renamed = config.requests.some((q, i) => q.name !== requestName(i));
  const note = renamed ? '   # requests renamed A, B, ...: use --config for custom names' : '';
  return `${commandLine(`check ${[...configArgs(config, forceFaults), ...extra].join(' ')}`)}${note}`;
}

/** The configuration in one line: `buggy · 3 pages · prefill limit 2 · A:2 B:3 · faults silent-stub`. */
export function describeConfig(config: Config): string {
  const requests = config.requests.map((q) => `${q.name}:${q.length}${q.prefix === undefined ? '' : `:${q.prefix}`}`).join(' ');
  const faults = config.faults.length === 0 ? 'no faults' : `faults ${config.faults.join(',')}`;
  const allocator = config.allocator === undefined || config.allocator === 'sorted' ? '' : ` · allocator ${config.allocator}`;
  const pageSize = config.pageSize === undefined || config.pageSize === 1 ? '' : ` · page size ${config.pageSize}`;
  const rule = config.lengthRule === 'ge' ? ' · length rule ge' : '';
  const eviction = config.eviction === true ? (config.radix === true ? ' · eviction · radix' : ' · eviction') : '';
  const prefixPages = prefixPagesFlag(config);
  const prefixes = prefixPages === undefined ? '' : ` · prefix pages ${prefixPages}`;
  const decodeSteps = config.decodeSteps === undefined || config.decodeSteps === 1 ? '' : ` · decode steps ${config.decodeSteps}`;
  const growth = config.tableGrowth === true ? ' · table growth' : '';
  const retraction = config.retraction === true ? ' · retraction' : '';
  const source = config.sourcePages === true ? " · P's source pages" : '';
  const draft = config.draft === true ? ' · draft KV' : '';
  const stateSlots = config.stateSlots === true ? ' · state slots' : '';
  return `${config.variant} · ${config.pages} pages · prefill limit ${config.prefillLimit} · requests ${requests} · ${faults}${allocator}${pageSize}${rule}${eviction}${prefixes}${decodeSteps}${growth}${retraction}${source}${draft}${stateSlots}`;
}

/** Witnesses that apply here and were not reached: a warning, since invariants may then hold vacuously. */
export function unreachedWitnesses(witnesses: readonly WitnessResult[]): string[] {
  return witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name);
}

/** Witnesses reached but trivial (true in the initial state, or in every state explored): they witness nothing. */
export function trivialWitnesses(witnesses: readonly WitnessResult[]): string[] {
  return witnesses.filter((w) => w.applies && w.reached && w.trivial).map((w) => w.name);
}

/** A trace's length in words: "1 action", "9 actions". */
export function actionsIn(steps: number): string {
  return `${steps} action${steps === 1 ? '' : 's'}`;
}

/** A count with thousands separators. */
export function count(n: number): string {
  // As toLocaleString('en-US') writes it, without its first call's 25 ms of ICU set-up, a tenth of a tiny check's start-up.
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
