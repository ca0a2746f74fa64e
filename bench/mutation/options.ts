/**
 * `npm run mutation`'s arguments and its sample (issue 27, item 4): which areas, how many
 * source lines of each to mutate, the seed that picks them, and each area's time bound.
 * The sample is a pure function of the seed and the sources, so a run printed as
 * `--seed 27 --sample 4` is replayed by the same command; test/bench/mutation.test.ts
 * checks that without running Stryker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Either, ParseResult, Schema } from 'effect';

/** The areas, each mutated against its own tests only (`test/<area>`): "each area's own tests catch its own bugs". */
export const AREAS = ['spec', 'binding', 'checker', 'impl', 'conformance'] as const;

/** One of {@link AREAS}. */
export type Area = (typeof AREAS)[number];

/**
 * Sources left out of the sample, with why: code that only heavy-tier files test, so that
 * the fast tier that Stryker runs can only let its mutants survive.
 */
export const HEAVY_ONLY: Readonly<Record<string, string>> = {
  'checker/parallel.ts': 'worker threads over whole levels: tested only by test/checker/parallel.test.ts and parallel-hashed.test.ts (heavy tier)',
  'checker/parallel-threads.ts': 'the worker threads themselves: tested only by the heavy parallel tests',
  'checker/parallel-worker.ts': 'runs inside a worker thread, where Stryker cannot see a kill; tested only by the heavy parallel tests',
  'checker/parallel-links.ts': 'the threads\' message links: tested only by the heavy parallel tests',
  'checker/level.ts': 'one level of the parallel search, run in the worker threads: tested only by the heavy parallel tests',
  'checker/level-hashed.ts': 'the fingerprint-first level of the parallel search, in the worker threads: tested only by test/checker/parallel-hashed.test.ts (heavy tier)',
};

/** The options of one run. */
export interface MutationOptions {
  /** The areas to run, in {@link AREAS} order. */
  readonly areas: readonly Area[];
  /** Source lines mutated per area (every mutant Stryker makes on those lines). */
  readonly sample: number;
  /** The seed of the sample. */
  readonly seed: number;
  /** Each area's time bound, in seconds: past it Stryker is stopped and the area reported as stopped. */
  readonly boundSeconds: number;
  /** Stryker's test-runner processes. */
  readonly concurrency: number;
}

/** An integer flag from `min` to `max`, with a message naming the flag and the value found. */
const Int = (field: string, min: number, max: number) =>
  Schema.transformOrFail(Schema.String, Schema.Number, {
    strict: true,
    decode: (text, _o, ast) => {
      const n = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
      return Number.isSafeInteger(n) && n >= min && n <= max ? ParseResult.succeed(n) : ParseResult.fail(new ParseResult.Type(ast, text, `${field}: expected an integer from ${min} to ${max}, got ${JSON.stringify(text)}`));
    },
    encode: (n) => ParseResult.succeed(String(n)),
  });

/** `--area`: comma-separated names of {@link AREAS}, kept in their order. */
const AreaList = Schema.transformOrFail(Schema.String, Schema.Array(Schema.Literal(...AREAS)), {
  strict: true,
  decode: (text, _o, ast) => {
    const names = text.split(',').map((s) => s.trim());
    const bad = names.find((n) => !(AREAS as readonly string[]).includes(n));
    return bad === undefined ? ParseResult.succeed(AREAS.filter((a) => names.includes(a))) : ParseResult.fail(new ParseResult.Type(ast, text, `--area: expected ${AREAS.join(', ')} (comma-separated), got ${JSON.stringify(bad)}`));
  },
  encode: (areas) => ParseResult.succeed(areas.join(',')),
});

const Options = Schema.Struct({
  areas: AreaList,
  sample: Int('--sample', 1, 10_000),
  seed: Int('--seed', 0, 2 ** 31 - 1),
  boundSeconds: Int('--bound', 10, 24 * 3600),
  concurrency: Int('--concurrency', 1, 16),
});

/** The usage line. */
export const USAGE = 'npm run mutation -- [--area spec,binding,checker,impl,conformance] [--sample LINES] [--seed N] [--bound SECONDS] [--concurrency N]';

/** Decodes the command line: the options, or a one-line message naming the field and the value. */
export function parseOptions(argv: readonly string[]): Either.Either<MutationOptions, string> {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: { area: { type: 'string' }, sample: { type: 'string' }, seed: { type: 'string' }, bound: { type: 'string' }, concurrency: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    return Either.left(`${e instanceof Error ? e.message.split('\n')[0] : String(e)}; usage: ${USAGE}`);
  }
  const raw = { areas: values['area'] ?? AREAS.join(','), sample: values['sample'] ?? '4', seed: values['seed'] ?? '27', boundSeconds: values['bound'] ?? '1800', concurrency: values['concurrency'] ?? '2' };
  return Either.mapLeft(Schema.decodeUnknownEither(Options)(raw), (e) => ParseResult.ArrayFormatter.formatErrorSync(e)[0]?.message ?? 'bad arguments');
}

/** The area's sources, relative to `root`, sorted, without the heavy-only ones. */
export function areaFiles(root: string, area: Area): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !(path in HEAVY_ONLY)) out.push(path);
    }
  };
  walk(area);
  return out.sort();
}

/** Lines where Stryker can make a mutant: not blank, not a comment, not an import or a type-only line. */
const MUTABLE = (line: string): boolean => {
  const t = line.trim();
  return t !== '' && !/^(\/\/|\/\*|\*|import\b|export type\b|type\b|interface\b|readonly\b[^=]*;$|\}|\);?$|\]|[A-Za-z_$][\w$]*\??:[^=]*;$)/.test(t);
};

/** `file:line` for every mutable line of the area, in file and line order. */
export function candidateLines(root: string, area: Area): string[] {
  return areaFiles(root, area).flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (MUTABLE(line) ? [`${file}:${i + 1}`] : [])),
  );
}

/** A 32-bit PRNG (mulberry32): the sample needs determinism from a seed, not quality. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** `count` distinct entries of `from`, chosen from `seed` and the area's name (areas draw independently), in `from`'s order. */
export function sampleOf(from: readonly string[], count: number, seed: number, area: Area): string[] {
  const salt = [...area].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);
  const next = prng((seed ^ salt) >>> 0);
  const picked = new Set<number>();
  const want = Math.min(count, from.length);
  while (picked.size < want) picked.add(Math.floor(next() * from.length));
  return [...picked].sort((x, y) => x - y).map((i) => from[i]!);
}

/** The area's sampled lines as Stryker's `mutate` entries (`file:line-line`). */
export function mutateOf(root: string, area: Area, count: number, seed: number): string[] {
  return sampleOf(candidateLines(root, area), count, seed, area).map((at) => {
    const [file, line] = at.split(':') as [string, string];
    return `${file}:${line}-${line}`;
  });
}
