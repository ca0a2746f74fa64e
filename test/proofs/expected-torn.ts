/**
 * What the proof of the hold invariant is expected to come to under torn writes, pinned
 * from z3's answers (`prove --variant hardened --drop N`, and `prove` with a mechanism of
 * `hardened` switched off) and checked by test/proofs/torn-write.test.ts.
 */
import type { Mechanism } from '../../spec/index.ts';

/** Dropping hold conjunct N under `hardened` with every fault: the obligations that then fail. */
export const HOLD_DROPS: Readonly<Record<number, readonly string[]>> = {
  1: ['allocate'],
  2: ['landData', 'landTag'],
  3: ['allocate', 'landData', 'landTag'],
  4: ['decode'],
  5: ['insert', 'landData', 'landTag'],
  6: ['allocate'],
  7: ['landData', 'landTag'],
  8: ['landData', 'landTag'],
  9: ['decode', 'insert'],
  10: ['decode'],
};

/** `hardened` with every fault but one mechanism switched off: the obligations that fail, and the conjunct broken. */
export const HOLD_WITHOUT: Readonly<Record<Mechanism, readonly string[]>> = {
  // a timed-out request's parts in flight, and its late write, still land by page id
  'revoke-writer': ['prefill:NoLateParts', 'stub:NoLateParts', 'timeout:NoLateParts'],
  // a double free's second release lists a free page twice (with stale-free alone: it frees a page another request holds)
  'release-checks-holder': ['free:FreeListUnheld'],
  // token slots only: with whole pages every write fills its page, so the count is never short (docs/SLOTS.md)
  'tag-counts-tokens': [],
  // retraction only: the proof's requests hold pages once (prove says so), so the load it guards never happens
  'copy-carries-tag': [],
  // radix only: the proof has no radix tree (prove refuses it), so the second unlock it guards never happens
  'unlock-once': [],
  // P's source pages only: the proof does not model them (its coverage refuses --source-pages)
  'hold-source': [],
  // premature-success only, which the proof does not cover: without the fault every commit follows the last part
  'commit-counts-landed': [],
  // aux-torn only, which the proof does not cover: without the fault there is no metadata slot
  'room-lands-last': [],
  // config draft only, which the proof does not cover: without it no page holds a draft
  'draft-fills-hit': [],
  // --state-slots only, which the proof does not model (its coverage refuses it)
  'slot-freed-with-request': [],
  'metadata-alloc-checks-holder': [],
  // loadback only, which the proof does not cover (its coverage refuses --loadback)
  'protect-host': [],
  'wait-own-load': [],
};
