/**
 * Warnings about a configuration, given before the search: a fault switched on (or the
 * variant's own bug) that cannot fire here makes every verdict vacuous for it, e.g.
 * `--prefill-limit 50` on 3 pages means no prompt is ever stubbed, so buggy "holds".
 * Whether a fault can fire is the spec's own fact: the witness that it fired applies.
 */
import { CopyInFlight, DEFAULT_FAULTS, DoubleRelease, EvictedWhileRead, LateWriteLands, OverLongStubbed, PoisonedInsert, PromptTruncated, Resumed, SegmentOverlap, TornPage, type Fault, type Model, type Property } from '../spec/index.ts';

/** The witness that shows each fault firing; it applies exactly where the fault can fire. */
const FIRES: Readonly<Record<Fault, Property>> = {
  'silent-stub': OverLongStubbed,
  'early-free': LateWriteLands,
  'stale-free': DoubleRelease,
  'prefix-poison': PoisonedInsert,
  // The second release runs (what it then frees is the variant's business: under hardened, nothing another request holds).
  'double-free': DoubleRelease,
  'lock-underflow': EvictedWhileRead,
  'torn-write': TornPage,
  'auto-truncate': PromptTruncated,
  'segment-overlap': SegmentOverlap,
  'offload-after-free': CopyInFlight,
  // Every resume skips the load: the fault fires wherever a request is resumed.
  'resume-stale': Resumed,
};

/** Why a fault cannot fire, in the configuration's own terms. */
function why(m: Model, fault: Fault): string {
  const longest = Math.max(0, ...m.config.requests.map((q) => q.length));
  const unit = `${m.pageSize === 1 ? 'page' : 'token'}${longest === 1 ? '' : 's'}`;
  const tooLong = m.lengthRule === 'ge' ? 'as long as' : 'longer than';
  if (fault === 'silent-stub' && m.fault['auto-truncate']) return 'fault auto-truncate cuts every over-long prompt instead of stubbing it';
  if (fault === 'silent-stub' || fault === 'auto-truncate') return `no request is ${tooLong} the prefill limit ${m.config.prefillLimit} (the longest is ${longest} ${unit})`;
  if (fault === 'prefix-poison') return 'no request has a prompt prefix (LEN:PREFIX in --requests)';
  if (fault === 'lock-underflow' && !m.eviction) return 'the prefix cache does not evict here (--eviction is off)';
  if (fault === 'torn-write' && !m.ownerCheck) return 'without an owner check a page write has no tag part to land apart from its content';
  if ((fault === 'offload-after-free' || fault === 'resume-stale') && !m.retraction) return 'D never retracts a request here (--retraction is off)';
  if (fault === 'segment-overlap') return 'no request has a prompt prefix or, with token slots, a prompt that ends mid-page: no release makes two calls';
  return `its witness ${FIRES[fault].name} does not apply`;
}

/** One warning per switched-on fault that cannot fire in `m`; the variant's own bug is named as such. */
export function configWarnings(m: Model): string[] {
  const own = new Set<Fault>(DEFAULT_FAULTS[m.config.variant]);
  return m.config.faults
    .filter((f) => !FIRES[f].appliesTo(m))
    .map((f) => `fault ${f}${own.has(f) ? ` (the ${m.config.variant} variant's own)` : ''} cannot fire in this configuration: ${why(m, f)}; a verdict says nothing about it`);
}
