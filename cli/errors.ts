/** Errors a user can fix: they print as one clear message and exit with code 2, never as a stack trace. */

/** Bad input from the user: a flag, a file, a trace. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, violation: 1, badInput: 2, incomplete: 3 } as const;

/** The exit codes as `--help` lists them. */
export const EXIT_HELP = `
Exit codes:
  0    every invariant holds
  1    a violation (the counterexample is printed)
  2    bad input: a flag, a file or a configuration (the message names it)
  3    incomplete: stopped at --max-states
  130  interrupted (Ctrl-C): a partial summary is printed`;
