/**
 * The requests of a replay, in arrival order: one prompt length in tokens per request,
 * drawn from the workload's mix with a generator of its own, so that the first N requests
 * are the same whatever the total and whatever the scheduler draws.
 */
import { Prng } from './prng.ts';
import type { MixEntry, Workload } from './workload.ts';

/** Prompt lengths in tokens, in arrival order; request `i` is user `i`. */
export function arrivals(workload: Workload, seed: number): Int32Array {
  const tokens = new Int32Array(workload.requests);
  const source = workload.source;
  if (source.kind === 'list') {
    const list = source.tokens;
    for (let i = 0; i < tokens.length; i++) tokens[i] = list[i % list.length] ?? 1;
    return tokens;
  }
  const prng = new Prng(seed);
  const mix = source.mix;
  const cumulative = new Float64Array(mix.length);
  let total = 0;
  for (let k = 0; k < mix.length; k++) cumulative[k] = total += mix[k]?.weight ?? 0;
  for (let i = 0; i < tokens.length; i++) {
    const x = prng.next() * total;
    let k = 0;
    while (k < mix.length - 1 && x >= (cumulative[k] ?? 0)) k++;
    const entry = mix[k];
    if (entry !== undefined) tokens[i] = draw(prng, entry);
  }
  return tokens;
}

/** One length from an entry's range. */
function draw(prng: Prng, e: MixEntry): number {
  if (e.minTokens === e.maxTokens) return e.minTokens;
  if (e.spread === 'uniform') return prng.int(e.minTokens, e.maxTokens);
  // Rounding a log-uniform draw can step just outside the range; clamp it back.
  return Math.min(e.maxTokens, Math.max(e.minTokens, Math.round(prng.logUniform(e.minTokens, e.maxTokens))));
}

/** Pages a prompt of `tokens` needs: `ceil(tokens / pageTokens)`. */
export function pagesOf(tokens: number, pageTokens: number): number {
  return Math.ceil(tokens / pageTokens);
}

/** The system prompts of `incident --prefixes N`: prompt `g` is `1 + g % 3` whole pages (64 to 192 tokens at 64-token pages). */
export function prefixLengthsOf(n: number): number[] {
  return Array.from({ length: n }, (_, g) => 1 + (g % 3));
}

/**
 * Per request, the system prompt it starts with (-1: none): half the requests draw one of
 * the `lengths.length` prompts, uniformly, from a stream of their own (so the lengths and
 * the schedule are those of a replay without prefixes); a prompt of no more pages than the
 * prefix has none (a request needs a page of its own besides).
 */
export function prefixesOf(tokens: Int32Array, lengths: readonly number[], pageTokens: number, seed: number): Int32Array {
  const prng = new Prng((seed + 0x510e527f) >>> 0);
  const out = new Int32Array(tokens.length).fill(-1);
  for (let i = 0; i < tokens.length; i++) {
    const x = prng.next() * 2 * lengths.length;
    const g = Math.floor(x);
    if (g < lengths.length && pagesOf(tokens[i] ?? 1, pageTokens) > (lengths[g] ?? 1)) out[i] = g;
  }
  return out;
}
