/**
 * The sizes the guide asks for, measured from the sources: files of at most
 * {@link MAX_FILE_LINES} lines and functions of at most {@link MAX_FUNCTION_LINES}, read
 * with TypeScript's own parser so that a function is what the compiler calls one
 * (declarations, methods, accessors, constructors, function expressions and arrows).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** The longest a source file may be, in lines. */
export const MAX_FILE_LINES = 300;

/** The longest a function may be, in lines, from its first line to its last. */
export const MAX_FUNCTION_LINES = 60;

/** One thing that is too long: a file, or a function named `file:name`. */
export interface Oversize {
  /** `file` for a file; `file:name` for a function (an anonymous one is named by its line). */
  readonly id: string;
  /** Its length in lines. */
  readonly lines: number;
}

/** The folders whose sources the size rules cover: the product, not its tests. */
export const MEASURED_FOLDERS = ['spec', 'binding', 'checker', 'trace', 'impl', 'conformance', 'scale', 'simulation', 'incident', 'matrix', 'proofs', 'spin', 'cli', 'docs/generate', 'figures', 'bench'] as const;

/** Every `.ts` file under the measured folders, relative to `root`, sorted. */
export function measuredFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) out.push(path);
    }
  };
  for (const folder of MEASURED_FOLDERS) walk(folder);
  return [...out, 'index.ts'].sort();
}

/** A function's name for the list: its declared name, the variable or property it is assigned to, or `<line N>`. */
function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name !== undefined && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  return `<line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}>`;
}

/** The files and functions of `root`'s sources that are over the limits. */
export function oversizes(root: string): Oversize[] {
  const out: Oversize[] = [];
  for (const path of measuredFiles(root)) {
    const text = readFileSync(join(root, path), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) out.push({ id: path, lines });
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (last - first + 1 > MAX_FUNCTION_LINES) out.push({ id: `${path}:${nameOf(node, file)}`, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return out;
}
