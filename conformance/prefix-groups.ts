/**
 * The prefix groups of a log whose prefixes are longer than a page (the config event's
 * `prefixPages`, spec/config.ts's) or, under `radix`, nested (`sys/doc` extends `sys` and
 * shares its nodes, spec/nesting.ts). The pool's per-group lengths and parents are fixed
 * when it is made, and a log names its prefixes as requests arrive; so the declared
 * prefixes are registered in the window first, each after the prefixes it extends, and
 * every other prefix is one page that extends none. Under `radix` a nested name must be
 * declared (the tree needs its parent's length); without it a name is only a name.
 */
import type { LogModel } from './events.ts';
import type { SourceLine } from './lines.ts';
import { LogInputError } from './validate-result.ts';
import type { RequestWindow } from './window.ts';

/** The pool's options for the prefix groups: per group its length in pages and the group it extends (-1: none); none when every prefix is one page. */
export interface PrefixShape {
  /** Per group, its length in pages. */
  readonly prefixLengths?: number[];
  /** Per group, the group it extends, or -1. */
  readonly prefixParents?: number[];
}

/** The names a nested prefix extends, outermost first (`a`, `a/b` for `a/b/c`); none without `radix`, where `/` is part of a name. */
export function ancestorsOf(name: string, radix: boolean): string[] {
  if (!radix) return [];
  const parts = name.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Registers the declared prefixes in the window, parents first, and returns the pool's per-group lengths and parents (`groups` of them); bad input names the field. */
export function prefixShape(model: LogModel, window: RequestWindow, groups: number, where: SourceLine): PrefixShape {
  const declared = model.prefixPages ?? {};
  const names = Object.keys(declared);
  if (names.length === 0) return {};
  const radix = model.radix === true;
  const lengths = new Array<number>(groups).fill(1);
  const parents = new Array<number>(groups).fill(-1);
  const depth = (name: string): number => ancestorsOf(name, radix).length;
  for (const name of [...names].sort((a, b) => depth(a) - depth(b))) {
    const chain = [...ancestorsOf(name, radix), name];
    const ids = chain.map((n) => window.groupOf(n, groups));
    if (ids.some((g) => g < 0)) throw new LogInputError(where, 'prefixPages', `more than ${groups} distinct prefixes`);
    ids.forEach((g, i) => {
      lengths[g] = declared[chain[i] ?? ''] ?? 1;
      parents[g] = i === 0 ? -1 : (ids[i - 1] ?? -1);
    });
    const g = ids.at(-1) ?? 0;
    const up = parents[g] ?? -1;
    if (up >= 0 && (lengths[up] ?? 1) >= (lengths[g] ?? 1)) {
      throw new LogInputError(where, `prefixPages.${name}`, `prefix "${name}" extends "${chain.at(-2)}" of ${lengths[up]} pages: it must be longer (${lengths[g]} pages given)`);
    }
  }
  return { prefixLengths: lengths, prefixParents: parents };
}
