import { describe, expect, it } from 'vitest';
import { describeStale, PREAMBLE, splitSections, staleSections } from '../../docs/generate/index.ts';

const doc = ['# Title', '', 'intro', '', '## One', '', 'first', '```text', '## not a heading', '```', '', '## Two', '', 'second', ''].join('\n');

describe('stale sections', () => {
  it('cuts a document at its ## headings, ignoring ## inside fenced blocks', () => {
    expect([...splitSections(doc).keys()]).toEqual([PREAMBLE, 'One', 'Two']);
    expect(splitSections(doc).get('One')).toContain('## not a heading');
  });

  it('names the one section that changed, with the first differing line', () => {
    const edited = doc.replace('second', 'Second');
    const diffs = staleSections(doc, edited);
    expect(diffs).toEqual([{ section: 'Two', how: 'changed', firstLine: { line: 14, expected: 'second', actual: 'Second' } }]);
    expect(describeStale(diffs)).toBe('section "Two" differs, from line 14:\n    expected: second\n    found:    Second');
  });

  it('names sections missing from the committed file, no longer generated, and a changed preamble', () => {
    const renamed = doc.replace('## Two', '## Three').replace('intro', 'Intro');
    expect(staleSections(doc, renamed).map((d) => `${d.how} ${d.section}`)).toEqual([`changed ${PREAMBLE}`, 'missing Two', 'extra Three']);
    expect(staleSections(doc, doc)).toEqual([]);
  });

  it('notices a difference in the trailing newline', () => {
    expect(staleSections(doc, doc.trimEnd()).map((d) => d.section)).toEqual(['Two']);
  });
});
