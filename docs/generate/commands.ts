/**
 * The commands that reproduce the document's figures. They are built from the same
 * configurations the generator runs, so a figure and the command printed under it
 * cannot disagree.
 */
import { DEFAULT_FAULTS, type Config } from '../../spec/index.ts';

/** How the repository runs its command line. */
export const NPM_PAGECHECK = 'npm run -s pagecheck --';

/** Regenerates this document. */
export const DOCS_COMMAND = `${NPM_PAGECHECK} docs`;

/** Fails when the committed document is stale, naming the sections that differ. */
export const DOCS_CHECK_COMMAND = `${NPM_PAGECHECK} docs --check`;

/** The model flags that describe `config`; faults only when they are not the variant's own. */
export function modelFlags(config: Config): string {
  const requests = config.requests.map((q) => (q.prefix === undefined ? `${q.length}` : `${q.length}:${q.prefix}`)).join(',');
  const flags = [`--variant ${config.variant}`, `--pages ${config.pages}`, `--prefill-limit ${config.prefillLimit}`, `--requests ${requests}`];
  const defaults = DEFAULT_FAULTS[config.variant];
  const same = defaults.length === config.faults.length && defaults.every((f) => config.faults.includes(f));
  if (!same) flags.push(`--faults ${config.faults.length === 0 ? 'none' : config.faults.join(',')}`);
  return flags.join(' ');
}

/** `pagecheck <command>` on `config`, with extra flags after the model's. */
export function commandFor(command: string, config: Config, extra = ''): string {
  return `${NPM_PAGECHECK} ${command} ${modelFlags(config)}${extra === '' ? '' : ` ${extra}`}`;
}
