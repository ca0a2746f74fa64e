/**
 * The repository's import graph between top-level folders, read from the sources as text
 * (static imports and re-exports, dynamic `import()`, and worker entry points given as
 * `new URL('…', import.meta.url)`), so that the layering is a tested fact, not a habit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/** One import of one file: where it is, and the folder it reaches. */
export interface FolderEdge {
  /** The importing file, relative to the root. */
  readonly file: string;
  /** The imported file, relative to the root. */
  readonly target: string;
  /** The importing file's top-level folder. */
  readonly from: string;
  /** The imported file's top-level folder. */
  readonly to: string;
}

/** The folders that hold the product's sources (tests and benchmarks import everything, by design). */
export const SOURCE_FOLDERS = ['spec', 'binding', 'checker', 'trace', 'impl', 'conformance', 'scale', 'simulation', 'incident', 'matrix', 'proofs', 'spin', 'cli', 'docs', 'figures'] as const;

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|new URL\(\s*)(['"`])(\.{1,2}\/[^'"`$]+)(?:\1|\$)/g;

/** Every `.ts` file under `dir`, relative to `root`. */
function sources(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(root, path));
    else if (e.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The top-level folder of a path relative to the root (`.` for a file at the root). */
function folderOf(path: string): string {
  const i = path.indexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

/** Every relative import of the product's sources that leaves its own folder. */
export function folderEdges(root: string): FolderEdge[] {
  const edges: FolderEdge[] = [];
  for (const folder of SOURCE_FOLDERS) {
    for (const file of sources(root, folder)) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const target = relative(root, normalize(join(root, dirname(file), m[2]!)));
        const to = folderOf(target);
        if (to !== folder) edges.push({ file, target, from: folder, to });
      }
    }
  }
  return edges;
}

/** The cycles between folders: each strongly connected component of more than one folder, its folders sorted. */
export function folderCycles(edges: readonly FolderEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  // Tarjan's algorithm over the folder graph (a few dozen nodes).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}
