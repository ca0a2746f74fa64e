/**
 * The spec's source text, the document's input. The generator never imports doc comments
 * at run time (they do not exist at run time); it reads `spec/*.ts` as text, or takes a
 * copy a test has edited.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-info.ts';
import { extractDocs, requireDoc, type DocComment, type FileDocs } from './jsdoc.ts';

/** The repository's root directory, found the same way from the sources and from `dist/`. */
export const REPO_ROOT = packageRoot();

/** Spec files by path relative to the repository (`spec/state.ts`), as text. */
export type SpecSources = Readonly<Record<string, string>>;

/** Reads every `spec/*.ts` under `root`, in name order. */
export function readSpecSources(root: string = REPO_ROOT): SpecSources {
  const dir = join(root, 'spec');
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
    out[`spec/${name}`] = readFileSync(join(dir, name), 'utf8');
  }
  return out;
}

/** The doc comments of every spec file, by path. */
export interface SpecDocs {
  /** The files, in name order. */
  readonly files: readonly FileDocs[];
  /** One file's docs; throws when the spec has no such file, since the generator depends on it. */
  readonly file: (path: string) => FileDocs;
  /** The docs of the one file that declares `name` with a doc comment (a spec split into files keeps each declaration in one); throws when none or several do. */
  readonly declaring: (name: string) => FileDocs;
  /** The doc comment of `name`, in the one file that declares it (see `declaring`). */
  readonly declared: (name: string) => DocComment;
}

/** Extracts the doc comments of every file in `sources`. */
export function specDocs(sources: SpecSources): SpecDocs {
  const files = Object.keys(sources)
    .sort()
    .map((path) => extractDocs(path, sources[path] ?? ''));
  const declaring = (name: string): FileDocs => {
    const found = files.filter((f) => (f.declarations.get(name)?.text ?? '') !== '');
    if (found.length !== 1) throw new Error(`the document needs one documented declaration of \`${name}\` in the spec sources, found ${found.length === 0 ? 'none' : found.map((f) => f.file).join(', ')}`);
    return found[0]!;
  };
  return {
    files,
    file: (path) => {
      const found = files.find((f) => f.file === path);
      if (found === undefined) throw new Error(`the document needs ${path}, which the spec sources do not contain`);
      return found;
    },
    declaring,
    declared: (name) => requireDoc(declaring(name), name),
  };
}
