/**
 * Progress for long runs: one line on stderr, redrawn about once a second, only on a TTY
 * and never in `--json` mode, so that piped and machine-readable output stay clean.
 */
import cliProgress from 'cli-progress';

/** A progress line that a long run updates as often as it likes. */
export interface Progress {
  /** Reports the current figures; the line is redrawn at most once a second. */
  update(fields: Readonly<Record<string, string | number>>): void;
  /** Removes the line. */
  stop(): void;
}

/** A progress line for `format` (cli-progress tokens such as `{states}`), or a silent one when not on a TTY or when `quiet`. */
export function createProgress(format: string, quiet: boolean): Progress {
  if (quiet || !process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format, stream: process.stderr, fps: 1, clearOnComplete: true, hideCursor: true, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(fields) {
      if (!started) {
        bar.start(1, 0, fields);
        started = true;
      } else bar.update(0, fields);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
