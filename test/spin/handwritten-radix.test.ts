/**
 * The radix tree's state counts derived independently (issue 23, item 4, "the SPIN
 * cross-check extended to the new actions"): SPIN on a Promela model written by hand as a
 * SPIN user would (spin/handwritten/radix.pml: a process per request, its depth in the tree
 * and what its decode read as locals, the page tables one global array, the tree node
 * arrays of pages and lock_refs with no floor, match at allocation, insert at handoff and
 * finish, eviction of unlocked leaves), not generated from the spec, finds exactly
 * pagecheck's distinct states with `--radix --eviction` (no symmetry, no reduction, whole
 * space, assertions off) on the small configurations of test/spec/radix.test.ts (37, 54 and
 * 77 states there, with symmetry), with fault `lock-underflow` under `buggy`, `owner-check`
 * and `hardened` (with and without its `unlock-once`), and with two prefixes whose leaves
 * are evictable at once (where the eviction order decides). Verdicts and shortest
 * counterexamples agree too: the node evicted while a request reads it (7 steps, stopped by
 * `hardened` only), and the foreign read that follows (12 steps, stopped by the owner check).
 * Prompts longer than P's limit are refused (a stub) and released, a prefix hit unlocked.
 * Nested prefixes (spec/nesting.ts): the model draws its tree from the keys (a node per
 * page of a key, a key that extends another sharing the other's nodes, `treeOf` below),
 * and agrees on test/spec/radix-nested.test.ts's configurations (one prefix under another,
 * two siblings, a chain of three) under owner-check and hardened, and with lock-underflow
 * under buggy and hardened, verdicts and shortest counterexamples (7 and 12 steps) included.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, configFrom, Integrity, Isolation, type Config, type Fault, type Mechanism, type Variant } from '../../spec/index.ts';
import { runPan, spinAvailable } from '../../spin/run.ts';
import { bothCounts, bothVerdicts, PanCache } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/radix.pml', import.meta.url));

/** A radix configuration: requests as `LEN[:PREFIX]` (in pages; one longer than P's limit is refused), eviction and the tree on; a prefix is one page unless `prefixPages` says more (at most 2). */
interface Case {
  readonly name: string;
  readonly variant: Variant;
  readonly fault: boolean;
  readonly pages: number;
  readonly limit: number;
  readonly requests: readonly string[];
  readonly prefixPages: Readonly<Record<string, number>>;
  readonly states: number;
  /** Under `hardened`, its mechanisms switched off (the removal test). */
  readonly without?: readonly Mechanism[];
}

const CASES: readonly Case[] = [
  { name: 'buggy, 2 pages, A 2:sys, B 2:sys, C 1', variant: 'buggy', fault: false, pages: 2, limit: 3, requests: ['2:sys', '2:sys', '1'], prefixPages: {}, states: 68 },
  { name: 'buggy, 3 pages, sys of 2 pages, A 3:sys, B 3:sys, C 2', variant: 'buggy', fault: false, pages: 3, limit: 3, requests: ['3:sys', '3:sys', '2'], prefixPages: { sys: 2 }, states: 102 },
  { name: 'owner-check, 4 pages, sys of 2 pages, A 3:sys, B 3:sys, C 2:doc', variant: 'owner-check', fault: false, pages: 4, limit: 3, requests: ['3:sys', '3:sys', '2:doc'], prefixPages: { sys: 2 }, states: 148 },
  { name: 'buggy, 3 pages, A 2:sys, B 2:sys, C 2', variant: 'buggy', fault: false, pages: 3, limit: 3, requests: ['2:sys', '2:sys', '2'], prefixPages: {}, states: 138 },
  { name: 'buggy, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow', variant: 'buggy', fault: true, pages: 3, limit: 3, requests: ['2:sys', '2:sys', '2'], prefixPages: {}, states: 442 },
  { name: 'owner-check, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow', variant: 'owner-check', fault: true, pages: 3, limit: 3, requests: ['2:sys', '2:sys', '2'], prefixPages: {}, states: 454 },
  // Two leaves of two prefixes evictable at once: the order (the lowest page) decides; the highest page first would give 250 and 288.
  { name: 'buggy, 4 pages, A 2:sys, B 2:doc, C 3', variant: 'buggy', fault: false, pages: 4, limit: 3, requests: ['2:sys', '2:doc', '3'], prefixPages: {}, states: 246 },
  { name: 'buggy, 5 pages, doc of 2 pages, A 2:sys, B 3:doc, C 4', variant: 'buggy', fault: false, pages: 5, limit: 4, requests: ['2:sys', '3:doc', '4'], prefixPages: { doc: 2 }, states: 280 },
  // Over-long prompts, refused by P: C's (no prefix), and B's after a hit on A's node, whose double unlock cancels A's lock.
  { name: 'buggy, 5 pages, doc of 2 pages, A 2:sys, B 3:doc, C 4 (refused)', variant: 'buggy', fault: false, pages: 5, limit: 3, requests: ['2:sys', '3:doc', '4'], prefixPages: { doc: 2 }, states: 250 },
  { name: 'buggy, 4 pages, A 2:sys, B 4:sys (refused), C 2, lock-underflow', variant: 'buggy', fault: true, pages: 4, limit: 3, requests: ['2:sys', '4:sys', '2'], prefixPages: {}, states: 173 },
  // hardened: the owner check and unlock-once (-DUNLOCK_ONCE); its other mechanisms change nothing here. Without unlock-once, owner-check's 454 again.
  { name: 'hardened, 3 pages, sys of 2 pages, A 3:sys, B 3:sys, C 2', variant: 'hardened', fault: false, pages: 3, limit: 3, requests: ['3:sys', '3:sys', '2'], prefixPages: { sys: 2 }, states: 102 },
  { name: 'hardened, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow', variant: 'hardened', fault: true, pages: 3, limit: 3, requests: ['2:sys', '2:sys', '2'], prefixPages: {}, states: 138 },
  { name: 'hardened without unlock-once, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow', variant: 'hardened', fault: true, pages: 3, limit: 3, requests: ['2:sys', '2:sys', '2'], prefixPages: {}, states: 454, without: ['unlock-once'] },
  // Nested prefixes (spec/nesting.ts; test/spec/radix-nested.test.ts's configurations, whose counts there are these: no two requests are interchangeable).
  // B's key (sys/doc) is sys's page, then doc's: it matches sys's node alone, and its insert hangs doc's node under it.
  { name: 'owner-check, 4 pages, sys/doc of 2 pages, A 2:sys, B 3:sys/doc, C 2', variant: 'owner-check', fault: false, pages: 4, limit: 3, requests: ['2:sys', '3:sys/doc', '2'], prefixPages: { 'sys/doc': 2 }, states: 329 },
  { name: 'hardened, 4 pages, sys/doc of 2 pages, A 2:sys, B 3:sys/doc, C 2', variant: 'hardened', fault: false, pages: 4, limit: 3, requests: ['2:sys', '3:sys/doc', '2'], prefixPages: { 'sys/doc': 2 }, states: 329 },
  { name: 'buggy, 4 pages, sys/doc of 2 pages, A 2:sys, B 3:sys/doc, C 2, lock-underflow', variant: 'buggy', fault: true, pages: 4, limit: 3, requests: ['2:sys', '3:sys/doc', '2'], prefixPages: { 'sys/doc': 2 }, states: 410 },
  { name: 'hardened, 4 pages, sys/doc of 2 pages, A 2:sys, B 3:sys/doc, C 2, lock-underflow', variant: 'hardened', fault: true, pages: 4, limit: 3, requests: ['2:sys', '3:sys/doc', '2'], prefixPages: { 'sys/doc': 2 }, states: 329 },
  // Siblings: sys's node (no request's key is sys alone) under both, doc's and faq's nodes beside each other.
  { name: 'owner-check, 4 pages, siblings of 2 pages, A 3:sys/doc, B 3:sys/faq, C 2', variant: 'owner-check', fault: false, pages: 4, limit: 3, requests: ['3:sys/doc', '3:sys/faq', '2'], prefixPages: { 'sys/doc': 2, 'sys/faq': 2 }, states: 98 },
  // A chain of three keys of 1, 2 and 3 pages: one path of three nodes.
  { name: 'owner-check, 5 pages, a chain of 1, 2, 3 pages, A 2:sys, B 3:sys/doc, C 4:sys/doc/faq', variant: 'owner-check', fault: false, pages: 5, limit: 4, requests: ['2:sys', '3:sys/doc', '4:sys/doc/faq'], prefixPages: { 'sys/doc': 2, 'sys/doc/faq': 3 }, states: 635 },
];

const configOf = (c: Case): Config =>
  configFrom({
    pages: c.pages,
    prefillLimit: c.limit,
    variant: c.variant,
    faults: c.fault ? ['lock-underflow'] : ([] as Fault[]),
    requests: c.requests.map((q) => {
      const [length, prefix] = q.split(':');
      return prefix === undefined ? { length: Number(length) } : { length: Number(length), prefix };
    }),
    eviction: true,
    radix: true,
    ...(Object.keys(c.prefixPages).length > 0 ? { prefixPages: { ...c.prefixPages } } : {}),
    ...(c.without === undefined ? {} : { without: [...c.without] }),
  });

/**
 * The tree a SPIN user draws from the configuration's keys: a key of prefix `name` is its
 * pages, and its page `j` is the page `j` of the shortest prefix it extends (itself
 * included) that is longer than `j` (`sys/doc`'s page 0 is `sys`'s). One node per such
 * page, numbered as first met, its parent the node of page `j - 1` on the same key.
 */
function treeOf(requests: readonly string[], prefixPages: Readonly<Record<string, number>>): { nodes: string[]; parent: number[]; paths: number[][] } {
  const nodes: string[] = [];
  const parent: number[] = [];
  const paths = requests.map((q) => {
    const name = q.split(':')[1];
    if (name === undefined) return [];
    const chain = name.split('/').map((_, k, parts) => parts.slice(0, k + 1).join('/'));
    const path: number[] = [];
    for (let j = 0; j < (prefixPages[name] ?? 1); j++) {
      const key = `${chain.find((a) => (prefixPages[a] ?? 1) > j)!}#${j}`;
      if (!nodes.includes(key)) {
        nodes.push(key);
        parent.push(j === 0 ? 255 : path[j - 1]!);
      }
      path.push(nodes.indexOf(key));
    }
    return path;
  });
  return { nodes, parent, paths };
}

/** The model's `-D` defines: P's limit, lengths, each request's key length and path, the tree's parents, the variant's owner check (and `hardened`'s unlock-once) and the fault. */
const definesOf = (c: Case): Record<string, number> => {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: c.requests.length, MAXLEN: Math.max(...c.requests.map((q) => Number(q.split(':')[0]))) };
  const tree = treeOf(c.requests, c.prefixPages);
  c.requests.forEach((q, r) => {
    defines[`L${r}`] = Number(q.split(':')[0]);
    defines[`KR${r}`] = tree.paths[r]!.length;
    for (let i = 0; i < 3; i++) defines[`R${r}P${i}`] = tree.paths[r]![i] ?? 0;
  });
  // The model's four node slots, each defined (a node the tree does not have is a root's child nothing walks to).
  defines.NODES = tree.nodes.length;
  for (let n = 0; n < 4; n++) {
    defines[`PAR${n}`] = tree.parent[n] ?? 255;
  }
  if (c.variant === 'owner-check' || c.variant === 'hardened') defines.OWNER_CHECK = 1;
  if (c.variant === 'hardened' && !(c.without ?? []).includes('unlock-once')) defines.UNLOCK_ONCE = 1;
  if (c.fault) defines.LOCK_UNDERFLOW = 1;
  return defines;
};

/** One build per case and defines: the verdicts and shortest counterexamples below ask 8 of the counted cases' builds again (30 builds, 21 distinct). */
const builds = new PanCache();

describe.skipIf(!spinAvailable())('SPIN on the hand-written radix-tree model agrees with pagecheck (--radix --eviction)', () => {
  afterAll(() => builds.dispose());

  for (const c of CASES) {
    it(`${c.name}: ${c.states} states`, () => {
      expect(bothCounts(MODEL, configOf(c), definesOf(c), builds)).toEqual({ spin: c.states, mine: c.states });
    }, 60_000);
  }

  it('and the model is not vacuous: without lock-underflow neither finds a violation', () => {
    const plain = caseNamed('buggy, 3 pages, A 2:sys, B 2:sys, C 2');
    expect(bothVerdicts(MODEL, configOf(plain), definesOf(plain), builds)).toEqual({ spin: 'holds', mine: 'holds' });
  }, 60_000);

  it('with lock-underflow both find the node evicted while a request still reads it, in 7 steps (pagecheck: ExclusiveHold; SPIN: the eviction\'s assertion), under buggy, owner-check and hardened without unlock-once; hardened holds', () => {
    const variants = ['buggy', 'owner-check', 'hardened', 'hardened without unlock-once'];
    const found = variants.map((v) => caseNamed(`${v}, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow`)).map((c) => [spinShortest(c, {}), mineShortest(c, undefined)]);
    const violation = [['violation', 7], ['violation', 7]];
    expect(found).toEqual([violation, violation, [['holds', null], ['holds', null]], violation]);
  }, 60_000);

  it('and the foreign read itself (SPIN with -DREAD_CHECK_ONLY, pagecheck on Isolation and Integrity): 12 steps in both under buggy, A reading C\'s data where its prefix was; none under owner-check', () => {
    const found = ['buggy', 'owner-check'].map((v) => caseNamed(`${v}, 3 pages, A 2:sys, B 2:sys, C 2, lock-underflow`)).map((c) => [spinShortest(c, { READ_CHECK_ONLY: 1 }), mineShortest(c, [Isolation, Integrity])]);
    expect(found).toEqual([
      [['violation', 12], ['violation', 12]],
      [['holds', null], ['holds', null]],
    ]);
  }, 60_000);

  it("nested: with lock-underflow both find sys's node evicted while B (sys/doc) has matched it, in 7 steps under buggy (A's double unlock takes B's lock), and B's read of C's data there in 12; hardened holds, and owner-check holds without the fault", () => {
    const child = (v: string, fault: string): Case => caseNamed(`${v}, 4 pages, sys/doc of 2 pages, A 2:sys, B 3:sys/doc, C 2${fault}`);
    const buggy = child('buggy', ', lock-underflow');
    const hardened = child('hardened', ', lock-underflow');
    const plain = child('owner-check', '');
    expect([
      [spinShortest(buggy, {}), mineShortest(buggy, undefined)],
      [spinShortest(buggy, { READ_CHECK_ONLY: 1 }), mineShortest(buggy, [Isolation, Integrity])],
      [spinShortest(hardened, {}), mineShortest(hardened, undefined)],
      [spinShortest(plain, {}), mineShortest(plain, [Isolation, Integrity])],
    ]).toEqual([
      [['violation', 7], ['violation', 7]],
      [['violation', 12], ['violation', 12]],
      [['holds', null], ['holds', null]],
      [['holds', null], ['holds', null]],
    ]);
  }, 60_000);
});

/** The case of that name. */
function caseNamed(name: string): Case {
  const c = CASES.find((k) => k.name === name);
  if (c === undefined) throw new Error(`no case named ${name}`);
  return c;
}

/** SPIN's verdict on case `c` with its assertions on (and `extra` defines), and the length of its shortest counterexample (breadth first). */
function spinShortest(c: Case, extra: Readonly<Record<string, number>>): [string, number | null] {
  const s = runPan(builds.build(MODEL, configOf(c), { ...definesOf(c), ...extra }), { hashBits: 20 });
  return [s.verdict, s.traceLength];
}

/** pagecheck's verdict on case `c` (its default invariants, or `invariants`), and the depth of its first (shortest) violation. */
function mineShortest(c: Case, invariants: readonly { readonly name: string }[] | undefined): [string, number | null] {
  const r = check(checkedModel(compile(configOf(c))), invariants === undefined ? {} : { invariants });
  return [r.verdict, r.violations[0]?.depth ?? null];
}
