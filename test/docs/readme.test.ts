/**
 * The README and the docs/ pages that hold figures say what the code prints: every figure
 * but the slow ones is rendered again here, in-process (the commands' real output, the
 * spec's lists, the checker's state counts, bench/results.json), and compared with its
 * marked block. `npx tsx figures/write-figures.ts` rewrites them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { figureBlocks, replaceFigures } from '../../figures/figure-blocks.ts';
import { REPO_ROOT } from '../../docs/generate/index.ts';
import { ALL_FIGURES, differences } from '../../figures/write-figures.ts';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');
const FILES = [...new Set(ALL_FIGURES.map((f) => f.file))];

describe('the README as a user document', () => {
  it('is under 300 lines, and keeps the two set-up commands and the registry note', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(300);
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test ');
    expect(readme).toContain('Not in the registry yet: install from a clone or the packed tarball.');
    expect(readme).not.toMatch(/npm install --save-dev pagecheck\b(?!-)/);
  });

  it('has a section for every command under cli/commands/ (read as text: loading them all takes seconds)', () => {
    const dir = join(REPO_ROOT, 'cli/commands');
    const commands = readdirSync(dir).flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/\.command\('([a-z-]+)/g)].map((m) => m[1]!));
    expect(commands.length).toBeGreaterThanOrEqual(11);
    const readme = read('README.md');
    for (const c of commands) expect(readme, c).toMatch(new RegExp(`^##+ .*\`${c}\``, 'm'));
  });

  it('defines the checker\'s words in docs/GLOSSARY.md, linked before the README first uses them', () => {
    const glossary = read('docs/GLOSSARY.md');
    const words = ['state', 'action', 'depth', 'witness', 'invariant', 'symmetry', 'variant', 'fault', 'counterexample', 'orbit', 'fingerprint', 'live state', 'trace', 'deadlock', 'refinement'];
    for (const w of words) expect(glossary, w).toMatch(new RegExp(`^- \\*\\*${w}\\*\\*`, 'm'));
    const readme = read('README.md').toLowerCase();
    const link = readme.indexOf('docs/glossary.md');
    for (const w of ['witness', 'symmetry', 'depth', 'invariant', 'counterexample']) expect(link, w).toBeLessThan(readme.indexOf(w));
  });

  it('links only to files that exist, in the README and the pages it links', () => {
    for (const file of ['README.md', 'docs/GLOSSARY.md', 'docs/COMMANDS.md', 'docs/VARIANTS.md', 'docs/MEASURED.md', 'docs/LIBRARY.md', 'docs/LAYOUT.md']) {
      for (const m of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^https?:/.test(target)) continue;
        expect(existsSync(join(REPO_ROOT, dirname(file), target)), `${file} links ${target}`).toBe(true);
      }
    }
  });
});

describe('generated figures', () => {
  it('every marked block is a known figure, once, and every figure has its block', () => {
    for (const file of FILES) {
      const names = figureBlocks(read(file)).map((b) => b.name);
      const expected = ALL_FIGURES.filter((f) => f.file === file).map((f) => f.name);
      expect([...names].sort(), file).toEqual([...expected].sort());
    }
  });

  it('match what the code prints (commands, spec lists, state counts, bench/results.json)', async () => {
    const fast = ALL_FIGURES.filter((f) => f.slow !== true);
    expect(fast.map((f) => f.name)).toEqual(expect.arrayContaining(['demo', 'check', 'invariants', 'mbt-pass', 'mbt-adapter', 'live-naive', 'bench-handwritten']));
    const stale = await differences(fast);
    expect(stale.map((d) => ({ figure: `${d.figure.file}: ${d.figure.name}`, found: d.found, expected: d.expected }))).toEqual([]);
  }, 60_000);

  it('the check fails on a changed figure: a block rewritten with another body no longer matches', () => {
    const readme = read('README.md');
    const edited = replaceFigures(readme, new Map([['check', '```\nedited by hand\n```']]));
    expect(figureBlocks(edited).find((b) => b.name === 'check')?.body).toBe('```\nedited by hand\n```');
    expect(figureBlocks(readme).find((b) => b.name === 'check')?.body).toContain('distinct states  21 (symmetry on, partial-order reduction on)');
    // An inline figure stays inline.
    const inline = replaceFigures('a <!-- figure:version -->0.0.1<!-- /figure --> b', new Map([['version', '0.1.0']]));
    expect(inline).toBe('a <!-- figure:version -->0.1.0<!-- /figure --> b');
  });
});
