/**
 * The shapes every action's wording shares (trace/wording.ts and the files beside it): a
 * step's two forms, what they are made from, and the few words every kind uses.
 */
import type { Model, Trace } from '../spec/index.ts';
import { pageIds } from './long-lists.ts';
import type { StepContext } from './facts.ts';

/** One step in the two forms people read it in. */
export interface Phrasing {
  /** One sentence, as the text and HTML printers show it. */
  readonly sentence: string;
  /** The sequence diagram's messages (`P->>Pool: ...`), before Mermaid's escaping. */
  readonly messages: readonly string[];
}

/** What the wording of step `k` is made from: the step's context, and the words every kind uses. */
export interface Told extends StepContext {
  /** The model. */
  readonly m: Model;
  /** The trace. */
  readonly trace: Trace;
  /** The step, 1-based. */
  readonly k: number;
  /** The acting request's own pages (its table past the shared prefix pages). */
  readonly own: number[];
  /** `5. free(B)`, the label of a diagram's first message. */
  readonly label: string;
  /** The contents of `pages` before the step, one name per page (a long list in runs). */
  readonly contents: (pages: readonly number[]) => string;
}

/** `page 3`, `pages 0,1` (the diagram's form, without spaces); a long list in runs, `pages 0–179` (`long-lists.ts`). */
export const ids = (pages: readonly number[]): string => (pages.length === 0 ? 'no pages' : `${pages.length === 1 ? 'page' : 'pages'} ${pageIds(pages, ',')}`);

/** `one` for a single page, else `many`: `its contents stay` or `their contents stay`. */
export const perPages = (pages: readonly unknown[], one: string, many: string): string => (pages.length === 1 ? one : many);
