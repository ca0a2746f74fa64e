/**
 * "Actions": for each action, in the spec's fixed order, its prose, its guard and effect
 * (the `@guard` and `@effect` tags), what differs per variant (`@variant <name> <text>`),
 * and the phase changes the exploration found for it.
 */
import { ACTION_KINDS, VARIANTS, type ActionKind, type Variant } from '../../spec/index.ts';
import { requireDoc, tagsNamed, type DocComment } from './jsdoc.ts';
import { whenSuffix, type Lifecycle } from './lifecycle.ts';
import { code, prose, type Section } from './markdown.ts';
import { moduleProse } from './model-sections.ts';
import type { SpecDocs } from './sources.ts';

/** What one action's doc comment says, checked for completeness. */
export interface ActionDoc {
  /** The action. */
  readonly kind: ActionKind;
  /** The prose before the tags. */
  readonly text: string;
  /** `@guard`. */
  readonly guard: string;
  /** `@effect`. */
  readonly effect: string;
  /** `@variant` notes, in the order of {@link VARIANTS}. */
  readonly variants: readonly { readonly variant: Variant; readonly text: string }[];
}

/** Reads one action's doc comment; throws, naming the file and the action, on a missing or malformed tag. */
export function actionDoc(file: string, kind: ActionKind, doc: DocComment): ActionDoc {
  const one = (tag: string): string => {
    const found = tagsNamed(doc, tag);
    if (found.length !== 1 || found[0]?.text === '') throw new Error(`${file}: action \`${kind}\` needs exactly one non-empty @${tag} tag, found ${found.length}`);
    return found[0]?.text ?? '';
  };
  const variants = tagsNamed(doc, 'variant').map((t) => {
    const name = /^\S*/.exec(t.text)?.[0] ?? '';
    const variant = VARIANTS.find((v) => v === name);
    if (variant === undefined) throw new Error(`${file}: action \`${kind}\` has @variant ${JSON.stringify(name)}; expected one of ${VARIANTS.join(', ')}`);
    const text = t.text.slice(name.length).trim();
    if (text === '') throw new Error(`${file}: action \`${kind}\` has an empty @variant ${variant} tag`);
    return { variant, text };
  });
  variants.sort((a, b) => VARIANTS.indexOf(a.variant) - VARIANTS.indexOf(b.variant));
  return { kind, text: doc.text, guard: one('guard'), effect: one('effect'), variants };
}

/** The body of one action's subsection. */
function actionBody(a: ActionDoc, lifecycle: Lifecycle): string {
  const parts = [prose(a.text), `**Enabled when.** ${prose(a.guard)}`, `**Effect.** ${prose(a.effect)}`];
  for (const v of a.variants) parts.push(`**Under ${code(v.variant)}.** ${prose(v.text)}`);
  const others = VARIANTS.filter((v) => !a.variants.some((x) => x.variant === v));
  if (a.variants.length > 0) parts.push(`Under ${others.map(code).join(' and ')}: as described above.`);
  const changes = lifecycle.transitions
    .filter((t) => t.kind === a.kind)
    .map((t) => `- ${code(t.from)} → ${code(t.to)}${whenSuffix(t)}`);
  parts.push(`Phase changes of the acting request, as explored (see the lifecycle diagram):\n\n${changes.join('\n')}`);
  return parts.join('\n\n');
}

/** The whole "Actions" section. */
export function actionsSection(docs: SpecDocs, lifecycle: Lifecycle): { section: Section; actions: readonly ActionDoc[] } {
  const actionsFile = docs.file('spec/actions.ts');
  const transitions = docs.file('spec/transitions.ts');
  // Each action's doc where it is declared: transitions.ts, or a file of its own group (retraction.ts).
  const actions = ACTION_KINDS.map((kind) => {
    const file = docs.declaring(kind);
    return actionDoc(file.file, kind, requireDoc(file, kind));
  });
  const body = [
    moduleProse(actionsFile),
    `${code('ACTION_KINDS')}: ${prose(requireDoc(actionsFile, 'ACTION_KINDS').text)} The order: ${ACTION_KINDS.map(code).join(', ')}.`,
    moduleProse(transitions),
    ...actions.flatMap((a) => [`### ${code(`${a.kind}(r)`)}`, actionBody(a, lifecycle)]),
  ].join('\n\n');
  return { section: { heading: 'Actions', body }, actions };
}
