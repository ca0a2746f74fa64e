/**
 * The flags that describe a model, shared by every command that builds one: a JSON
 * configuration file (`--config`) and flags that override its fields. Both go through
 * the same Schema decode, so a bad value gets the same message wherever it came from.
 */
import { readFileSync } from 'node:fs';
import { Either } from 'effect';
import type { Command } from 'commander';
import { decodeConfig, type Config } from '../spec/index.ts';
import { UsageError } from './errors.ts';

/** The raw model flags as commander hands them over. */
export interface ModelFlags {
  /** `--config FILE`. */
  readonly config?: string;
  /** `--variant`. */
  readonly variant?: string;
  /** `--pages`. */
  readonly pages?: string;
  /** `--prefill-limit`. */
  readonly prefillLimit?: string;
  /** `--requests 2,3:sys`. */
  readonly requests?: string;
  /** `--faults a,b` or `none`. */
  readonly faults?: string;
  /** `--decode-steps N`. */
  readonly decodeSteps?: string;
}

/** Adds the model flags to a command. */
export function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'model configuration (JSON); flags override its fields')
    .option('--variant <name>', 'buggy | length-fix | owner-check | hardened (default buggy)')
    .option('--pages <n>', "number of D's KV pages")
    .option('--prefill-limit <n>', 'longest prompt, in pages, that P computes')
    .option('--requests <lengths>', 'request lengths in pages, named A, B, ...; LEN:PREFIX shares a prompt prefix (e.g. 2,3:sys)')
    .option('--faults <list>', "faults switched on, comma-separated, or 'none' (default: the variant's own)")
    .option('--decode-steps <n>', 'decode reads the whole table this many times, writing a token after each step but the first (default 1)');
}

const FLAG_OF: Readonly<Record<string, string>> = {
  pages: '--pages',
  prefillLimit: '--prefill-limit',
  requests: '--requests',
  variant: '--variant',
  faults: '--faults',
  decodeSteps: '--decode-steps',
};

/** A flag's text as a number when it is one, so that the schema names the bad value as typed. */
function numberish(text: string): number | string {
  return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
}

/** `2,3:sys` as request objects. */
function parseRequests(text: string): unknown[] {
  return text.split(',').map((part) => {
    const [len = '', prefix] = part.split(':');
    return prefix === undefined ? { length: numberish(len) } : { length: numberish(len), prefix: prefix.trim() };
  });
}

/** Reads a JSON configuration file, with a clear error for a missing or malformed one. */
export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UsageError(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Decodes the model flags (and the file they name) into a configuration, or throws a {@link UsageError}. */
export function configFromFlags(flags: ModelFlags, defaults: Partial<Record<string, unknown>> = {}): Config {
  const fromFile = flags.config === undefined ? {} : readJsonFile(flags.config, 'configuration file');
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    throw new UsageError(`configuration file ${flags.config}: expected a JSON object, got ${JSON.stringify(fromFile)}`);
  }
  const input: Record<string, unknown> = { ...defaults, ...fromFile };
  const fromFlags = new Set<string>();
  const set = (key: string, value: unknown): void => {
    input[key] = value;
    fromFlags.add(key);
  };
  if (flags.pages !== undefined) set('pages', numberish(flags.pages));
  if (flags.prefillLimit !== undefined) set('prefillLimit', numberish(flags.prefillLimit));
  if (flags.requests !== undefined) set('requests', parseRequests(flags.requests));
  if (flags.variant !== undefined) set('variant', flags.variant);
  if (flags.decodeSteps !== undefined) set('decodeSteps', numberish(flags.decodeSteps));
  if (flags.faults !== undefined) {
    const list = flags.faults.trim();
    set('faults', list === '' || list === 'none' ? [] : list.split(',').map((f) => f.trim()));
  }
  const decoded = decodeConfig(input);
  if (Either.isRight(decoded)) return decoded.right;
  const lines = decoded.left.issues.map((issue) => {
    const field = issue.path.split(/[.[]/)[0] ?? '';
    const where = fromFlags.has(field)
      ? `${FLAG_OF[field] ?? field}${issue.path.slice(field.length)}`
      : flags.config !== undefined && field !== ''
        ? `${flags.config}: ${issue.path}`
        : issue.path || '(configuration)';
    return `${where}: ${issue.message}`;
  });
  throw new UsageError(`invalid model configuration:\n  ${lines.join('\n  ')}`);
}
