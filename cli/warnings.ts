/**
 * Warnings about a configuration, given before the search: a fault switched on (or the
 * variant's own bug) that cannot fire here makes every verdict vacuous for it, e.g.
 * `--prefill-limit 50` on 3 pages means no prompt is ever stubbed, so buggy "holds".
 * Whether a fault can fire is the spec's own fact: the witness that it fired applies.
 */
import { DEFAULT_FAULTS, FAULT_NEEDS, FAULT_WITNESSES, MECHANISMS, SWITCH_DOCS, type Fault, type Mechanism, type Model } from '../spec/index.ts';

/** Why a fault cannot fire, in the configuration's own terms (the matrix says it of a column it gives more pages). */
export function why(m: Model, fault: Fault): string {
  const longest = Math.max(0, ...m.config.requests.map((q) => q.length));
  const unit = `${m.pageSize === 1 ? 'page' : 'token'}${longest === 1 ? '' : 's'}`;
  const tooLong = m.lengthRule === 'ge' ? 'as long as' : 'longer than';
  // A fault that acts under a switch (spec/config.ts's FAULT_NEEDS) cannot fire while the switch is off.
  const needs = FAULT_NEEDS[fault];
  if (needs !== undefined && !SWITCH_DOCS[needs].on(m.config)) return `${SWITCH_DOCS[needs].off} (${SWITCH_DOCS[needs].flag} is off)`;
  if (fault === 'silent-stub' && m.fault['auto-truncate']) return 'fault auto-truncate cuts every over-long prompt instead of stubbing it';
  if (fault === 'silent-stub' || fault === 'auto-truncate') return `no request is ${tooLong} the prefill limit ${m.config.prefillLimit} (the longest is ${longest} ${unit})`;
  if (fault === 'prefix-poison') return SWITCH_DOCS.prefixes.off;
  if (fault === 'torn-write' && !m.ownerCheck) return 'without an owner check a page write has no tag part to land apart from its content';
  if (fault === 'source-early-free') return "without torn-write P's write lands whole when it is posted: no transfer is in flight for P's abort to overtake";
  if (fault === 'draft-stale') return `${SWITCH_DOCS.prefixes.off}: the draft part has no prefix position to skip`;
  if (fault === 'state-slot-reuse' || fault === 'metadata-collision') return "no two requests fit D's pages together: a slot is reused, or a row shared, only by a request allocated while another is in flight";
  if (fault === 'segment-overlap') return 'no request has a prompt prefix or, with token slots, a prompt that ends mid-page: no release makes two calls';
  return `its witness ${FAULT_WITNESSES[fault].name} does not apply`;
}

/** The mechanism of `hardened` that keeps fault `fault` from firing in `m`, if one does: the fault's witness applies with that mechanism off. */
function stoppedBy(m: Model, fault: Fault): Mechanism | undefined {
  return MECHANISMS.find((k) => m.mechanism[k] && FAULT_WITNESSES[fault].appliesTo({ ...m, mechanism: { ...m.mechanism, [k]: false } }));
}

/** One warning per switched-on fault that cannot fire in `m`; the variant's own bug is named as such, and a fault a mechanism stops where it is made says which. */
export function configWarnings(m: Model): string[] {
  const own = new Set<Fault>(DEFAULT_FAULTS[m.config.variant]);
  return m.config.faults
    .filter((f) => !FAULT_WITNESSES[f].appliesTo(m))
    .map((f) => {
      const fault = `fault ${f}${own.has(f) ? ` (the ${m.config.variant} variant's own)` : ''}`;
      const k = stoppedBy(m, f);
      // Not vacuous: the mechanism is what the verdict is about, and --without shows what it stops.
      if (k !== undefined) return `${fault} never fires here: hardened's ${k} stops it where it is made (--without ${k} shows what it stops)`;
      return `${fault} cannot fire in this configuration: ${why(m, f)}; a verdict says nothing about it`;
    });
}
