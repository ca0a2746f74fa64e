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
