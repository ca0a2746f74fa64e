/**
 * validate-log under `radix` (conformance/radix.ts): logs of spec runs of the radix tree,
 * written as docs/LOG-FORMAT.md says (the handoff followed by its `insert` with
 * `at: "handoff"`, the table as the tree left it and the duplicates it freed). Pinned: a
 * conforming run with a duplicate freed at B's handoff; fault `lock-underflow`'s leak under
 * `buggy` reported at the `evict` line (the spec's first broken invariant); an insert that
 * names a wrong page, or wrong duplicates, refused at its line; `hardened` conforming on a
 * run that evicts; a partial hit's allocation naming only the pages past the match; one
 * `evict` line for two leaves; the refusals of what the tree does not follow (no eviction, the `any` order); and
 * random runs of radix configurations never a deviation, a violation exactly where the run
 * breaks an invariant.
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, initial, parseAction, step, type Action, type Config, type State } from '../../spec/index.ts';
import { configArbitrary, RADIX_SHAPES, reshapePrefixes } from '../../impl/index.ts';
import { validate, VALIDATOR_FAULTS, type ValidationResult } from '../../conformance/index.ts';
import { pagecheck } from '../support/cli.ts';
import { radix } from '../spec/helpers.ts';
import { asSource, firstViolation, logOf, runOf } from './spec-log.ts';

/** The log of the run of `labels` on `config`, its states, and the line of each action's main event. */
function logOfLabels(config: Config, labels: readonly string[]): { lines: string[]; lineOf: number[]; violatedAt: number } {
  const m = compile(config);
  let s: State = initial(m);
  const states: State[] = [s];
  const actions: Action[] = [];
  for (const label of labels) {
    const a = parseAction(m, label);
    const next = a === undefined ? undefined : step(m, s, a);
    if (a === undefined || next === undefined) throw new Error(`${label} is not enabled`);
    actions.push(a);
    states.push(next);
    s = next;
  }
  return { ...logOf(m, config, actions, states), violatedAt: firstViolation(m, states) };
}

const check = (lines: readonly string[]): ValidationResult => validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });

/** radix.test.ts's lock-underflow configuration: 3 pages, A and B share `sys`, C of 2 pages. */
const LU = (variant: 'buggy' | 'hardened'): Config => radix(variant, ['lock-underflow'], 3, ['2:sys', '2:sys', '2']);
/** radix.test.ts's leak: B's release unlocks the `sys` node twice, C's allocation evicts it while A reads it. */
const LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'free(B)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'decode(A)'];
/** A and B both miss, A inserts first: B's handoff finds the node and frees its own page 2 (4 pages, A and B 2:sys). */
const DUPLICATE = ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)', 'handoff(B)', 'decode(A)', 'decode(B)', 'free(A)', 'free(B)'];

describe('validate-log under radix: logs of spec runs', () => {
  it('a duplicate at the handoff: B\'s insert names [0, 3] and frees [2]; conforms (15 events, one state, the spec\'s 10 actions)', () => {
    const { lines } = logOfLabels(radix('buggy', [], 4, ['2:sys', '2:sys']), DUPLICATE);
    expect(lines[10]).toBe('{"kind":"insert","at":"handoff","pages":[0,3],"freed":[2],"id":"B"}');
    const r = check(lines);
    expect([r.verdict, r.events, r.peakStates, r.spec?.actions.length]).toEqual(['conforms', 15, 1, 10]);
  });

  it('buggy, lock-underflow: the leak is ExclusiveHold at the evict line (15), the spec\'s first broken invariant, after 9 of its 12 actions', () => {
    const { lines, lineOf, violatedAt } = logOfLabels(LU('buggy'), LEAK);
    expect([violatedAt, lineOf[violatedAt - 1]]).toEqual([9, 15]);
    const r = check(lines);
    expect([r.verdict, r.at?.line, r.invariant, r.spec?.actions.length]).toEqual(['violation', 15, 'ExclusiveHold', 9]);
    expect(r.headline[0]).toBe("evict(C) freed page 0, the cached prefix page that A (live, its page is the tree's node) still reads: nothing locked it, and it is free while A's table holds it.");
  });

  it('an insert naming a wrong page, or wrong duplicates, is a deviation at its line', () => {
    const { lines } = logOfLabels(radix('buggy', [], 4, ['2:sys', '2:sys']), DUPLICATE);
    const page = check(lines.map((l, i) => (i === 10 ? l.replace('"pages":[0,3]', '"pages":[2,3]') : l)));
    expect([page.verdict, page.at?.line, page.refusals[0]?.why]).toEqual(['deviation', 11, "insert(B) at the handoff: the tree holds B's first page and its table is [0, 3]; the log says [2, 3]"]);
    const freed = check(lines.map((l, i) => (i === 10 ? l.replace('"freed":[2]', '"freed":[]') : l)));
    expect([freed.verdict, freed.at?.line, freed.refusals[0]?.why]).toEqual(['deviation', 11, 'insert(B) at the handoff frees the duplicates [2] (its own pages where the tree already held one); the log says []']);
    // npm run mutation's seed-40 sample: as many duplicates as the spec's but another page, and an insert that names none (conformance/radix.ts insertedAtHandoff).
    const other = check(lines.map((l, i) => (i === 10 ? l.replace('"freed":[2]', '"freed":[3]') : l)));
    expect([other.verdict, other.at?.line, other.refusals[0]?.why]).toEqual(['deviation', 11, 'insert(B) at the handoff frees the duplicates [2] (its own pages where the tree already held one); the log says [3]']);
    const unnamed = check(lines.map((l, i) => (i === 10 ? l.replace(',"freed":[2]', '') : l)));
    expect([unnamed.verdict, unnamed.events]).toEqual(['conforms', 15]);
    // Before its handoff the request has nothing inserted.
    const early = check([...lines.slice(0, 5), '{"kind":"insert","at":"handoff","pages":[0],"id":"A"}']);
    expect([early.verdict, early.at?.line, early.refusals[0]?.why]).toEqual(['deviation', 6, "insert(A) at the handoff comes before A's handoff: cache_unfinished_req runs once the request is committed"]);
  });

  it('hardened, lock-underflow: a run that evicts the node once both releases unlocked it conforms; the leak\'s evict line is a deviation', () => {
    const served = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'free(B)', 'decode(A)', 'free(A)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'handoff(C)', 'decode(C)', 'free(C)'];
    // C of 3 pages: once A and B released the node (unlock-once: each walk once), C's allocation evicts it.
    const { lines } = logOfLabels(radix('hardened', ['lock-underflow'], 3, ['2:sys', '2:sys', '3']), served);
    const r = check(lines);
    expect([r.verdict, r.events, r.spec?.actions.length]).toEqual(['conforms', lines.length, 16]);
    const leak = logOfLabels(LU('buggy'), LEAK).lines;
    const h = validate({ files: [], lines: asSource(leak), overrides: { variant: 'hardened' }, window: 8 });
    expect([h.verdict, h.at?.line, h.refusals[0]?.why]).toEqual(['deviation', 15, 'evict(C) is not enabled: C is new']);
  });

  it("a partial hit's allocation names only the pages past the matched node; one evict line frees two leaves", () => {
    // C (4 pages) needs both cached prefixes' nodes evicted, logged as one call of SGLang's evict.
    const config: Config = radix('buggy', [], 4, ['2:sys', '2:doc', '4']);
    const run = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'free(B)', 'evict(C)', 'evict(C)', 'allocate(C)'];
    const { lines } = logOfLabels(config, run);
    const evicts = lines.flatMap((l, i) => (l.includes('"evict"') ? [i] : []));
    const joined = lines.filter((_, i) => i !== evicts[1]).map((l, i) => (i === evicts[0] ? '{"kind":"evict","id":"C","pages":[0,1]}' : l));
    const r = check(joined);
    expect([r.verdict, r.spec?.actions.filter((a) => a.kind === 'evict').length]).toEqual(['conforms', 2]);
    const hit = radix('buggy', [], 4, ['2:sys', '2:sys']);
    const partial = logOfLabels(hit, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)']).lines.map((l) => l.replace('{"kind":"allocate","pages":[0,2],"id":"B"}', '{"kind":"allocate","pages":[2],"id":"B"}'));
    expect(partial.at(-1)).toBe('{"kind":"allocate","pages":[2],"id":"B"}');
    expect(check(partial).verdict).toBe('conforms');
  });
});

describe('validate-log under radix: nested prefixes (prefixPages)', () => {
  // 5 pages: A (sys, 1 page) inserts the sys node; B (sys/doc, 2 pages) matches it and inserts the doc node; C matches both.
  const NESTED = radix('buggy', [], 5, ['2:sys', '3:sys/doc', '3:sys/doc'], { prefixPages: { 'sys/doc': 2 } });
  const RUN = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'allocate(C)', 'prefill(C)', 'handoff(C)', 'decode(B)', 'decode(C)', 'free(B)', 'free(C)', 'decode(A)', 'free(A)'];

  it('partial hits name only the pages past the matched nodes (B past sys: [2, 3]; C past sys/doc: [4]); conforms, 22 events, the spec\'s 15 actions', () => {
    const { lines } = logOfLabels(NESTED, RUN);
    expect(lines[0]).toContain('"prefixPages":{"sys/doc":2}');
    const partial = lines.map((l) => l.replace('{"kind":"allocate","pages":[0,2,3],"id":"B"}', '{"kind":"allocate","pages":[2,3],"id":"B"}').replace('{"kind":"allocate","pages":[0,2,4],"id":"C"}', '{"kind":"allocate","pages":[4],"id":"C"}'));
    expect(partial.filter((l) => l.includes('"allocate"'))).toEqual(['{"kind":"allocate","pages":[0,1],"id":"A"}', '{"kind":"allocate","pages":[2,3],"id":"B"}', '{"kind":"allocate","pages":[4],"id":"C"}']);
    const r = check(partial);
    expect([r.verdict, r.events, r.spec?.actions.length]).toEqual(['conforms', 22, 15]);
    const swapped = check(lines.map((l) => l.replace('{"kind":"insert","at":"handoff","pages":[0,2,4]', '{"kind":"insert","at":"handoff","pages":[0,4,2]')));
    expect([swapped.verdict, swapped.at?.line, swapped.refusals[0]?.why]).toEqual(['deviation', 16, "insert(C) at the handoff: the tree holds C's first 2 pages and its table is [0, 2, 4]; the log says [0, 4, 2]"]);
  });

  it('an undeclared nested prefix, or one no longer than its parent, is exit 2 naming the field', () => {
    const config = '{"kind":"config","pages":5,"prefillLimit":3,"eviction":true,"radix":true}';
    const undeclared = () => check([config, '{"kind":"arrive","id":"B","length":3,"prefix":"sys/doc"}']);
    expect(undeclared).toThrow('prefix "sys/doc" extends another: under radix a nested prefix is declared in the config event\'s prefixPages with its length');
    const short = () => check([config.replace('}', ',"prefixPages":{"sys":2,"sys/doc":2}}'), '{"kind":"arrive","id":"B","length":3,"prefix":"sys/doc"}']);
    expect(short).toThrow('prefix "sys/doc" extends "sys" of 2 pages: it must be longer (2 pages given)');
  });
});

describe('validate-log under radix: the example log', () => {
  it('examples/logs/radix-lock-underflow.jsonl (B\'s partial hit names only page 2): exit 1 at the evict line, the spec\'s own 9-step trace under radix', async () => {
    const file = 'examples/logs/radix-lock-underflow.jsonl';
    const r = await pagecheck('validate-log', file);
    expect(r.code).toBe(1);
    expect(r.out).toContain('model: buggy, 3 pages, prefill limit 3 pages, faults lock-underflow, allocator sorted, radix tree');
    expect(r.out).toContain(`violation of ExclusiveHold at ${file}:15`);
    expect(r.out).toContain('actions: allocate(A) prefill(A) handoff(A) allocate(B) prefill(B) handoff(B) decode(B) free(B) evict(C)');
  });
});

describe('validate-log under radix: what it refuses (exit 2, the field and its value)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-radix-'));
  const write = (name: string, lines: readonly string[]): string => {
    const file = join(dir, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const base = { kind: 'config', pages: 3, prefillLimit: 2, eviction: true, radix: true };
  const arrive = '{"kind":"arrive","id":"A","length":2,"prefix":"sys"}';

  it.each([
    ['radix: "yes"', { ...base, radix: 'yes' }, ':1: radix: Expected boolean, actual "yes"'],
    ['radix without eviction', { ...base, eviction: false }, ':2: radix: radix: true needs eviction: true'],
    ['radix under any', { ...base, allocator: 'any' }, ':2: allocator: allocator "any" with radix: true: the spec follows the radix tree under sorted, sglang and lifo only'],
  ])('%s', async (name, config, message) => {
    const file = write(`${name.replaceAll(/\W/g, '-')}.jsonl`, [JSON.stringify(config), arrive]);
    const r = await pagecheck('validate-log', file);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}${message}`);
  });

  it('an insert whose freed list runs backwards', async () => {
    const file = write('freed.jsonl', [JSON.stringify(base), arrive, '{"kind":"insert","id":"A","at":"handoff","freed":[[3,1]]}']);
    const r = await pagecheck('validate-log', file);
    expect([r.code, r.err]).toEqual([2, expect.stringContaining(`${file}:3: freed[0]: expected a range [from, to] with from <= to, got [3,1]`)]);
  });
});

describe('validate-log under radix: random spec runs', () => {
  // Prefixes of one page, `p` of 2 pages, or `q` nested under `p` (radix only; impl/mbt-radix-configs.ts's shapes), every order the tree follows (pages of one token), the faults the validator checks but early-free (whose late landing the log leaves open).
  const configs = fc
    .record({ c: configArbitrary(undefined, undefined, ['sorted', 'sglang', 'lifo'], true, false, [1]), tree: fc.boolean(), shape: fc.constantFrom(...RADIX_SHAPES) })
    .map(({ c, tree, shape }): Config => {
      const faults = c.faults.filter((f) => VALIDATOR_FAULTS.includes(f) && f !== 'early-free');
      const prefixed = c.requests.some((q) => q.prefix !== undefined);
      if (!prefixed) return { ...c, faults, eviction: true };
      return tree ? { ...reshapePrefixes(c, shape), faults, eviction: true, radix: true } : { ...reshapePrefixes(c, shape === 'nested' ? 'flat' : shape), faults, eviction: true };
    });

  it('never a deviation; a violation exactly at the line of the action after which an invariant breaks (1,000 runs, seed 37: 338 with the tree, 99 with a 2-page prefix, 31 of them nested, 186 inserting at a handoff, 42 evicting, 165 violations)', () => {
    const seen = { radix: 0, longPrefix: 0, nested: 0, insertsAtHandoff: 0, evictions: 0, violations: 0 };
    fc.assert(
      fc.property(configs, fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 30 }), (config, picks) => {
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = logOf(m, config, actions, states);
        const r = check(lines);
        const k = firstViolation(m, states);
        if (config.radix === true) seen.radix++;
        if (Object.keys(config.prefixPages ?? {}).length > 0) seen.longPrefix++;
        if (config.requests.some((q) => q.prefix?.includes('/') === true)) seen.nested++;
        if (lines.some((l) => l.includes('"at":"handoff"'))) seen.insertsAtHandoff++;
        if (actions.some((a) => a.kind === 'evict')) seen.evictions++;
        if (k > 0) seen.violations++;
        expect([r.verdict, r.at?.line]).toEqual(k === 0 ? ['conforms', undefined] : ['violation', lineOf[k - 1]]);
      }),
      { numRuns: 1000, seed: 37 },
    );
    // The runs must have met the tree, its inserts, evictions and violations, or the property says little.
    expect(seen).toEqual({ radix: 338, longPrefix: 99, nested: 31, insertsAtHandoff: 186, evictions: 42, violations: 165 });
  }, 60_000);
});
