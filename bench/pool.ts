/**
 * The page pool at real scale (docs/BACKGROUND.md, "The incident at real scale"): how many request lifecycles
 * (`allocate`, `prefill` or `stub`, `handoff`, `decode`, `free`) it runs per second in a
 * 16,384-page decode pool with P's 10,645-page limit, and what the owner check costs a
 * decode that really reads each page's payload, measured as a ratio within one run
 * (interleaved repetitions, alternating order) because the machine is shared.
 * `npx tsx bench/pool.ts` prints the figures as JSON; `npm run bench` collects them.
 */
import { fileURLToPath } from 'node:url';
import type { Variant } from '../spec/config.ts';
import { Ph } from '../spec/state.ts';
import { PagePool } from '../impl/pool.ts';

/** The incident's sizes. */
const PAGE_TOKENS = 64;
const DECODE_PAGES = 16_384;
const PREFILL_LIMIT = 10_645;
/** Requests in flight at once. */
const IN_FLIGHT = 16;
/** A page's payload in the decode benchmark: 64 tokens x 128 floats (one head's keys). */
const PAYLOAD_FLOATS = PAGE_TOKENS * 128;
/** Pages that have a payload of their own: 2,048 x 32 KiB = 64 MiB; page `p` uses slot `p % PAYLOAD_PAGES`. */
const PAYLOAD_PAGES = 2_048;

/** xorshift32: a deterministic workload, the same in every run. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

/**
 * Prompt lengths in pages: 97% log-uniform from 8 to 2,048 pages (512 to 131,072 tokens),
 * 3% from 2,048 up to the advertised 16,384 pages, a third of those over P's limit.
 */
function workload(n: number, seed: number): Int32Array {
  const next = prng(seed);
  const lengths = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const long = next() < 0.03;
    const [lo, hi] = long ? [2_048, DECODE_PAGES] : [8, 2_048];
    lengths[i] = Math.min(DECODE_PAGES, Math.round(lo * Math.pow(hi / lo, next())));
  }
  return lengths;
}

/** Counts of what the finished requests did. */
interface Tally {
  leaked: number;
  failed: number;
}

/** Finishes the request in `slot`: decode if it was handed off, then free. */
function finish(pool: PagePool, slot: number, tally: Tally): void {
  if (pool.decode(slot)) {
    if (pool.phase(slot) === Ph.failed) tally.failed++;
    else if (pool.foreignReads(slot) > 0) tally.leaked++;
  }
  pool.free(slot);
}

/** Runs `lengths` through the pool, up to {@link IN_FLIGHT} at once, the oldest finished first when slots or pages run out. */
function cycles(variant: Variant, lengths: Int32Array): { seconds: number; pages: number } & Tally {
  const pool = new PagePool({ pages: DECODE_PAGES, prefillLimit: PREFILL_LIMIT, variant, slots: IN_FLIGHT, maxLength: DECODE_PAGES });
  // Slots form a ring: `oldest` is the next to finish, the one after the newest the next to admit into.
  let oldest = 0;
  let busy = 0;
  let pages = 0;
  const tally: Tally = { leaked: 0, failed: 0 };
  const start = performance.now();
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i] ?? 1;
    while (busy === IN_FLIGHT || (busy > 0 && pool.freePages < length)) {
      finish(pool, oldest, tally);
      oldest = (oldest + 1) % IN_FLIGHT;
      busy--;
    }
    const slot = (oldest + busy) % IN_FLIGHT;
    pool.allocate(slot, length);
    if (!pool.prefill(slot)) pool.stub(slot);
    pool.handoff(slot);
    busy++;
    pages += length;
  }
  for (; busy > 0; busy--, oldest = (oldest + 1) % IN_FLIGHT) finish(pool, oldest, tally);
  return { seconds: (performance.now() - start) / 1000, pages, ...tally };
}

/** Lifecycles per second of each variant: three rounds in rotating order, the median round. */
function lifecycles(lengths: Int32Array): Record<string, unknown> {
  const variants: Variant[] = ['buggy', 'length-fix', 'owner-check'];
  const runs: Record<string, ({ seconds: number; pages: number } & Tally)[]> = {};
  for (const v of variants) cycles(v, lengths.subarray(0, 2_000)); // JIT warm-up
  for (let round = 0; round < 3; round++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + round) % variants.length] ?? 'buggy';
      (runs[v] ??= []).push(cycles(v, lengths));
    }
  }
  const out: Record<string, unknown> = {};
  for (const v of variants) {
    const sorted = [...(runs[v] ?? [])].sort((a, b) => a.seconds - b.seconds);
    const mid = sorted[1] ?? sorted[0];
    if (mid === undefined) continue;
    out[v] = {
      cyclesPerSecond: Math.round(lengths.length / mid.seconds),
      pagesPerSecond: Math.round(mid.pages / mid.seconds),
      leaked: mid.leaked,
      failedLoudly: mid.failed,
    };
  }
  return out;
}

/** Sums the payload of every page of the slot's table: what attention reads. */
function readPayload(pool: PagePool, slot: number, length: number, payload: Float32Array): number {
  const table = pool.pageTable(slot);
  let sum = 0;
  for (let i = 0; i < length; i++) {
    const at = ((table[i] ?? 0) % PAYLOAD_PAGES) * PAYLOAD_FLOATS;
    for (let j = at; j < at + PAYLOAD_FLOATS; j++) sum += payload[j] ?? 0;
  }
  return sum;
}

/** Median of a sample. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >>> 1;
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/**
 * The owner check's cost on a decode of `length` pages: the same request decoded by a pool
 * with the check (`owner-check`) and one without (`buggy`, no faults), in alternating
 * order, timing `decode` plus, when `payload` is given, reading every page's payload.
 */
function checkCost(
  length: number,
  reps: number,
  payload: Float32Array | undefined,
): { withMs: number; withoutMs: number; overhead: number; pairedOverhead: number; sink: number } {
  const options = { pages: DECODE_PAGES, prefillLimit: DECODE_PAGES, slots: 1, maxLength: DECODE_PAGES };
  const checked = new PagePool({ ...options, variant: 'owner-check' });
  const unchecked = new PagePool({ ...options, variant: 'buggy', faults: [] });
  const times: [number[], number[]] = [[], []];
  let sink = 0;
  const once = (pool: PagePool, into: number[]): void => {
    pool.allocate(0, length);
    pool.prefill(0);
    pool.handoff(0);
    const t0 = performance.now();
    if (!pool.decode(0) || pool.phase(0) !== Ph.decoded) throw new Error('bench: the decode did not succeed');
    if (payload !== undefined) sink += readPayload(pool, 0, length, payload);
    into.push(performance.now() - t0);
    pool.free(0);
  };
  for (let r = 0; r < reps; r++) {
    // Alternate which pool goes first, so that cache warmth and drift favour neither.
    if (r % 2 === 0) {
      once(checked, times[0]);
      once(unchecked, times[1]);
    } else {
      once(unchecked, times[1]);
      once(checked, times[0]);
    }
  }
  // The first repetitions warm up the JIT; they are not counted.
  const warm = Math.min(5, reps >>> 2);
  const ratios: number[] = [];
  for (let r = warm; r < reps; r++) ratios.push((times[0][r] ?? 0) / (times[1][r] ?? 1));
  const withMs = median(times[0].slice(warm));
  const withoutMs = median(times[1].slice(warm));
  // On a loaded machine most timings are stretched by preemption; the fastest of many
  // repetitions is the least disturbed, and each pair's ratio cancels slow drift.
  const best = (xs: number[]): number => Math.min(...xs.slice(warm));
  return { withMs, withoutMs, overhead: best(times[0]) / best(times[1]) - 1, pairedOverhead: median(ratios) - 1, sink };
}

/** Runs the benchmark; its figures. */
export async function run(): Promise<Record<string, unknown>> {
  const lengths = workload(20_000, 1);
  let meanPages = 0;
  let overLong = 0;
  for (const l of lengths) {
    meanPages += l / lengths.length;
    if (l > PREFILL_LIMIT) overLong++;
  }

  const payload = new Float32Array(PAYLOAD_PAGES * PAYLOAD_FLOATS);
  const next = prng(7);
  for (let i = 0; i < payload.length; i++) payload[i] = next();
  const decode256 = checkCost(256, 300, payload);
  const decode2048 = checkCost(2_048, 60, payload);
  const bookkeeping = checkCost(DECODE_PAGES, 200, undefined);
  const perPageNs = ((bookkeeping.withMs - bookkeeping.withoutMs) * 1e6) / DECODE_PAGES;
  // The check's own cost per page against a payload read per page: the overhead the noise hides.
  const readNsPerPage = (decode2048.withoutMs * 1e6) / 2_048;
  return {
    scale: { pageTokens: PAGE_TOKENS, decodePages: DECODE_PAGES, prefillLimit: PREFILL_LIMIT, inFlight: IN_FLIGHT },
    workload: { requests: lengths.length, meanPages: Math.round(meanPages), overLong },
    lifecycles: lifecycles(lengths),
    ownerCheck: {
      payloadPerPage: `${PAGE_TOKENS}x128 float32`,
      decode256Pages: figures(decode256),
      decode2048Pages: figures(decode2048),
      bookkeepingOnly16384Pages: { withCheckMs: round(bookkeeping.withMs, 4), withoutCheckMs: round(bookkeeping.withoutMs, 4), checkNsPerPage: round(perPageNs, 2) },
      payloadReadNsPerPage: round(readNsPerPage, 0),
      checkShareOfDecode: round(perPageNs / readNsPerPage, 6),
      target: 'overhead <= 0.05',
      sink: round(decode256.sink + decode2048.sink, 0),
    },
  };
}

/** A decode comparison as reported: median times, and the overhead from the fastest runs and from the paired ratios. */
function figures(c: ReturnType<typeof checkCost>): Record<string, number> {
  return { withCheckMs: round(c.withMs), withoutCheckMs: round(c.withoutMs), overhead: round(c.overhead, 4), pairedOverhead: round(c.pairedOverhead, 4) };
}

/** Rounds for the report. */
function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
