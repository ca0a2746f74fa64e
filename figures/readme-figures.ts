/**
 * The README's figures that come from running pagecheck: each is a command's real output,
 * trimmed to what the README shows (times and rates left out, since they change from run
 * to run). `test/docs/readme.test.ts` runs the cheap ones again and fails when the README
 * disagrees; `npx tsx figures/write-figures.ts` rewrites them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageVersion } from '../docs/generate/package-info.ts';
import { DEFAULT_INVARIANTS, INVARIANTS, WITNESSES } from '../spec/index.ts';
import { capture, dropLines, elide, session, type CapturedRun } from './cli-capture.ts';

/** A figure: where it sits, and how it is made. */
export interface Figure {
  /** The name in its markers. */
  readonly name: string;
  /** The file that holds it, relative to the repository. */
  readonly file: string;
  /** Slow figures (a proof, a bench table rerun) are left to the generator; the test skips them. */
  readonly slow?: boolean;
  /** The figure's Markdown. */
  readonly render: () => Promise<string>;
}

/** The form of the command a reader types in a clone. */
const NPM = 'npm run -s pagecheck --';

/** Runs already made in this process, by their arguments: the README and docs/VARIANTS.md show the same `matrix` run. */
const runs = new Map<string, Promise<CapturedRun>>();

/** `capture`, once per arguments and environment. */
function captureOnce(args: readonly string[], env: Readonly<Record<string, string>>): Promise<CapturedRun> {
  const key = JSON.stringify([args, env]);
  const known = runs.get(key);
  if (known !== undefined) return known;
  const run = capture(args, env);
  runs.set(key, run);
  return run;
}

/** A figure that is one command's output, shown as a shell session; `trim` cuts it to what the README shows. */
export function command(name: string, args: readonly string[], trim: (out: string) => string = (o) => o, file = 'README.md'): Figure {
  return {
    name,
    file,
    render: async () => {
      const run = await captureOnce(args, {});
      const code = run.code === 0 ? '' : `\n(exit ${run.code})`;
      return session({ command: `${NPM} ${shellWords(args)}`, output: trim(run.out + run.err).replace(/\s+$/, '') + code });
    },
  };
}

/** The arguments as a user types them in a shell: a word with a space in double quotes. */
const shellWords = (args: readonly string[]): string => args.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' ');

/** Names as inline code, joined by commas. */
const names = (list: readonly { readonly name: string }[]): string => list.map((p) => `\`${p.name}\``).join(', ');

/** The minimal leak's last step, which tells the whole story of the page that leaks (the trace is shown whole in docs/SPEC.md). */
const lastStep = (out: string): string => elide(out, /^state 0 /, /^step 9 /);

/** The minimal leak under `npm start`: the demo, with its replay line in the form that works in a clone. */
const demo: Figure = {
  name: 'demo',
  file: 'README.md',
  render: async () => {
    const run = await capture(['demo'], { npm_lifecycle_event: 'start', npm_command: 'start' });
    return session({ command: 'npm start', output: lastStep(run.out) });
  },
};

/** `replay` of a trace that `check --itf` wrote, in a directory of its own that the output does not name. */
const replay: Figure = {
  name: 'replay',
  file: 'README.md',
  render: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-figure-'));
    try {
      const itf = join(dir, 'leak.itf.json');
      const write = ['check', '--variant', 'buggy', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--itf', itf];
      const wrote = await capture(write);
      const run = await capture(['replay', itf]);
      const last = (run.out + run.err).trim().split('\n').at(-1) ?? '';
      const shown = (s: string): string => s.split(`${dir}/`).join('');
      return session(
        { command: `${NPM} ${shown(write.join(' '))}`, output: `...\n${shown(wrote.out.trim().split('\n').at(-1) ?? '')}` },
        { command: `${NPM} replay leak.itf.json`, output: `...\n${shown(last)}\n(exit ${run.code})` },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** The invariants, as `check` names them: the default ones, and the one to name. */
const invariants: Figure = {
  name: 'invariants',
  file: 'README.md',
  render: async () => {
    const extra = INVARIANTS.filter((p) => !DEFAULT_INVARIANTS.includes(p));
    return `${names(DEFAULT_INVARIANTS)} by default, and ${names(extra)} when named with \`--invariant\``;
  },
};

/** The witnesses, in the order reports list them. */
const witnesses: Figure = { name: 'witnesses', file: 'README.md', render: async () => names(WITNESSES) };

/** The install from the packed tarball, whose name carries the version. */
const install: Figure = {
  name: 'install',
  file: 'README.md',
  render: async () => {
    const v = packageVersion();
    return [
      '```sh',
      'git clone <this repository> pagecheck && cd pagecheck',
      `npm install && npm pack                 # builds dist/ and writes pagecheck-${v}.tgz`,
      `cd ../your-project && npm install --save-dev ../pagecheck/pagecheck-${v}.tgz`,
      'npx pagecheck check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3',
      `npx pagecheck --version                 # ${v}`,
      '```',
    ].join('\n');
  },
};

/** The README's figures, in the order they appear. */
export const README_FIGURES: readonly Figure[] = [
  demo,
  install,
  command('check', ['check', '--variant', 'owner-check', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3'], (o) => dropLines(o, /^time /)),
  invariants,
  witnesses,
  replay,
  command('simulate', ['simulate', '--pages', '200', '--prefill-limit', '40', '--requests', '30,50,24,46,20,40,36,48', '--runs', '10'], (o) => dropLines(elide(o, /^model: /, /^replay: /), /^witnesses /, /^$/)),
  command('retraction', ['check', '--variant', 'owner-check', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--retraction'], (o) =>
    o.split('\n').filter((l, i) => i === 0 || /^(Isolation violated|step (9|10) |actions: )/.test(l)).join('\n').replace(/\n(?=step 9 )/, '\n...\n'),
  ),
  command('mbt-pass', ['mbt', '--variant', 'owner-check', '--runs', '200', '--seed', '7', '--faults', 'silent-stub,early-free,stale-free,prefix-poison']),
  command('mbt-adapter', ['mbt', '--variant', 'owner-check', '--adapter', 'python3 examples/adapters/python/broken_adapter.py'], (o) => dropLines(elide(o, /^$/, /^actions: /), /^$/)),
  command('validate-log', ['validate-log', 'examples/logs/double-free.jsonl'], (o) => elide(o, /released page 1,/, /^\(never\)$/)),
  command('incident', ['incident', '--variant', 'buggy', '--seed', '1', '--requests', '1000'], (o) =>
    dropLines(elide(o, /^ {2}tokens /, /^Isolation violated: /), /^(allocator |pool: |mix: |throughput: |replay: )/, /^ {2}(answered garbage|failed loudly|refused|served|over-long) /, /^$/),
  ),
];
