import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { folderCycles, folderEdges, type FolderEdge } from './import-graph.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const edges = folderEdges(ROOT);
const line = (e: FolderEdge): string => `${e.file} imports ${e.target}`;

describe('the layering between folders (issue 22)', () => {
  it('reads imports of every kind: a static import, a re-export and a worker entry point are all seen', () => {
    // Pinned edges that exist for each form, so a reader that misses a form fails here, not silently.
    const seen = new Set(edges.map((e) => `${e.from}->${e.to}`));
    expect(seen).toContain('binding->spec');
    expect(seen).toContain('binding->checker');
    expect(edges.some((e) => e.file === 'cli/commands/check.ts' && e.target === 'binding/checked-model.')).toBe(true);
  });

  it('spec/ (the protocol) imports nothing else in the repository', () => {
    expect(edges.filter((e) => e.from === 'spec').map(line)).toEqual([]);
  });

  it('checker/ (the engine) imports nothing else in the repository', () => {
    expect(edges.filter((e) => e.from === 'checker').map(line)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const e = (from: string, to: string): FolderEdge => ({ file: `${from}/x.ts`, target: `${to}/y.ts`, from, to });
    expect(folderCycles([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd')])).toEqual([['a', 'b', 'c']]);
    expect(folderCycles([e('a', 'b'), e('b', 'c')])).toEqual([]);
  });
});
