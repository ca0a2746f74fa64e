/**
 * Runs pagecheck's command line in this process and keeps what it printed, for the
 * figures of the README and docs/: what a reader sees there is what the command prints.
 * The run sees the environment of a clone's `npm run -s pagecheck --` (so replay lines
 * read that way, and work as printed there) and no colour.
 */
import { main } from '../cli/main.ts';

/** What one run printed and how it exited. */
export interface CapturedRun {
  /** The exit code. */
  readonly code: number;
  /** Everything written to stdout. */
  readonly out: string;
  /** Everything written to stderr. */
  readonly err: string;
}

/** The environment a figure's run sees: npm's script variables as `npm run pagecheck` sets them, no colour. */
const FIGURE_ENV: Readonly<Record<string, string>> = {
  npm_lifecycle_event: 'pagecheck',
  npm_command: 'run-script',
  npm_package_name: 'pagecheck',
  NO_COLOR: '1',
};

/** Sets `vars` in process.env and returns a function that puts the old values back. */
function withEnv(vars: Readonly<Record<string, string>>): () => void {
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** Runs `pagecheck ...args` in-process (`main`, as the installed command does) and captures its output. */
export async function capture(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CapturedRun> {
  let out = '';
  let err = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  const restore = withEnv({ ...FIGURE_ENV, ...env });
  const exitCode = process.exitCode;
  process.stdout.write = ((chunk: string | Uint8Array) => ((out += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((err += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(args), out, err };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
    process.exitCode = exitCode;
    restore();
  }
}

/** The lines of `text` from the first that matches `from` up to, not including, the first after it that matches `to`, replaced by `...`. */
export function elide(text: string, from: RegExp, to: RegExp): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => from.test(l));
  if (start < 0) return text;
  const rest = lines.slice(start + 1).findIndex((l) => to.test(l));
  const end = rest < 0 ? lines.length : start + 1 + rest;
  return [...lines.slice(0, start), '...', ...lines.slice(end)].join('\n');
}

/** The lines of `text` that match none of `drop` (a figure leaves out what changes from run to run: times, rates). */
export function dropLines(text: string, ...drop: readonly RegExp[]): string {
  return text
    .split('\n')
    .filter((l) => !drop.some((d) => d.test(l)))
    .join('\n');
}

/** A shell session in a code block: the command after `$ `, then its output with trailing blank lines removed. */
export function session(...runs: readonly { readonly command: string; readonly output: string; readonly note?: string }[]): string {
  const body = runs.map((r) => `$ ${r.command}\n${r.output.replace(/\s+$/, '')}${r.note === undefined ? '' : `\n${r.note}`}`).join('\n');
  return `\`\`\`\n${body}\n\`\`\``;
}
