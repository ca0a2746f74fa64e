/**
 * The configuration a `reset` message carries (docs/ADAPTER.md), in the protocol's one rule
 * of units, the log format's too: a field named for pages counts pages (`pages`, a
 * request's `length`, `prefillLimit`), a field named for tokens counts tokens (`pageSize`,
 * a request's `tokens`, `prefillTokens`). The spec's configuration keeps lengths in tokens
 * (pages of one token unless `pageSize` says more); the message gives both, so that an
 * adapter of whole pages reads pages and one of token slots reads tokens.
 */
import type { Config } from '../../spec/index.ts';

/** One request as the `reset` message names it. */
export interface ResetRequest {
  /** Its name, as actions name it. */
  readonly name: string;
  /** Its prompt in pages: `ceil(tokens / pageSize)`. */
  readonly length: number;
  /** Its prompt in tokens. */
  readonly tokens: number;
  /** The prompt prefix it shares, if any. */
  readonly prefix?: string;
}

/** The configuration a `reset` message carries. */
export type ResetConfig = Omit<Config, 'requests' | 'prefillLimit' | 'allocator'> & {
  /** Tokens per page. */
  readonly pageSize: number;
  /** P's limit in whole pages (`prefillTokens / pageSize`, rounded down): exact only with one token per page. */
  readonly prefillLimit: number;
  /** P's limit in tokens. */
  readonly prefillTokens: number;
  /** The allocation order (`sorted` when the configuration names none). */
  readonly allocator: string;
  /** The requests, lengths in both units. */
  readonly requests: readonly ResetRequest[];
};

/** The `reset` message's configuration for a spec configuration. */
export function resetConfig(config: Config): ResetConfig {
  const pageSize = config.pageSize ?? 1;
  return {
    ...config,
    pageSize,
    prefillLimit: Math.floor(config.prefillLimit / pageSize),
    prefillTokens: config.prefillLimit,
    allocator: config.allocator ?? 'sorted',
    requests: config.requests.map((q) => ({ name: q.name, length: Math.ceil(q.length / pageSize), tokens: q.length, ...(q.prefix === undefined ? {} : { prefix: q.prefix }) })),
  };
}
