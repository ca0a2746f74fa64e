/**
 * Prefixes that extend one another in the radix tree (config `radix`; issue 23, item 4).
 * Read from `sgl-project/sglang`, `python/sglang/srt/mem_cache/radix_cache.py`: a key is
 * the request's page-aligned tokens, and `match_prefix` (`_match_prefix_helper`) walks
 * from the root down as far as the key matches, so two requests whose prompts begin with
 * the same pages share those nodes whatever comes after; `insert` (`_insert_helper`) walks
 * the same way and, where a node's key and the new key diverge inside the node, splits it
 * there (`_split_node`) and hangs the rest as a new child. So a prompt `sys` followed by
 * `doc` shares the nodes of `sys` with a prompt that is `sys` alone, and has nodes of its
 * own past them.
 *
 * In the model. A prefix name may extend another with a slash: `sys/doc` extends `sys`,
 * and is longer (config `prefixPages`). Its first `k(sys)` pages are `sys`'s pages: the
 * same labels (`labels.ts`'s `prefixLabel` answers the parent's label there), so the same
 * nodes, the same lock_ref walk and the same owner tags; its pages past them are labels
 * of its own. A node is one page, so the split SGLang makes where the keys diverge is
 * always at a node's boundary already. A parent that no request names is still a group
 * (its nodes exist as the child's first pages). Without `radix` the prefix cache has one
 * entry per name, which has no shared part: a nested name is refused there.
 */
import type { ConfigSchema, InputIssue } from './decode.ts';

/** The name of the prefix that prefix `name` extends (`sys` for `sys/doc`), or `undefined` for a prefix that extends none. */
export function parentPrefixName(name: string): string | undefined {
  const i = name.lastIndexOf('/');
  return i < 0 ? undefined : name.slice(0, i);
}

/** Whether prefix `name` is `ancestor` or extends it, through any number of slashes. */
export function prefixExtends(name: string, ancestor: string): boolean {
  return name === ancestor || name.startsWith(`${ancestor}/`);
}

/** The group of prefix `name` in `names`, which gains it (its parents first, so a parent's group comes before its child's) when it is new. */
export function groupIndexOf(names: string[], name: string): number {
  const known = names.indexOf(name);
  if (known >= 0) return known;
  const parent = parentPrefixName(name);
  if (parent !== undefined) groupIndexOf(names, parent);
  return names.push(name) - 1;
}

/**
 * The prefix groups `names` laid out as labels: each group's length in pages (`lengths`,
 * 1 when not given), the group it extends (-1: none), how many of its first pages are
 * that parent's, and where its own labels begin. A nested prefix's first pages are its
 * parent's labels, so it has labels only for the pages past them (`ownLabels` in all).
 */
export function prefixShapeOf(names: readonly string[], lengths: Readonly<Record<string, number>>) {
  const prefixPages = Uint32Array.from(names, (name) => lengths[name] ?? 1);
  const prefixParent = Int32Array.from(names, (name) => {
    const up = parentPrefixName(name);
    return up === undefined ? -1 : names.indexOf(up);
  });
  const prefixFrom = Uint32Array.from(prefixParent, (p) => (p < 0 ? 0 : prefixPages[p]!));
  const own = prefixPages.map((k, g) => k - prefixFrom[g]!);
  const prefixBase = new Uint32Array(names.length);
  for (let g = 1; g < names.length; g++) prefixBase[g] = prefixBase[g - 1]! + own[g - 1]!;
  return { prefixPages, prefixBase, prefixParent, prefixFrom, ownLabels: own.reduce((sum, k) => sum + k, 0) };
}

/** A configuration as the schema decoded it, before its defaults are filled in. */
type Input = typeof ConfigSchema.Type;

/**
 * The nested prefixes against the switches and lengths they need: a prefix that extends
 * another needs `radix` (the shared part is the tree's shared path), and must be longer
 * than the prefix it extends (its nodes past the parent's are its own).
 */
export function nestedPrefixIssues(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  const lengthOf = (name: string): number => input.prefixPages?.[name] ?? 1;
  const pagesOf = (k: number): string => (k === 1 ? '1 page' : `${k} pages`);
  // Every nested name once, with the nested names it extends (`a/b/c`, then `a/b`).
  const nested = new Set<string>();
  input.requests.forEach((q, i) => {
    const name = q.prefix;
    const parent = name === undefined ? undefined : parentPrefixName(name);
    if (name === undefined || parent === undefined || nested.has(name)) return;
    if (input.radix !== true) {
      issues.push({ path: `requests[${i}].prefix`, message: `prefix "${name}" extends prefix "${parent}": a prefix that extends another shares the other's nodes in the radix tree, and needs radix (--radix --eviction)` });
    }
    for (let c: string | undefined = name; c !== undefined && parentPrefixName(c) !== undefined; c = parentPrefixName(c)) nested.add(c);
  });
  for (const child of nested) {
    const up = parentPrefixName(child)!;
    if (lengthOf(up) >= lengthOf(child)) {
      // Named after the flag that gave the lengths, or the requests when every length is the default.
      issues.push({ path: input.prefixPages === undefined ? 'requests' : 'prefixPages', message: `prefix "${child}" of ${pagesOf(lengthOf(child))} extends prefix "${up}" of ${pagesOf(lengthOf(up))}: a prefix must be longer than the prefix it extends (e.g. --prefix-pages ${child}=${lengthOf(up) + 1})` });
    }
  }
  return issues;
}
