/**
 * A fast path for decoding the request events a long log is made of. Schema's decoder
 * (events.ts) costs more than everything else the validator does per line; this one checks
 * the same fields by hand and builds the same object, and gives up (`undefined`) at the
 * first thing it does not expect, a missing field or one of the wrong type alike, so that
 * Schema decodes that line and words its message. What it accepts, Schema accepts too, into
 * the same object, key for key (test/conformance/fast-decode.test.ts holds them together
 * on random lines).
 */
import { INSERT_POINTS, type RequestEvent } from './events.ts';
import { MAX_LOG_PAGES } from './schema-parts.ts';

/** The fields each kind has beyond `kind`, `id`, `t` and `side`, in its schema's order. */
const EXTRA: Readonly<Record<string, readonly string[]>> = {
  arrive: ['length', 'tokens', 'prefix'],
  allocFail: ['tokens'],
  allocate: ['pages', 'stateSlot', 'metadataRow'],
  load: ['pages'],
  posted: ['pages', 'sources'],
  done: [],
  loaded: [],
  abort: [],
  refuse: [],
  abortCommit: ['pages'],
  handoff: [],
  grow: ['pages'],
  decode: ['pages', 'step'],
  fail: [],
  retract: ['pages'],
  resume: ['pages', 'tokens'],
  timeout: ['pages'],
  free: ['pages'],
  slotFree: ['stateSlot'],
  sourceFree: ['pages'],
  insert: ['pages', 'at', 'freed'],
  evict: ['pages'],
};

// Read once: an imported binding is a getter call on every access, and these run per page.
const MAX_ID = MAX_LOG_PAGES - 1;
const MAX_LENGTH = MAX_LOG_PAGES;

/** Whether `x` is a whole number in `[min, max]`. */
const whole = (x: unknown, min: number, max: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max;

/** A page list as the schema reads it; `undefined` when any item is not. The list itself, not a copy: it is JSON.parse's fresh array, which nothing else holds, and copying it cost an array per range on every line. */
function pageList(x: unknown): Array<number | [number, number]> | undefined {
  if (!Array.isArray(x)) return undefined;
  for (const item of x) {
    if (whole(item, 0, MAX_ID)) continue;
    if (!(Array.isArray(item) && item.length === 2 && whole(item[0], 0, MAX_ID) && whole(item[1], 0, MAX_ID))) return undefined;
  }
  return x as Array<number | [number, number]>;
}

/** One extra field's value as the schema reads it, or `undefined` when it is not one. */
function field(name: string, x: unknown): unknown {
  switch (name) {
    case 'pages':
    case 'freed':
    case 'sources':
      return pageList(x);
    case 'length':
      return whole(x, 1, MAX_LENGTH) ? x : undefined;
    case 'tokens':
      return whole(x, 1, Number.MAX_SAFE_INTEGER) ? x : undefined;
    case 'step':
    case 'stateSlot':
    case 'metadataRow':
      return whole(x, 0, Number.MAX_SAFE_INTEGER) ? x : undefined;
    case 'prefix':
      return typeof x === 'string' ? x : undefined;
    case 'at':
      return (INSERT_POINTS as readonly unknown[]).includes(x) ? x : undefined;
    default:
      return undefined;
  }
}

/** The request event in `json`, decoded as Schema would; `undefined` to let Schema decode it. */
export function fastDecode(json: Record<string, unknown>): RequestEvent | undefined {
  const { kind, id, t, side } = json;
  const extra = typeof kind === 'string' && Object.hasOwn(EXTRA, kind) ? EXTRA[kind] : undefined;
  if (extra === undefined || typeof id !== 'string' || id.length === 0 || id.length > 256) return undefined;
  const out: Record<string, unknown> = { kind, id };
  if (t !== undefined) {
    if (typeof t !== 'number' || !Number.isFinite(t)) return undefined;
    out['t'] = t;
  }
  if (side !== undefined) {
    if (side !== 'P' && side !== 'D') return undefined;
    out['side'] = side;
  }
  for (const name of extra) {
    const x = json[name];
    if (x === undefined) continue;
    const v = field(name, x);
    if (v === undefined) return undefined;
    out[name] = v;
  }
  // `allocate` needs its pages, `arrive` exactly one length; the rest, and the message, are Schema's.
  if (kind === 'allocate' && out['pages'] === undefined) return undefined;
  if (kind === 'slotFree' && out['stateSlot'] === undefined) return undefined;
  if (kind === 'arrive' && (out['length'] === undefined) === (out['tokens'] === undefined)) return undefined;
  return out as RequestEvent;
}
