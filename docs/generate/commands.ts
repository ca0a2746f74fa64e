/**
 * The commands that reproduce the document's figures. They are built from the same
 * configurations the generator runs, so a figure and the command printed under it
 * cannot disagree.
 */
import { configArgs } from '../../spec/config-flags.ts';
import type { Config } from '../../spec/index.ts';

/** How the repository runs its command line. */
export const NPM_PAGECHECK = 'npm run -s pagecheck --';

/** Regenerates this document. */
export const DOCS_COMMAND = `${NPM_PAGECHECK} docs`;

/** Fails when the committed document is stale, naming the sections that differ. */
export const DOCS_CHECK_COMMAND = `${NPM_PAGECHECK} docs --check`;

/** The model flags that describe `config`; faults only when they are not the variant's own. */
export function modelFlags(config: Config): string {
  // The CLI's own table of flags, so that every switch the configuration has (allocator, eviction, retraction, ...) is in the command.
  return configArgs(config).join(' ');
}

/** `pagecheck <command>` on `config`, with extra flags after the model's. */
export function commandFor(command: string, config: Config, extra = ''): string {
  return `${NPM_PAGECHECK} ${command} ${modelFlags(config)}${extra === '' ? '' : ` ${extra}`}`;
}
