/**
 * The figures of docs/VARIANTS.md: what each variant and fault is (the spec's own
 * sentences, `VARIANT_DOCS` and `FAULT_DOCS`) and the whole `matrix` of designs against
 * faults, as the command prints it.
 */
import { FAULT_DOCS, FAULTS, VARIANT_DOCS, VARIANTS } from '../spec/index.ts';
import { command, type Figure } from './readme-figures.ts';

/** A definition list as a Markdown list: `name`: sentence. */
const described = (names: readonly string[], docs: Readonly<Record<string, string>>): string => names.map((n) => `- \`${n}\`: ${docs[n]!}`).join('\n');

/** The variants, the faults, and the matrix. */
export const VARIANT_FIGURES: readonly Figure[] = [
  { name: 'variant-list', file: 'docs/VARIANTS.md', render: async () => described(VARIANTS, VARIANT_DOCS) },
  { name: 'fault-list', file: 'docs/VARIANTS.md', render: async () => described(FAULTS, FAULT_DOCS) },
  // The whole matrix: 76 searches, about 3 CPU seconds (checked in the heavy tier, test/docs/figures-slow.test.ts).
  { ...command('matrix-full', ['matrix'], (o) => o, 'docs/VARIANTS.md'), slow: true },
];
