/** The specification document generator: its public surface, used by `pagecheck docs` and the tests. */
export { compute, generateDocument, renderDocument, type Computed } from './document.ts';
export { readSpecSources, REPO_ROOT, specDocs, type SpecSources } from './sources.ts';
export { describeStale, GENERATED_MARKER, PREAMBLE, splitSections, staleSections, type SectionDifference } from './stale.ts';
export { DOCS_CHECK_COMMAND, DOCS_COMMAND } from './commands.ts';

/** Where the document lives, relative to the repository's root. */
export const SPEC_DOCUMENT = 'docs/SPEC.md';
