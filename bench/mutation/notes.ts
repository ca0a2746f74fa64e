/**
 * The notes on survivors (bench/mutation/notes.json): each says why a survivor is
 * equivalent, or which test kills it outside Stryker, keyed by where the mutant is and
 * what it is. The key names the line, not the column (columns move more than lines), so
 * it must name the original text too: on one line, `x >= 0 && y === 1` gives two
 * different `ConditionalExpression true` mutants, and a key without the original gave
 * both one note (conformance/step-tier.ts:101 and validate.ts:98 in the seed-40 run).
 */
import type { Survivor } from './stryker.ts';

/** The part of a survivor a note is keyed on. */
export type Keyed = Pick<Survivor, 'at' | 'mutator' | 'original' | 'replacement'>;

/** `file:line` of a survivor's `file:line:column`. */
const lineOf = (s: Keyed): string => s.at.split(':').slice(0, 2).join(':');

/** A survivor's key in notes.json: `file:line mutator original => replacement`, the original's whitespace runs made one space so that a key stays on one line. */
export const keyOf = (s: Keyed): string => `${lineOf(s)} ${s.mutator} ${s.original.replace(/\s+/g, ' ')} => ${s.replacement}`;

/** The key notes.json used before the original was in it, `file:line mutator replacement`: still read, so that the notes written with it apply. */
export const legacyKeyOf = (s: Keyed): string => `${lineOf(s)} ${s.mutator} ${s.replacement}`;

/** The note on `s`: under its key, else under its legacy key; undefined when there is none. */
export function noteOf(notes: Readonly<Record<string, unknown>>, s: Keyed): string | undefined {
  const note = notes[keyOf(s)] ?? notes[legacyKeyOf(s)];
  return typeof note === 'string' ? note : undefined;
}
