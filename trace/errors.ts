/** Errors in what a user gave the trace printers and the replayer: a file to write, a trace to read. The command line prints each as one line and exits 2. */

/** Bad input to `trace/`: an output file that cannot or must not be written, or a trace that cannot be read. */
export class TraceInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceInputError';
  }
}
