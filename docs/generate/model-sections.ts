/**
 * The sections that describe the model itself: its parameters, its state variables and a
 * request's lifecycle. Everything here is the spec's own prose, rearranged; the only
 * computed parts are the lifecycle diagram and the "holds its pages" column.
 */
import { isLive, LIMITS, Ph, PHASE_DOCS, PHASES } from '../../spec/index.ts';
import { requireDoc, type DocComment, type FileDocs } from './jsdoc.ts';
import { lifecycleDiagram, whenSuffix, type Lifecycle } from './lifecycle.ts';
import { cell, code, fence, prose, proseBlocks, table, type Section } from './markdown.ts';
import type { SpecDocs } from './sources.ts';
import { DOCS_COMMAND } from './commands.ts';

/** A module's doc comment as prose; throws when the file has none. */
export function moduleProse(file: FileDocs): string {
  if (file.module === undefined) throw new Error(`${file.file} has no opening doc comment`);
  return prose(file.module.text);
}

/** Rows `| name | doc |` for the members of an interface, in the order given. */
function memberRows(file: FileDocs, type: string, members: readonly string[]): string[][] {
  return members.map((name) => [code(name), cell(prose(requireDoc(file, `${type}.${name}`).text))]);
}

/** "The model": the parameters of a configuration and the two named configurations. */
export function modelSection(docs: SpecDocs): Section {
  const config = docs.file('spec/config.ts');
  const limits = requireDoc(config, 'LIMITS');
  return {
    heading: 'The model',
    body: [
      moduleProse(config),
      '### Parameters',
      table(['Parameter', 'Meaning'], memberRows(config, 'Config', ['pages', 'prefillLimit', 'requests', 'variant', 'faults', 'pageSize', 'lengthRule', 'prefixPages'])),
      'Each request:',
      table(['Field', 'Meaning'], memberRows(config, 'RequestSpec', ['name', 'length', 'prefix'])),
      `${prose(limits.text)} At most ${LIMITS.maxPages} pages and ${LIMITS.maxRequests} requests.`,
      '### Named configurations',
      ['incidentConfig', 'matrixConfig'].map((name) => `- ${code(name)}: ${prose(requireDoc(config, name).text)}`).join('\n'),
    ].join('\n\n'),
  };
}

/** "Token slots": what a page's slots hold and what decode reads of them, from `slots.ts`'s opening comment. */
export function slotsSection(docs: SpecDocs): Section {
  return { heading: 'Token slots', body: moduleProse(docs.file('spec/slots.ts')) };
}

/** One state variable parsed from the list in `state.ts`'s opening comment. */
interface Variable {
  readonly scope: string;
  readonly name: string;
  readonly qualifier: string | undefined;
  /** The accessor that reads it: `nameOf`, or the one the item names in brackets. */
  readonly reader: string;
  readonly meaning: string;
}

/**
 * Takes `state.ts`'s opening comment apart: its prose, and its "Per page:" / "Per
 * request:" lists of `- name (qualifier) [reader]: meaning` items (qualifier and reader optional). Throws when no list is found,
 * because then the comment's shape changed and the table would silently be empty.
 */
function stateVariables(doc: DocComment, file: string): { intro: string[]; variables: Variable[] } {
  const intro: string[] = [];
  const variables: Variable[] = [];
  let scope: string | undefined;
  for (const block of proseBlocks(doc.text)) {
    if (block.kind === 'paragraph') {
      const per = /^Per (\w+)\b.*:$/.exec(block.text);
      scope = per?.[1];
      if (scope === undefined) intro.push(block.text);
      continue;
    }
    if (scope === undefined) throw new Error(`${file}: a list in the opening comment is not under a "Per page:" or "Per request:" line`);
    for (const item of block.items) {
      // `- name (qualifier) [reader]: meaning`: the reader is `nameOf` unless named.
      const parsed = /^(\w+)(?: \(([^)]*)\))?(?: \[(\w+)\])?: (.*)$/.exec(item);
      if (parsed === null) throw new Error(`${file}: cannot read the state variable "${item}" (expected "- name: meaning")`);
      const name = parsed[1] ?? '';
      variables.push({ scope, name, qualifier: parsed[2], reader: parsed[3] ?? `${name}Of`, meaning: (parsed[4] ?? '').replace(/[;.]$/, '') });
    }
  }
  if (variables.length === 0) throw new Error(`${file}: the opening comment lists no state variables`);
  return { intro, variables };
}

/** "State": the variables, their encoding and the request flags. */
export function stateSection(docs: SpecDocs): Section {
  const state = docs.file('spec/state.ts');
  const model = docs.file('spec/model.ts');
  if (state.module === undefined) throw new Error(`${state.file} has no opening doc comment`);
  const { intro, variables } = stateVariables(state.module, state.file);
  // The accessors and flags live in the file of their scope (state-page.ts, ...): each is read where it is declared.
  const declared = (name: string): string => prose(docs.declared(name).text);
  const rows = variables.map((v) => {
    const accessor = v.reader;
    return [
      code(v.name) + (v.qualifier === undefined ? '' : ` (${v.qualifier})`),
      v.scope,
      cell(`${v.meaning.charAt(0).toUpperCase()}${v.meaning.slice(1)}.`),
      `${code(accessor)}: ${cell(declared(accessor))}`,
    ];
  });
  const flags = ['HIT', 'INSERTED', 'READ_UNHELD'].map((name) => [code(name), cell(declared(name))]);
  return {
    heading: 'State',
    body: [
      intro.join('\n\n'),
      table(['Variable', 'Per', 'Meaning', 'Read with'], rows),
      '### Encoding',
      moduleProse(model),
      '### Request flags',
      table(['Flag', 'Meaning'], flags),
    ].join('\n\n'),
  };
}

/** "Request lifecycle": the phases in prose, and the diagram derived by exploration. */
export function lifecycleSection(docs: SpecDocs, lifecycle: Lifecycle): Section {
  const rows = PHASES.map((p) => [code(p), cell(PHASE_DOCS[p]), isLive(Ph[p]) ? 'yes' : 'no']);
  const { configurations, states } = lifecycle.explored;
  const stays = lifecycle.transitions.filter((t) => t.from === t.to).map((t) => `${code(t.kind)} in ${code(t.from)}${whenSuffix(t)}`);
  return {
    heading: 'Request lifecycle',
    body: [
      prose(docs.declared('PHASES').text),
      table(['Phase', 'Meaning', 'Holds its pages'], rows),
      `*Holds its pages* is ${code('isLive')}: ${prose(docs.declared('isLive').text)}`,
      '### Lifecycle diagram',
      [
        "Every arrow is a change of the acting request's phase that the spec allows, found by exploring every reachable state",
        `of ${code('incidentConfig')} and ${code('matrixConfig')} (and the first with two decode steps) under every variant and every subset of the fault catalogue but ${code('lock-underflow')}, which needs eviction`,
        `(${configurations} configurations, ${states} states in all); nothing in it is drawn by hand. The parenthesis on an arrow`,
        'says exactly in which of those configurations the arrow can be taken, among those in which some request reaches the phase it',
        'starts from; an arrow without one can be taken in all of them.',
      ].join(' '),
      fence('mermaid', lifecycleDiagram(lifecycle)),
      stays.length === 0 ? '' : `Not drawn, because they leave the phase as it is: ${stays.join('; ')}.`,
      `Reproduce: ${code(DOCS_COMMAND)} (the generator explores the configurations itself).`,
    ]
      .filter((part) => part !== '')
      .join('\n\n'),
  };
}
