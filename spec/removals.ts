/**
 * Each mechanism of `hardened` with the fault it stops and the smallest configuration where
 * `hardened` without it has a counterexample: the removal test, as data. The README's table
 * of mechanisms runs each one both ways (`check --variant hardened --without ...`), and
 * test/spec/removals.test.ts pins what the checker finds; so "which mechanism stops which
 * fault" is written once, here, and shown by a command anyone can run.
 *
 * The configurations are the removal tests' own (test/hardened, test/spec/slots, retraction,
 * radix, source-pages, wire, draft, state-slots and loadback), the smallest where the fault
 * gets past the owner check.
 */
import { requestName, type Config, type Fault } from './config.ts';
import { MECHANISMS, type Mechanism } from './hardening.ts';

/** A mechanism's removal: the faults it stops, and the configuration that shows it. */
export interface Removal {
  /** The faults it stops where they get past the owner check: in {@link Removal.config}, or (a mechanism's other faults) in the matrix's cell of that fault. */
  readonly stops: readonly Fault[];
  /** `hardened` with all its mechanisms, on the configuration where removing this one leaks. */
  readonly config: Config;
  /** Without it nothing leaks: the owner check turns the read into a loud failure, which the mechanism spares the request (`wait-own-load`: decode waits for its load instead of failing on the tags the allocation cleared). */
  readonly loud?: true;
}

/** `hardened` on `pages` pages, prefill limit `limit`, requests `2,3:sys` as the flag writes them, with `faults` and any switches in `more`. */
function hardenedOn(pages: number, limit: number, requests: string, faults: readonly Fault[], more: Partial<Config> = {}): Config {
  return {
    pages,
    prefillLimit: limit,
    requests: requests.split(',').map((q, i) => {
      const [length, prefix] = q.split(':');
      return prefix === undefined ? { name: requestName(i), length: Number(length) } : { name: requestName(i), length: Number(length), prefix };
    }),
    variant: 'hardened',
    faults,
    ...more,
  };
}

/** Every mechanism's removal, in the order the mechanisms are documented. */
export const REMOVALS: Readonly<Record<Mechanism, Removal>> = {
  'revoke-writer': { stops: ['early-free', 'torn-write'], config: hardenedOn(2, 2, '1,1', ['early-free', 'torn-write']) },
  'release-checks-holder': { stops: ['stale-free', 'double-free', 'segment-overlap'], config: hardenedOn(2, 2, '1,1,1', ['stale-free', 'torn-write']) },
  'tag-counts-tokens': { stops: ['auto-truncate'], config: hardenedOn(3, 3, '3,4', ['auto-truncate'], { pageSize: 2 }) },
  'copy-carries-tag': { stops: ['offload-after-free'], config: hardenedOn(3, 3, '2,1', ['offload-after-free'], { retraction: true }) },
  'unlock-once': { stops: ['lock-underflow'], config: hardenedOn(3, 3, '2:sys,2:sys,2', ['lock-underflow'], { eviction: true, radix: true }) },
  'hold-source': { stops: ['source-early-free'], config: hardenedOn(2, 2, '1', ['torn-write', 'source-early-free'], { sourcePages: true }) },
  'commit-counts-landed': { stops: ['premature-success'], config: hardenedOn(2, 2, '1,1', ['torn-write', 'premature-success']) },
  'room-lands-last': { stops: ['aux-torn'], config: hardenedOn(2, 2, '1,1', ['aux-torn']) },
  'draft-fills-hit': { stops: ['draft-stale'], config: hardenedOn(3, 3, '1,2:sys', ['draft-stale'], { draft: true }) },
  'slot-freed-with-request': { stops: ['state-slot-reuse'], config: hardenedOn(2, 2, '1,1', ['state-slot-reuse'], { stateSlots: true }) },
  'metadata-alloc-checks-holder': { stops: ['metadata-collision'], config: hardenedOn(2, 2, '1,1', ['metadata-collision'], { stateSlots: true }) },
  'protect-host': { stops: ['host-evict-during-load'], config: hardenedOn(2, 2, '1,2:sys', ['host-evict-during-load'], { loadback: true }) },
  'wait-own-load': { stops: ['read-before-load'], config: hardenedOn(2, 2, '1,2:sys', ['read-before-load'], { loadback: true }), loud: true },
};

/** The configuration of mechanism `k`'s removal test: `hardened` without `k`. */
export function withoutMechanism(k: Mechanism): Config {
  return { ...REMOVALS[k].config, without: [k] };
}

/** The mechanisms in their documented order, each with its removal. */
export const REMOVAL_LIST: readonly (Removal & { readonly mechanism: Mechanism })[] = MECHANISMS.map((mechanism) => ({ mechanism, ...REMOVALS[mechanism] }));
