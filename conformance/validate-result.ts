/**
 * What a validation gives back, and what it is given: the options, the verdict with the
 * line and the words, and the error of bad input, which names the file, the line and the
 * field.
 */
import type { Action } from '../spec/index.ts';
import type { LogModel } from './events.ts';
import type { SourceLine } from './lines.ts';

/** A problem with the input: the file, line and field, and what is wrong. */
export class LogInputError extends Error {
  constructor(where: SourceLine | undefined, field: string, message: string) {
    super(`${where === undefined ? '' : `${where.file}:${where.line}: `}${field === '' ? '' : `${field}: `}${message}`);
    this.name = 'LogInputError';
  }
}

/** What the user gave besides the logs. */
export interface ValidateOptions {
  /** The log files, merged by time. */
  readonly files: readonly string[];
  /** Lines to read instead of the files (a log built in memory). */
  readonly lines?: Iterable<SourceLine>;
  /** Model fields that override the logs' `config` event. */
  readonly overrides: Partial<LogModel>;
  /** Request slots: the most requests in flight at once. */
  readonly window: number;
  /** Most prefix groups. */
  readonly prefixes?: number;
  /** Whether decode's reads are held to `Integrity` too (every position read content written for it there); off by default, as in `check`. */
  readonly integrity?: boolean;
  /** Most states the set may hold before the run gives up. */
  readonly maxStates?: number;
  /** Called every 65,536 events. */
  readonly onProgress?: (events: number) => void;
}

/** Why one state refused the deviating event. */
export interface Refusal {
  /** The state's number in the set, 1-based. */
  readonly state: number;
  /** Why. */
  readonly why: string;
}

/** The outcome of a validation. */
export interface ValidationResult {
  /** The verdict. */
  readonly verdict: 'conforms' | 'violation' | 'deviation' | 'incomplete';
  /** Events read (the line of the verdict included). */
  readonly events: number;
  /** Requests that arrived. */
  readonly requests: number;
  /** Most states the set held at once. */
  readonly peakStates: number;
  /** The model the log was held against. */
  readonly model: LogModel | undefined;
  /** The line of the violation or deviation. */
  readonly at?: SourceLine;
  /** The invariant broken, for a violation. */
  readonly invariant?: string;
  /** What went wrong, in words. */
  readonly headline: readonly string[];
  /** For a deviation: why each state refused the event. */
  readonly refusals: readonly Refusal[];
  /** For a violation: the request whose step broke the invariant, and the pages it is about. */
  readonly victim?: { readonly id: string; readonly pages: readonly number[] };
  /** The log lines of the requests involved, in log order (the trace at any scale). */
  readonly story: ReadonlyArray<SourceLine & { readonly seq: number }>;
  /** For a log that conforms: the requests still in flight when it ends (not finished in every state it may be in), with their phase in the first; a log cut off mid-request shows here. */
  readonly unfinished?: ReadonlyArray<{ readonly id: string; readonly phase: string }>;
  /** What a verdict does not cover, in words: a configuration read with less than every interleaving (validate.ts says when). */
  readonly caveats?: readonly string[];
  /** For a log small enough for the spec: the arrivals (length, prefix) and the spec actions of the state shown. */
  readonly spec?: { readonly requests: ReadonlyArray<{ readonly id: string; readonly length: number; readonly prefix?: string }>; readonly actions: readonly Action[] };
}
