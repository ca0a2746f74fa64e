/**
 * What the proof covers, declared once: the faults its encoding has, the actions it has an
 * obligation for, and the configurations its claim is about. `prove` refuses any other
 * fault and prints every feature it does not cover under its verdict (spec/coverage.ts
 * derives both). A fault or action the spec gains joins by a decision here.
 */
import { coverage, kindsGuard, type Coverage } from '../spec/coverage.ts';
import type { ActionKind, Fault } from '../spec/index.ts';

/**
 * The faults the encoding has. Not `auto-truncate` (token slots; docs/SLOTS.md says why it
 * needs no obligation), `segment-overlap` (a release split into SGLang's calls,
 * spec/release.ts: test/spec/release.test.ts's bounded check stands in), nor retraction's
 * faults (the encoding's requests hold pages once: test/spec/retraction.test.ts stands in).
 */
export const PROOF_FAULTS = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write'] as const satisfies readonly Fault[];

/** One of {@link PROOF_FAULTS}. */
export type ProofFault = (typeof PROOF_FAULTS)[number];

/**
 * The actions with an obligation: not `evict`, `grow` nor retraction's, since the proof is
 * about configurations without eviction (docs/ALLOCATOR.md), table growth (docs/SLOTS.md)
 * or retraction, where those never happen.
 */
export const PROOF_ACTIONS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert', 'landData', 'landTag'] as const satisfies readonly ActionKind[];

/** Whether the proof has action kind `k` (an obligation, and a relation in the encoding). */
export const isProofKind = kindsGuard(PROOF_ACTIONS);

/** The proof's coverage: any number of pages, requests, prefixes of any length and decode steps, any free pages an allocation takes, either length rule (a limit one lower stands for the other), with one token slot per page. */
export const PROOF_COVERAGE: Coverage = coverage('the proof', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo', 'any'],
  switches: ['decodeSteps', 'prefixes', 'prefixPages', 'lengthRule'],
  faults: PROOF_FAULTS,
  actions: PROOF_ACTIONS,
  instead: {
    eviction: 'is about configurations without eviction',
    tableGrowth: 'keeps a fixed page table',
    retraction: 'holds each request once',
    tokenSlots: 'is about whole pages (docs/SLOTS.md)',
    'fault:auto-truncate': 'is about whole pages (docs/SLOTS.md)',
    'fault:segment-overlap': 'releases a table in one step',
  },
});
