/**
 * Progress for long runs: one line on stderr, redrawn about once a second, only on a TTY
 * and never in `--json` mode, so that piped and machine-readable output stay clean. A line
 * drawn on the main thread is stopped by Ctrl-C's handler too (interrupt.ts), which then
 * shows the cursor the bar hid.
 */
import cliProgress from 'cli-progress';
import { onInterrupt } from './interrupt.ts';

/** A progress line that a long run updates as often as it likes. */
export interface Progress {
  /** Reports the current figures; the line is redrawn at most once a second. */
  update(fields: Readonly<Record<string, string | number>>): void;
  /** Removes the line. */
  stop(): void;
}

/** The figures every progress line ends with: time since the start and the process's resident memory. */
export function runFigures(elapsedMs: number, rssBytes: number): { elapsed: string; memory: string } {
  const seconds = elapsedMs / 1000;
  const elapsed = seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} min ${String(Math.floor(seconds % 60)).padStart(2, '0')} s`;
  return { elapsed, memory: `${Math.round(rssBytes / 2 ** 20).toLocaleString('en-US')} MiB` };
}

/** A progress line for `format` (cli-progress tokens such as `{states}`), or a silent one when not on a TTY or when `quiet`; it always ends with the elapsed time and memory. */
export function createProgress(format: string, quiet: boolean): Progress {
  if (quiet || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    { format: `${format} | {elapsed} | {memory}`, stream: process.stderr, fps: 1, clearOnComplete: true, hideCursor: true, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  let forget = (): void => {};
  const stop = (): void => {
    if (running) bar.stop();
    running = false;
    forget();
  };
  return {
    update(fields) {
      const all = { ...fields, ...runFigures(Date.now() - started, process.memoryUsage.rss()) };
      if (!running) {
        bar.start(1, 0, all);
        running = true;
        forget = onInterrupt(stop);
      } else bar.update(0, all);
    },
    stop,
  };
}
