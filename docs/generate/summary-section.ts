/**
 * "At a glance": what the checker says about each variant, in one row each, computed from
 * the same runs as the figures further down (the minimal leak and the matrix), so that
 * the summary cannot claim what the figures do not show.
 */
import { VARIANTS } from '../../spec/index.ts';
import { LEAK_HEADING, MATRIX_HEADING, type Figures } from './figures.ts';
import { anchor, code, prose, table, type Section } from './markdown.ts';
import type { SpecDocs } from './sources.ts';

/** The whole "At a glance" section. */
export function summarySection(docs: SpecDocs, figures: Figures): Section {
  const isolation = prose(docs.declared('Isolation').text);
  const sentence = /^.*?\.(?=\s|$)/s.exec(isolation)?.[0] ?? isolation;
  const firstSentence = sentence.charAt(0).toLowerCase() + sentence.slice(1);
  const link = (heading: string): string => `[${heading}](#${anchor(heading)})`;
  const rows = VARIANTS.map((variant) => {
    const minimal = figures.leak.variants.find((v) => v.variant === variant)?.result;
    const broken = minimal?.violations.map((x) => `${code(x.invariant)} fails after ${x.depth} steps`) ?? [];
    const cells = figures.matrix.filter((c) => c.variant === variant);
    const faultsWhere = (outcome: 'leak' | 'holds'): string => {
      const faults = cells.filter((c) => c.isolation === outcome).map((c) => code(c.fault));
      return faults.length === 0 ? 'none' : faults.join(', ');
    };
    const others = cells
      .filter((c) => c.brokenInvariants.length > 0)
      .map((c) => `${c.brokenInvariants.map(code).join(', ')} with ${code(c.fault)}`);
    return [
      code(variant),
      minimal === undefined ? '' : broken.length === 0 ? 'holds' : broken.join(', '),
      faultsWhere('leak'),
      faultsWhere('holds'),
      others.length === 0 ? 'none' : others.join('; '),
    ];
  });
  return {
    heading: 'At a glance',
    body: [
      `The property that matters is ${code('Isolation')}: ${firstSentence} Each row sums up the checker's runs further down: the minimal incident (${link(LEAK_HEADING)}) and one run per fault on the matrix configuration (${link(MATRIX_HEADING)}).`,
      table(['Variant', 'Minimal incident', 'Matrix: leaks with', 'Matrix: no leak with', 'Matrix: other invariants broken'], rows),
      'Where another invariant breaks without a leak, the bug is still there (pages are double-freed, say) but no request reads what another wrote.',
    ].join('\n\n'),
  };
}
