/**
 * A configuration as the command line's flags: each field's flag and its value, in the
 * order replay lines give them. The replay lines the commands print and the commands the
 * generated documents show are both this one list, so neither can leave out a switch
 * (`--allocator`, `--eviction`, `--retraction`, ...) that the configuration has.
 */
import { DEFAULT_FAULTS, type Config } from './config.ts';

/**
 * Each configuration field's flag, and its value as that flag takes it (`true`: the flag
 * alone; `undefined`: the field is at its default and the flag is left out). Typed over
 * every field of {@link Config}, so that a new field cannot be left out of the replay
 * lines; in the order the replay lines give them.
 */
export const FIELD_FLAGS: { readonly [K in keyof Config]-?: { readonly flag: string; readonly value: (config: Config, forceFaults: boolean) => string | true | undefined } } = {
  variant: { flag: '--variant', value: (c) => c.variant },
  pages: { flag: '--pages', value: (c) => `${c.pages}` },
  prefillLimit: { flag: '--prefill-limit', value: (c) => `${c.prefillLimit}` },
  requests: { flag: '--requests', value: (c) => c.requests.map((q) => (q.prefix === undefined ? `${q.length}` : `${q.length}:${q.prefix}`)).join(',') },
  faults: {
    flag: '--faults',
    value: (c, force) => {
      const defaults = DEFAULT_FAULTS[c.variant];
      const same = defaults.length === c.faults.length && defaults.every((f) => c.faults.includes(f));
      return same && !force ? undefined : c.faults.length === 0 ? 'none' : c.faults.join(',');
    },
  },
  allocator: { flag: '--allocator', value: (c) => (c.allocator === undefined || c.allocator === 'sorted' ? undefined : c.allocator) },
  pageSize: { flag: '--page-size', value: (c) => (c.pageSize === undefined || c.pageSize === 1 ? undefined : `${c.pageSize}`) },
  lengthRule: { flag: '--length-rule', value: (c) => (c.lengthRule === undefined || c.lengthRule === 'gt' ? undefined : c.lengthRule) },
  eviction: { flag: '--eviction', value: (c) => (c.eviction === true ? true : undefined) },
  prefixPages: { flag: '--prefix-pages', value: (c) => prefixPagesFlag(c) },
  decodeSteps: { flag: '--decode-steps', value: (c) => (c.decodeSteps === undefined || c.decodeSteps === 1 ? undefined : `${c.decodeSteps}`) },
  tableGrowth: { flag: '--table-growth', value: (c) => (c.tableGrowth === true ? true : undefined) },
  retraction: { flag: '--retraction', value: (c) => (c.retraction === true ? true : undefined) },
  radix: { flag: '--radix', value: (c) => (c.radix === true ? true : undefined) },
  sourcePages: { flag: '--source-pages', value: (c) => (c.sourcePages === true ? true : undefined) },
  draft: { flag: '--draft', value: (c) => (c.draft === true ? true : undefined) },
  stateSlots: { flag: '--state-slots', value: (c) => (c.stateSlots === true ? true : undefined) },
  loadback: { flag: '--loadback', value: (c) => (c.loadback === true ? true : undefined) },
  without: { flag: '--without', value: (c) => (c.without === undefined || c.without.length === 0 ? undefined : c.without.join(',')) },
};

/** Each configuration field's flag, by field name. */
export const FLAG_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(FIELD_FLAGS).map(([field, f]) => [field, f.flag]));

/** The prefixes longer than one page as `--prefix-pages` takes them (`sys=2,doc=3`), or `undefined` when every prefix is one page. */
export function prefixPagesFlag(config: Config): string | undefined {
  const long = Object.entries(config.prefixPages ?? {}).filter(([, k]) => k > 1);
  return long.length === 0 ? undefined : long.map(([name, k]) => `${name}=${k}`).join(',');
}

/** The model flags that give `config` (request names aside), fields at their defaults left out; `--faults` only when not the variant's own, unless `forceFaults`. */
export function configArgs(config: Config, forceFaults = false): string[] {
  const args: string[] = [];
  for (const { flag, value } of Object.values(FIELD_FLAGS)) {
    const v = value(config, forceFaults);
    if (v === true) args.push(flag);
    else if (v !== undefined) args.push(flag, v);
  }
  return args;
}

