/**
 * Reads the doc comments of one spec file with the TypeScript compiler API. The extractor
 * takes the file's text, not its path, so that a test can hand it an edited copy and see
 * the document change.
 */
import ts from 'typescript';

/** One block tag, such as `@guard The request is new.` (`name` is `guard`). */
export interface DocTag {
  /** The tag's name, without the `@`. */
  readonly name: string;
  /** Its text, with `{@link X}` rendered as `` `X` ``. */
  readonly text: string;
}

/** One doc comment: its main text and its block tags, in source order. */
export interface DocComment {
  /** The text before the first tag (may be empty). */
  readonly text: string;
  /** The block tags. */
  readonly tags: readonly DocTag[];
}

/** The doc comments of one file. */
export interface FileDocs {
  /** The file's path relative to the repository, e.g. `spec/transitions.ts`. */
  readonly file: string;
  /** The comment that opens the file, if it is a doc comment. */
  readonly module: DocComment | undefined;
  /** Top-level declarations by name; interface members as `Interface.member`. */
  readonly declarations: ReadonlyMap<string, DocComment>;
}

/** The text of a JSDoc comment body, links written as code spans. */
function render(comment: string | ts.NodeArray<ts.JSDocComment> | undefined): string {
  if (comment === undefined) return '';
  if (typeof comment === 'string') return comment.trim();
  const out = comment.map((part) => {
    if (ts.isJSDocLink(part) || ts.isJSDocLinkCode(part) || ts.isJSDocLinkPlain(part)) {
      const label = part.text.trim();
      return `\`${label !== '' ? label : part.name === undefined ? '' : part.name.getText()}\``;
    }
    return part.text;
  });
  return out.join('').trim();
}

/** One JSDoc node as a {@link DocComment}. */
function toDoc(doc: ts.JSDoc): DocComment {
  return {
    text: render(doc.comment),
    tags: (doc.tags ?? []).map((t) => ({ name: t.tagName.text, text: render(t.comment) })),
  };
}

/** The doc comment attached to a node: the last JSDoc before it, as TypeScript decides. */
function docOf(node: ts.Node): { doc: DocComment; pos: number } | undefined {
  const jsDocs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const last = jsDocs.at(-1);
  return last === undefined ? undefined : { doc: toDoc(last), pos: last.pos };
}

/**
 * The file's opening doc comment. TypeScript attaches it to the first statement only when
 * no other doc comment follows, so it is parsed on its own, in front of a dummy statement.
 */
function moduleDoc(text: string): { doc: DocComment; pos: number } | undefined {
  const first = ts.getLeadingCommentRanges(text, 0)?.[0];
  if (first === undefined || !text.startsWith('/**', first.pos)) return undefined;
  const alone = ts.createSourceFile('module-doc.ts', `${text.slice(first.pos, first.end)}\nconst _ = 0;\n`, ts.ScriptTarget.ES2022, true);
  const statement = alone.statements[0];
  const found = statement === undefined ? undefined : docOf(statement);
  return found === undefined ? undefined : { doc: found.doc, pos: first.pos };
}

/** The names a top-level statement declares. */
function namesOf(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  }
  if (
    (ts.isFunctionDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isClassDeclaration(statement)) &&
    statement.name !== undefined
  ) {
    return [statement.name.text];
  }
  return [];
}

/** Extracts the doc comments of a file from its text. */
export function extractDocs(file: string, text: string): FileDocs {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const module = moduleDoc(text);
  const declarations = new Map<string, DocComment>();
  for (const statement of source.statements) {
    const found = docOf(statement);
    // The opening comment sits on the first statement when nothing else documents it: it is the file's, not the declaration's.
    if (found === undefined || found.pos === module?.pos) continue;
    for (const name of namesOf(statement)) declarations.set(name, found.doc);
    if (ts.isInterfaceDeclaration(statement)) {
      for (const member of statement.members) {
        const memberDoc = docOf(member);
        if (memberDoc !== undefined && member.name !== undefined && ts.isIdentifier(member.name)) {
          declarations.set(`${statement.name.text}.${member.name.text}`, memberDoc.doc);
        }
      }
    }
  }
  return { file, module: module?.doc, declarations };
}

/** The doc comment of a declaration; throws, naming the file, when it is missing, because a document with a hole in it is worse than none. */
export function requireDoc(docs: FileDocs, name: string): DocComment {
  const doc = docs.declarations.get(name);
  if (doc === undefined || doc.text === '') throw new Error(`${docs.file}: \`${name}\` has no doc comment`);
  return doc;
}

/** The tags of that name, in source order. */
export function tagsNamed(doc: DocComment, name: string): readonly DocTag[] {
  return doc.tags.filter((t) => t.name === name);
}
