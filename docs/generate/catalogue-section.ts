/**
 * "Variants and faults": the three behaviours of the serving stack and the fault
 * catalogue, from `VARIANT_DOCS`, `FAULT_DOCS` and `DEFAULT_FAULTS` with the doc comments
 * of the lists they index.
 */
import { DEFAULT_FAULTS, FAULT_DOCS, FAULTS, MECHANISM_DOCS, MECHANISMS, VARIANT_DOCS, VARIANTS } from '../../spec/index.ts';
import { requireDoc } from './jsdoc.ts';
import { cell, code, prose, table, type Section } from './markdown.ts';
import type { SpecDocs } from './sources.ts';

/** The whole "Variants and faults" section. */
export function catalogueSection(docs: SpecDocs): Section {
  const config = docs.file('spec/config.ts');
  const list = (items: readonly string[]): string => (items.length === 0 ? 'none' : items.map(code).join(', '));
  const variants = VARIANTS.map((v) => [code(v), cell(VARIANT_DOCS[v]), list(DEFAULT_FAULTS[v])]);
  const faults = FAULTS.map((f) => [code(f), cell(FAULT_DOCS[f]), list(VARIANTS.filter((v) => DEFAULT_FAULTS[v].includes(f)))]);
  const hardening = docs.file('spec/hardening.ts');
  const mechanisms = MECHANISMS.map((k) => [code(k), cell(MECHANISM_DOCS[k].what), cell(MECHANISM_DOCS[k].where), cell(MECHANISM_DOCS[k].cost)]);
  return {
    heading: 'Variants and faults',
    body: [
      '### Variants',
      prose(requireDoc(config, 'VARIANTS').text),
      table(['Variant', 'Behaviour', 'Faults on by default'], variants),
      '### Fault catalogue',
      `${prose(requireDoc(config, 'FAULTS').text)} ${prose(requireDoc(config, 'DEFAULT_FAULTS').text)}`,
      table(['Fault', 'What goes wrong', 'On by default in'], faults),
      '### The mechanisms of `hardened`',
      hardening.module === undefined ? '' : prose(hardening.module.text),
      table(['Mechanism', 'What it does', 'Where, in real code', 'What it costs'], mechanisms),
    ].join('\n\n'),
  };
}
