/**
 * The adapter process: started from a command line (split into words as a shell would,
 * without a shell, so that killing it kills the adapter itself), spoken to in JSON lines,
 * each answer awaited with a timeout. Whatever goes wrong (it cannot start, exits early,
 * hangs, prints garbage) becomes an {@link AdapterError} with the last lines it wrote to
 * stderr, and the process is killed and reaped: {@link AdapterProcess.close} resolves only
 * once it has exited.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Either } from 'effect';
import { decodeAnswer, type Answer, type Message } from './protocol.ts';

/** The adapter failed as a program: not a disagreement with the spec, but bad input. */
export class AdapterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterError';
  }
}

/** Splits a command line into words: blanks separate, single and double quotes group, backslash escapes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i] ?? '';
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i] ?? '';
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote !== undefined) throw new AdapterError(`--adapter: unterminated ${quote} quote in ${JSON.stringify(line)}`);
  if (started) words.push(word);
  return words;
}

/** A running adapter. */
export class AdapterProcess {
  /** The command line, for messages. */
  readonly command: string;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private buffer = '';
  private stderrTail = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exit: Promise<void>;
  private spawnError: Error | undefined;

  constructor(command: string) {
    this.command = command;
    const [program, ...args] = splitCommand(command);
    if (program === undefined) throw new AdapterError('--adapter: expected a command line, got an empty string');
    this.child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exit = new Promise((resolve) => {
      // 'close', not 'exit': it comes after stdout and stderr are drained, so the last words are in.
      this.child.on('close', (code, signal) => {
        this.exited = { code, signal };
        this.deliver(undefined);
        resolve();
      });
      this.child.on('error', (e) => {
        this.spawnError = e;
        if (this.child.pid === undefined) {
          this.exited = { code: null, signal: null };
          this.deliver(undefined);
          resolve();
        }
      });
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, '');
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() !== '') this.deliver(line);
      }
    });
    this.child.stderr.setEncoding('utf8');
    // The end of what it wrote to stderr, kept whole: chunks may split a line.
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4096);
    });
    // A closed stdin (the adapter exited) surfaces as an exit, not as an unhandled error.
    this.child.stdin.on('error', () => {});
  }

  /** Sends a message and awaits its answer, decoded. */
  async ask<T extends Message['type']>(message: Extract<Message, { type: T }>, timeoutMs: number): Promise<Answer<T>> {
    if (this.exited !== undefined) throw this.failure(`it had already exited before ${describe(message)}`);
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
    const line = await this.next(timeoutMs);
    if (line === 'timeout') {
      await this.close();
      throw this.failure(`it did not answer ${describe(message)} within ${timeoutMs} ms (it was killed)`);
    }
    if (line === undefined) {
      await this.exit;
      throw this.failure(`it exited before answering ${describe(message)}`);
    }
    const answer = decodeAnswer(message.type, line);
    if (Either.isLeft(answer)) {
      await this.close();
      throw this.failure(`its answer to ${describe(message)} is wrong: ${answer.left}`);
    }
    return answer.right;
  }

  /** Kills the adapter (if it still runs) and waits until it has exited. */
  async close(): Promise<void> {
    if (this.exited === undefined) this.child.kill('SIGKILL');
    await this.exit;
  }

  /** Whether the process has exited. */
  get done(): boolean {
    return this.exited !== undefined;
  }

  /** The process id, while it runs. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  private deliver(line: string | undefined): void {
    const w = this.waiting;
    if (w !== undefined) {
      this.waiting = undefined;
      w(line);
    } else if (line !== undefined) this.lines.push(line);
  }

  private next(timeoutMs: number): Promise<string | undefined | 'timeout'> {
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.exited !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        resolve('timeout');
      }, timeoutMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }

  private failure(what: string): AdapterError {
    const how =
      this.spawnError !== undefined && this.child.pid === undefined
        ? ` (it could not start: ${(this.spawnError as NodeJS.ErrnoException).code ?? this.spawnError.message})`
        : this.exited !== undefined
          ? ` (exit ${this.exited.signal ?? this.exited.code})`
          : '';
    const tail = this.stderrTail.split('\n').filter((l) => l.trim() !== '').slice(-8);
    const stderr = tail.length === 0 ? '' : `\n  its stderr ended with:\n    ${tail.join('\n    ')}`;
    return new AdapterError(`adapter "${this.command}": ${what}${how}${stderr}`);
  }
}

/** A message in words for errors. */
function describe(m: Message): string {
  return m.type === 'action' ? `the action ${m.kind}(${m.request})` : `the ${m.type} message`;
}
