/**
 * Random configurations with the prefix cache as a radix tree (config `radix`,
 * impl/radix-pool.ts) for the model-based test: the drawn configuration with eviction and
 * the tree on, its prefixes in one of three shapes, so that partial matches, leaves over
 * parents and paths shared by nested prefixes all come up in small pools.
 */
import fc from 'fast-check';
import type { Config, RequestSpec } from '../spec/config.ts';

/** The prefixes' shape: as drawn (`p` and `q`, a page each), `p` of 2 pages, or `q` nested under `p` as `p/q` of 2 pages. */
export const RADIX_SHAPES = ['flat', 'long', 'nested'] as const;

/** One of {@link RADIX_SHAPES}. */
export type RadixShape = (typeof RADIX_SHAPES)[number];

/** The pages of a request's prompt (lengths are tokens; whole-page configurations give whole pages of the page size). */
const pagesOf = (c: Config, q: RequestSpec): number => Math.ceil(q.length / (c.pageSize ?? 1));

/**
 * `config` with the prefixes reshaped: `long` makes `p` 2 pages when every request with it
 * has 3 or more (a prefix's request needs a page of its own besides); `nested` renames `q`
 * to `p/q` of 2 pages (`p` stays 1) when every request with `q` has 3 or more.
 */
export function reshapePrefixes(config: Config, shape: RadixShape): Config {
  const name = shape === 'long' ? 'p' : 'q';
  const named = config.requests.filter((q) => q.prefix === name);
  if (shape === 'flat' || named.length === 0 || named.some((q) => pagesOf(config, q) < 3)) return config;
  if (shape === 'long') return { ...config, prefixPages: { p: 2 } };
  return { ...config, requests: config.requests.map((q) => (q.prefix === 'q' ? { ...q, prefix: 'p/q' } : q)), prefixPages: { 'p/q': 2 } };
}

/**
 * `configs` with eviction on and, where a request has a prefix (the tree needs one,
 * spec/config-checks.ts), the radix tree, its prefixes reshaped by a drawn shape.
 */
export function withRadix(configs: fc.Arbitrary<Config>): fc.Arbitrary<Config> {
  return fc.record({ config: configs, shape: fc.constantFrom(...RADIX_SHAPES) }).map(({ config, shape }): Config => {
    if (!config.requests.some((q) => q.prefix !== undefined)) return { ...config, eviction: true };
    return { ...reshapePrefixes(config, shape), eviction: true, radix: true };
  });
}
