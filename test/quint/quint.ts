/**
 * Runs the Quint installed as a dev dependency on the repository's Quint spec, with the
 * TypeScript backend (the Rust one and Apalache are downloaded at their first use; this
 * one is in the npm package) and a fixed seed, so that a run is the same every time.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Quint's own ITF reader and writer and its printer of expressions (`dist/src/itf.js`, `dist/src/ir/IRprinting.js`), untyped here. */
export interface QuintLibrary {
  /** An ITF trace's states as Quint expressions: the reader Quint uses for the traces of Apalache and of its Rust backend. */
  readonly ofItf: (itf: unknown) => unknown[];
  /** Quint expressions back to an ITF trace; `Either` of an error and the trace. */
  readonly toItf: (vars: readonly string[], states: readonly unknown[], mbt: boolean) => { readonly isRight: () => boolean; readonly value: unknown };
  /** An expression as Quint text. */
  readonly expressionToString: (ex: unknown) => string;
}

/** The Quint spec of the minimal incident. */
export const SPEC = join(import.meta.dirname, '../../spec/quint/pagecheck.qnt');

/** The seed of every run: with it, the third sample of `quint run` is the minimal leak. */
export const SEED = '1';

const load = createRequire(import.meta.url);

/** Quint's command line, as `npx quint` starts it. */
const CLI = load.resolve('@informalsystems/quint/dist/src/cli.js');

/** Quint's library, from the installed package. */
export const quintLibrary = (): QuintLibrary => ({
  ...(load('@informalsystems/quint/dist/src/itf.js') as Pick<QuintLibrary, 'ofItf' | 'toItf'>),
  ...(load('@informalsystems/quint/dist/src/ir/IRprinting.js') as Pick<QuintLibrary, 'expressionToString'>),
});

/** What a run of Quint printed and how it exited. */
export interface QuintRun {
  /** Its exit code. */
  readonly code: number;
  /** Everything written to stdout. */
  readonly out: string;
  /** Everything written to stderr. */
  readonly err: string;
}

/** Runs `quint ...args`, with `input` on its stdin (the REPL reads it line by line); a non-zero exit is an outcome, not an error. */
export async function quint(args: readonly string[], input = ''): Promise<QuintRun> {
  const running = promisify(execFile)(process.execPath, [CLI, ...args], { maxBuffer: 64 << 20 });
  running.child.stdin?.end(input);
  try {
    const { stdout, stderr } = await running;
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof x.code !== 'number') throw e;
    return { code: x.code, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
}

/** `quint run` of the spec looking for an Isolation violation, the trace written as ITF to `out` (`--mbt` adds the actions). */
export async function runSpec(out: string, mbt: boolean): Promise<QuintRun> {
  const flags = ['--backend', 'typescript', '--invariant', 'Isolation', '--seed', SEED, '--max-samples', '200', '--out-itf', out];
  return quint(['run', ...flags, ...(mbt ? ['--mbt'] : []), SPEC]);
}

/** An ITF trace as parsed JSON. */
export type Itf = { '#meta': Record<string, unknown>; vars: string[]; states: Array<Record<string, unknown>> };

/** Reads the ITF trace in `file`. */
export function readItf(file: string): Itf {
  return JSON.parse(readFileSync(file, 'utf8')) as Itf;
}
