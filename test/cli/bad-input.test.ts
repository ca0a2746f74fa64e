/**
 * The bad-input catalogue (issue 28, items 2 and 3): directories, devices, FIFOs that never
 * end, empty files, byte order marks, numbers too large and empty lists, in every place a
 * command reads or writes a file. Each is exit 2 with one line naming the flag or file,
 * never a stack trace and never exit 1 (a violation). Runs in-process, through `main`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bad-input-'));
const path = (name: string): string => join(dir, name);
const writers: ChildProcess[] = [];
afterAll(() => {
  for (const w of writers) w.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs pagecheck and returns its stderr, after checking the exit code 2, an empty stdout and a single line with no stack trace. */
async function refused(...args: string[]): Promise<string> {
  const run = await pagecheck(...args);
  expect({ args, code: run.code, out: run.out }).toEqual({ args, code: 2, out: '' });
  expect(run.err, args.join(' ')).toMatch(/^pagecheck: [^\n]+\n$/);
  expect(run.err).not.toMatch(/\n\s+at |Error:/);
  return run.err;
}

const folder = path('a-directory');
mkdirSync(folder);
const empty = path('empty.json');
writeFileSync(empty, '');
const blank = path('blank.jsonl');
writeFileSync(blank, '\n  \n');

describe('a directory where a file belongs', () => {
  it.each([
    ['check', '--config', folder],
    ['replay', folder],
    ['validate-log', folder],
    ['validate-log', 'examples/logs/d.jsonl', '--config', folder],
    ['incident', '--workload', folder],
    ['simulate', '--merge', folder],
  ])('%j is read as no file', async (...args) => {
    expect(await refused(...args)).toContain(`${folder}: EISDIR, it is a directory`);
  });

  it.each([
    ['check', '--itf', folder],
    ['simulate', '--out', folder],
    ['incident', '--log', folder],
    ['export', 'promela', '--out', folder],
    ['validate-log', 'examples/logs/d.jsonl', '--html', folder],
  ])('%j is written as no file, before any work', async (...args) => {
    expect(await refused(...args)).toContain(`${folder}: is a directory; name the file to write`);
  });

  it('an output in a directory that does not exist', async () => {
    expect(await refused('simulate', '--out', path('missing/out.json'))).toBe(`pagecheck: --out ${path('missing/out.json')}: the directory ${path('missing')} does not exist\n`);
  });
});

describe('a device that never ends (/dev/zero): read with a limit that counts bytes', () => {
  it.each([
    ['check', '--config', '/dev/zero', 'configuration file'],
    ['replay', '/dev/zero', 'trace file'],
    ['docs', '--check', '--out', '/dev/zero', '--out'],
  ])('%j', async (...args) => {
    const what = args.pop()!;
    expect(await refused(...args)).toBe(`pagecheck: ${what} /dev/zero is larger than 256 MiB (the most pagecheck reads) and was not read to its end\n`);
  }, 30_000);

  it('validate-log /dev/zero: a line longer than 16 MiB', async () => {
    expect(await refused('validate-log', '/dev/zero')).toBe('pagecheck: log /dev/zero: line 1 is longer than 16 MiB with no line break; a log holds one JSON event per line\n');
  }, 30_000);
});

describe('a FIFO whose writer never stops and never closes', () => {
  /** A FIFO fed by a child that writes `text` forever; killed after the file's tests. */
  function endlessFifo(name: string, text: string): string {
    const fifo = path(name);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = spawn(process.execPath, ['-e', `const fs = require('fs'); const fd = fs.openSync(${JSON.stringify(fifo)}, 'w'); const b = Buffer.from(${JSON.stringify(text)}.repeat(65536)); for (;;) fs.writeSync(fd, b);`], { stdio: 'ignore' });
    writers.push(writer);
    return fifo;
  }
  let config: string;
  let log: string;
  beforeAll(() => {
    config = endlessFifo('config.fifo', '[');
    log = endlessFifo('log.fifo', 'y\n');
  });

  it('check --config FIFO stops at 256 MiB', async () => {
    expect(await refused('check', '--config', config)).toBe(`pagecheck: configuration file ${config} is larger than 256 MiB (the most pagecheck reads) and was not read to its end\n`);
  }, 30_000);

  it('validate-log FIFO stops at its first line', async () => {
    expect(await refused('validate-log', log)).toMatch(new RegExp(`^pagecheck: ${log}:1: not valid JSON`));
  }, 30_000);
});

describe('empty files', () => {
  it.each([
    ['check', '--config', empty, 'configuration file'],
    ['replay', empty, 'trace file'],
    ['incident', '--workload', empty, 'workload file'],
    ['simulate', '--merge', empty, 'simulation file'],
  ])('%j', async (...args) => {
    const what = args.pop()!;
    expect(await refused(...args)).toBe(`pagecheck: ${what} ${empty} is not valid JSON: Unexpected end of JSON input\n`);
  });

  it.each([[empty], [blank]])('validate-log %s: no events, not "conforms"', async (file) => {
    expect(await refused('validate-log', file)).toBe(`pagecheck: ${file}: no events (the log is empty): a log that shows nothing cannot conform; is the logging switched on?\n`);
  });
});

describe('byte order marks are accepted', () => {
  const BOM = '\ufeff';
  it('a configuration, a trace and a log', async () => {
    writeFileSync(path('bom-config.json'), `${BOM}{"pages": 3, "prefillLimit": 2, "requests": [{"length": 2}, {"length": 3}]}`);
    expect((await pagecheck('check', '--config', path('bom-config.json'))).code).toBe(1);
    expect((await pagecheck('check', '--itf', path('trace.itf.json'))).code).toBe(1);
    writeFileSync(path('bom.itf.json'), `${BOM}${readFileSync(path('trace.itf.json'), 'utf8')}`);
    expect((await pagecheck('replay', path('bom.itf.json'))).code).toBe(1);
    writeFileSync(path('bom.jsonl'), `${BOM}${readFileSync('examples/logs/d.jsonl', 'utf8')}`);
    expect((await pagecheck('validate-log', path('bom.jsonl'), 'examples/logs/p.jsonl')).code).toBe(1);
  });
});

describe('numbers too large for a double', () => {
  it('in a configuration file: the value as written', async () => {
    writeFileSync(path('huge.json'), '{"pages": 3, "requests": [{"length": 2}, {"length": 1e400}]}');
    expect(await refused('check', '--config', path('huge.json'))).toBe(`pagecheck: configuration file ${path('huge.json')}: requests[1].length: 1e400 is a number too large\n`);
  });

  it('in a flag: the value as typed', async () => {
    const digits = '9'.repeat(400);
    expect(await refused('check', '--pages', digits)).toContain(`--pages: expected a number of pages: a whole number from 1 to 65535, got "${digits}"`);
  });

  it('in a log line: "a number too large", not null', async () => {
    writeFileSync(path('huge.jsonl'), `${readFileSync('examples/logs/d.jsonl', 'utf8').split('\n')[0]}\n{"kind":"arrive","id":"A","length":1e400}\n`);
    expect(await refused('validate-log', path('huge.jsonl'))).toBe(`pagecheck: ${path('huge.jsonl')}:2: length: expected a length in pages: a whole number from 1 to 16777216, got a number too large\n`);
  });
});

describe('empty lists are errors, not "nothing"', () => {
  const noFaults = "--faults: expected fault names, comma-separated, or 'none' for no faults";
  it.each([
    [['check', '--faults', ''], noFaults],
    [['check', '--faults', ' , '], noFaults],
    [['simulate', '--faults', ''], noFaults],
    [['mbt', '--faults', ''], noFaults],
    [['validate-log', 'examples/logs/d.jsonl', '--faults', ''], noFaults],
    [['check', '--invariant', ''], '--invariant: expected one or more of'],
    [['check', '--prefix-pages', ''], '--prefix-pages: "" is not NAME=PAGES'],
    [['check', '--requests', ''], '--requests'],
  ])('%j', async (args, message) => {
    expect(await refused(...args)).toContain(message);
  });

  it("'none' is the word for no faults", async () => {
    expect((await pagecheck('check', '--faults', 'none')).out).toContain('no faults');
  });

  it('"requests": [] in a configuration file', async () => {
    writeFileSync(path('no-requests.json'), '{"requests": []}');
    expect(await refused('check', '--config', path('no-requests.json'))).toContain('requests');
  });
});

describe('permissions', () => {
  // Root may read and write anything: there, the commands run as nobody, in one child process.
  const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
  it.skipIf(process.getuid?.() === 0 && !asNobody)('an unreadable configuration, and an output in a directory that may not be written', async () => {
    const locked = path('locked.json');
    writeFileSync(locked, '{}', { mode: 0o000 });
    const ro = path('read-only');
    mkdirSync(ro, { mode: 0o555 });
    const runs = [['check', '--config', locked], ['simulate', '--out', join(ro, 'out.json')]];
    const expected = [
      `pagecheck: cannot read configuration file ${locked}: EACCES`,
      `pagecheck: --out ${join(ro, 'out.json')}: cannot write in the directory ${ro} (permission denied)`,
    ];
    if (!asNobody) {
      for (const [k, args] of runs.entries()) expect(await refused(...args)).toBe(`${expected[k]}\n`);
      return;
    }
    chmodSync(dir, 0o755);
    const script = `import { main } from ${JSON.stringify(join(process.cwd(), 'cli/main.ts'))}; for (const a of ${JSON.stringify(runs)}) process.stderr.write('exit ' + (await main(a)) + '\\n');`;
    const child = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, HOME: dir, PAGECHECK_STATE_DIR: join(dir, 'state-of-nobody') },
      timeout: 120_000,
    });
    expect(child.stderr.trim().split('\n').filter((l) => !l.startsWith('(node:'))).toEqual([expected[0], 'exit 2', expected[1], 'exit 2']);
    expect(existsSync(join(ro, 'out.json'))).toBe(false);
  }, 130_000);
});

describe('a flag that would be ignored is refused', () => {
  it.each([
    [['--seed', '5'], '--seed'],
    [['--runs', '5'], '--runs'],
    [['--no-deadlock'], '--no-deadlock'],
    [['--pages', '5'], 'a model flag'],
  ])('simulate --merge FILE %j', async (extra, flag) => {
    expect(await refused('simulate', '--merge', empty, ...extra)).toBe(`pagecheck: ${flag}: cannot be combined with --merge, which takes the model, seed, runs and depth from the files\n`);
  });
});
