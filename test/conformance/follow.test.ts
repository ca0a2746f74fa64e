/**
 * `validate-log --follow` (issue 25, item 4): a log held against the spec while it is
 * written. The tests never wait a fixed time: each writes, then waits for what the
 * follower prints or reports (its "caught up" call, its verdict), so a busy machine makes
 * them slower, never wrong.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledCli, type BundledCli } from '../support/bundled-cli.ts';
import { EXIT_INTERRUPTED } from '../../cli/interrupt.ts';
import { LogReadError, validate, validateFollow, type OpenLog, type ValidationResult } from '../../conformance/index.ts';

const REPO = join(import.meta.dirname, '../..');

/** The example's P and D logs merged by time into one log, as a server that logs both sides to one file writes it: the violation is at line 14 of the merge (B's decode over A's page). */
const MERGED = [...readFileSync(join(REPO, 'examples/logs/d.jsonl'), 'utf8').split('\n'), ...readFileSync(join(REPO, 'examples/logs/p.jsonl'), 'utf8').split('\n')]
  .filter((l) => l.trim() !== '')
  .map((l) => ({ l, t: (JSON.parse(l) as { t?: number }).t ?? -1 }))
  .sort((a, b) => a.t - b.t)
  .map((x) => x.l);
const VIOLATING_LINE = MERGED.findIndex((l) => l.includes('"decode","id":"B"')) + 1;

let dir: string;
let bin: string;

let cli: BundledCli;

beforeAll(async () => {
  cli = await bundledCli('pagecheck-follow-');
  ({ bin, dir } = cli);
}, 60_000);

afterAll(() => cli.remove());

/** What a followed run printed. */
interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Follows a file in-process, polling often; `onCaughtUp` is told how many events were read each time the follower has caught up. */
function follow(file: string, onCaughtUp: (events: number) => void, signal?: AbortSignal): Promise<ValidationResult> {
  return validateFollow({ file, overrides: {}, window: 8, pollMs: 5, onCaughtUp, ...(signal === undefined ? {} : { signal }) });
}

/** A promise and the function that resolves it, for waiting on a callback. */
function latch(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('validate-log --follow', () => {
  it('the merged example is the same log followed or read whole: Isolation breaks at the same line', () => {
    const lines = MERGED.map((text, i) => ({ file: 'merged.jsonl', line: i + 1, text }));
    const whole = validate({ files: [], lines, overrides: {}, window: 8 });
    expect(VIOLATING_LINE).toBe(14);
    expect([whole.verdict, whole.invariant, whole.at?.line]).toEqual(['violation', 'Isolation', VIOLATING_LINE]);
  });

  it('on a file that grows: the verdict comes when the violating line is appended, not before', async () => {
    const file = join(dir, 'growing.jsonl');
    writeFileSync(file, `${MERGED.slice(0, VIOLATING_LINE - 1).join('\n')}\n`);
    const seen: number[] = [];
    const first = latch();
    const result = follow(file, (events) => (seen.push(events), first.open()));
    await first.wait;
    // Caught up with every line before the violation, and still following: no verdict yet.
    expect(seen[0]).toBe(VIOLATING_LINE - 1);
    appendFileSync(file, `${MERGED.slice(VIOLATING_LINE - 1).join('\n')}\n`);
    const r = await result;
    expect([r.verdict, r.invariant, r.at?.line, r.events]).toEqual(['violation', 'Isolation', VIOLATING_LINE, VIOLATING_LINE]);
  });

  it('a line written in two pieces is read once, whole; stopped, the verdict is incomplete with the events read', async () => {
    const file = join(dir, 'pieces.jsonl');
    const head = MERGED.slice(0, 4).join('\n');
    const fifth = MERGED[4] ?? '';
    writeFileSync(file, `${head}\n${fifth.slice(0, 10)}`);
    const stop = new AbortController();
    const counts: number[] = [];
    let step = 0;
    const result = follow(
      file,
      (events) => {
        counts.push(events);
        if (step === 0) (step = 1), appendFileSync(file, `${fifth.slice(10)}\n`);
        else if (events === 5) stop.abort();
      },
      stop.signal,
    );
    const r = await result;
    expect(counts[0]).toBe(4);
    expect(counts.at(-1)).toBe(5);
    expect(r.verdict).toBe('incomplete');
    expect(r.headline).toEqual([`stopped while following ${file}: the 5 events read so far conform`]);
  });

  it('stopped while the reader waits between looks: the wait ends at once, not at the end of the poll', async () => {
    // npm run mutation's seed-40 sample: the pause listening for another event than 'abort' waited out its poll. A poll of 10 minutes makes that the test's timeout.
    const file = join(dir, 'long-poll.jsonl');
    writeFileSync(file, `${MERGED.slice(0, 3).join('\n')}\n`);
    const stop = new AbortController();
    let first = true;
    const r = await validateFollow({ file, overrides: {}, window: 8, pollMs: 600_000, signal: stop.signal, onCaughtUp: () => void (first && ((first = false), setTimeout(() => stop.abort(), 20))) });
    expect([r.verdict, r.events]).toEqual(['incomplete', 3]);
  }, 30_000);

  it('a followed file that shrinks is an error naming what happened', async () => {
    const file = join(dir, 'shrinks.jsonl');
    writeFileSync(file, `${MERGED.slice(0, 6).join('\n')}\n`);
    let truncated = false;
    const result = follow(file, () => {
      if (!truncated) (truncated = true), truncateSync(file, 10);
    });
    await expect(result).rejects.toThrow(/^log .*shrinks\.jsonl cannot be followed any further: it shrank from \d+ to 10 bytes \(the log was truncated\)$/);
  });

  it('a read that fails after the log opened is an error naming the log and the code (EIO), or the error when it has none; the log is closed', async () => {
    // npm run mutation's seed-40 sample: this message (follow.ts, the read's catch) emptied, or its code replaced by the error's text, was reached by no test.
    const failing = (error: Error): { open: (file: string) => Promise<OpenLog>; closed: () => boolean } => {
      let closed = false;
      const log: OpenLog = { read: () => Promise.reject(error), regular: true, ino: 1, close: async () => void (closed = true) };
      return { open: async () => log, closed: () => closed };
    };
    const eio = failing(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
    const r = validateFollow({ file: 'F.jsonl', overrides: {}, window: 8, pollMs: 5, open: eio.open });
    await expect(r).rejects.toThrow(LogReadError);
    await expect(r).rejects.toThrow(/^cannot read log F\.jsonl: EIO$/);
    expect(eio.closed()).toBe(true);
    const bare = failing(new Error('disk gone'));
    await expect(validateFollow({ file: 'F.jsonl', overrides: {}, window: 8, pollMs: 5, open: bare.open })).rejects.toThrow(/^cannot read log F\.jsonl: Error: disk gone$/);
  });
});

/** Runs the bundled `pagecheck validate-log --follow ...args`, feeding `feed` its standard input; `feed` gets the child's output so far and writes when it chooses. */
function followCli(args: readonly string[], feed: (write: (text: string | null) => void, out: () => string) => void, signalOn?: string): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, NO_COLOR: '1', ...(signalOn === undefined ? {} : { PAGECHECK_TEST_MARKERS: '1' }) };
    const child = spawn(process.execPath, [bin, 'validate-log', '--follow', ...args], { env, timeout: 120_000 });
    let out = '';
    let err = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (signalOn !== undefined && !sent && err.includes(`[pagecheck-test] ${signalOn}\n`)) (sent = true), child.kill('SIGINT');
    });
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => resolve({ code, out, err }));
    feed((text) => (text === null ? child.stdin.end() : child.stdin.write(text)), () => out);
  });
}

describe.concurrent('validate-log --follow on the command line', () => {
  it('from a pipe: the violation is printed, exit 1, while the writer still holds the pipe open', async () => {
    const run = await followCli(['-'], (write) => write(`${MERGED.slice(0, VIOLATING_LINE).join('\n')}\n`));
    // The pipe was never closed: the verdict came from the line itself.
    expect(run.code).toBe(1);
    expect(run.out).toContain(`violation of Isolation at -:${VIOLATING_LINE}:`);
    expect(run.err).toBe('');
  });

  it('from a pipe that closes: the whole log conforms, exit 0', async () => {
    const run = await followCli(['-'], (write) => (write(`${MERGED.slice(0, VIOLATING_LINE - 1).join('\n')}\n`), write(null)));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^pagecheck validate-log: 13 events, 2 requests, from -\n/);
    expect(run.out).toContain('conforms');
  });

  it('a file is followed until Ctrl-C: exit 130, with the events read', async () => {
    const file = join(dir, 'ctrl-c.jsonl');
    writeFileSync(file, `${MERGED.slice(0, 5).join('\n')}\n`);
    const run = await followCli([file, '--json'], () => undefined, 'reported validate-log');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(JSON.parse(run.out)).toMatchObject({ command: 'validate-log', verdict: 'incomplete', interrupted: true, events: 5 });
  });

  it('refuses two logs, exit 2, one line', async () => {
    const run = await followCli(['a.jsonl', 'b.jsonl'], (write) => write(null));
    expect(run.code).toBe(2);
    expect(run.err).toBe('pagecheck: --follow: expected one log file (or - for standard input), got 2: a log that is still being written cannot be merged by time with another\n');
  });
});
