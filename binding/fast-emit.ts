/**
 * Derives the fast family's code from its one description (`fast-actions.ts`): for every
 * action, its successor written into a `slice()` of the state (`fast-successors.ts`), its
 * fingerprint as a Zobrist delta of the parent's (`fast-fingerprints.ts`) and its changes
 * applied to a given copy (`fast-apply.ts`). The three share the guard and the control flow
 * of the description; they differ only in what a write is: `t[o] = v`, or the old byte's
 * numbers out and the new one's in. The emitted code is plain loops over typed arrays, one
 * function per action, as the hand-written forms were, so the search's speed is theirs.
 * The kinds only some models have (`timeout`, `landData`, `landTag`: a `model` guard) go
 * in a second file per form, `fast-*-faults.ts`, so that each file stays within the size
 * limits; what the emitter reads off the description first is `fast-analysis.ts`'s.
 *
 * The emitted files are committed (a clean checkout builds without this step); a test
 * holds them to what this module emits now. `npm run generate` rewrites them.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isFinished } from '../spec/liveness.ts';
import { Ph } from '../spec/state.ts';
import { FAST_ACTIONS, FIELDS, type Effect, type FastAction } from './fast-actions.ts';
import { effectsOf, lateFromOf, quietOf, tableDies, writesPagesOfTable } from './fast-analysis.ts';

export { isQuiet } from './fast-analysis.ts';

/** What a write becomes: a byte of a successor (`slice`, `apply`) or a fingerprint delta (`print`). */
type Target = 'slice' | 'print' | 'apply';

/** The family's fields that emitted code reads as locals, taken from the `FastFamily` (`family.ts`). */
const FAMILY_LOCALS = ['n', 'phaseAt', 'holderAt', 'dataAt', 'dataPosAt', 'tagAt', 'ownerCheck', 'flagsAt', 'stepsAt', 'observedAt', 'dataPartsAt', 'tagPartsAt', 'len', 'tableAt', 'readAt', 'overLong', 'sev', 'sevAt', 'free'] as const;

/** The request's locals, in the order they may depend on each other, with their definitions. */
const REQUEST_LOCALS: readonly (readonly [string, string])[] = [
  ['l', 'len[r]!'],
  ['at', 'tableAt[r]!'],
  ['rec0', 'readAt[r]!'],
  ['sev0', 'sevAt[r]!'],
  ['w', 'f.observedBytes'],
  ['o', 'observedAt + w * r'],
];

/** The spec's constants emitted code may name (imported from `spec/state.ts` when named). */
const SPEC_CONSTANTS = ['BYTE_LABEL', 'BYTE_MISPLACED', 'BYTE_READ', 'Ph', 'READ_UNHELD'] as const;

/** Whether `code` (comments aside) names identifier `name`. */
function names(code: string, name: string): boolean {
  const bare = code
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*\*|\*)/.test(line))
    .join('\n');
  return new RegExp(`(?<![.\\w])${name}\\b`).test(bare);
}


/** The default index variable of a field's scope. */
const INDEX: Readonly<Record<string, string>> = { page: 'p', position: 'i', observedByte: 'k', request: '' };

/** One write, as the target has it: a byte of the copy, or the byte's old numbers out of the fingerprint and the new ones in (masked to a byte, as the copy's byte is). */
function emitWrite(target: Target, offset: string, value: string, was: string): string[] {
  if (target !== 'print') return [`t[${offset}] = ${value};`];
  const now = /^(Ph\.\w+|\d+|0x[0-9a-f]{1,2})$/.test(value) ? value : `(${value}) & 0xff`;
  // One line a write: the emitted functions stay within the size limits (test/architecture).
  return [`b = (${offset}) << 8; was = ${was}; now = ${now}; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;`];
}

/** An action's effects as statements of the target, indented by `pad`. */
function emitEffects(effects: readonly Effect[], target: Target, pad: string): string[] {
  const out: string[] = [];
  const block = (head: string, body: string[]): void => void out.push(...compact(head, body, pad));
  for (const e of effects) {
    if ('set' in e) {
      const offset = FIELDS[e.set].offset(e.at ?? INDEX[FIELDS[e.set].scope]!);
      const lines = emitWrite(target, offset, e.to, `s[${offset}]!`);
      if (e.when === undefined) out.push(...lines.map((x) => pad + x));
      else block(`if (${e.when})`, lines.map((x) => `${pad}  ${x}`));
    } else if ('phase' in e) {
      if (isFinished(Ph[e.phase])) out.push(...emitEffects([tableDies(e.phase)], target, pad));
      out.push(...emitWrite(target, 'phaseAt + r', `Ph.${e.phase}`, 'phase').map((x) => pad + x));
    } else if ('let' in e) {
      out.push(`${pad}${e.mutable === true ? 'let' : 'const'} ${e.let} = ${e.be};`);
    } else if ('update' in e) {
      out.push(`${pad}${e.update};`);
    } else if ('each' in e) {
      const body = emitEffects(e.steps, target, `${pad}  `);
      out.push(...emitLoop(e.each, e.skipEmpty === true, body, pad));
    } else if ('ifLate' in e) {
      throw new Error('fast-emit: a late-only branch outside an action with a late form');
    } else if (e.else === undefined) {
      block(`if (${e.if})`, emitEffects(e.then, target, `${pad}  `));
    } else {
      out.push(`${pad}if (${e.if}) {`, ...emitEffects(e.then, target, `${pad}  `), `${pad}} else {`, ...emitEffects(e.else, target, `${pad}  `), `${pad}}`);
    }
  }
  return out;
}

/** A loop of the description: its header, the page it names (when the body reads it), its body. */
function emitLoop(each: 'position' | 'freePage' | 'observedByte', skipEmpty: boolean, body: string[], pad: string): string[] {
  const text = body.join('\n');
  if (each === 'observedByte') return compact('for (let k = 0; k < w; k++)', body, pad);
  if (each === 'freePage') return [`${pad}for (let k = 0; k < l; k++) {`, `${pad}  const p = free[k]!;`, ...body, `${pad}}`];
  const page = skipEmpty || names(text, 'p') ? [`${pad}  const p = s[at + i]!;`] : [];
  const skip = skipEmpty ? [`${pad}  if (p === 0xff) continue;`] : [];
  return compact('for (let i = 0; i < l; i++)', [...page, ...skip, ...body], pad);
}

/** A block (`if`, `for`) with its body: on one line when the body is one line, so that the emitted functions stay within the size limits (test/architecture). */
function compact(head: string, body: string[], pad: string): string[] {
  if (body.length === 1) return [`${pad}${head} { ${body[0]!.trim()} }`];
  return [`${pad}${head} {`, ...body, `${pad}}`];
}

/** The action number of request `r` for the action at index `kind` of {@link FAST_ACTIONS}: fixed for a kind every model has, else from the model's first action of the kind (`base`). */
const actionOf = (kind: number): string => (FAST_ACTIONS[kind]!.model !== undefined ? 'base + r' : kind === 0 ? 'r' : `${kind} * n + r`);

/** What a case the description leaves to the spec, or a table naming a page twice, becomes in each target. */
function escape(target: Target, a: FastAction, kind: number): string[] {
  const action = actionOf(kind);
  const quiet = quietOf(a);
  if (target === 'print') return [`byHash(f, s, ${action}, z, sink${quiet === undefined ? '' : `, ${quiet}`});`, 'continue;'];
  if (target === 'apply') return [`t.set(bySpec(${a.kind}BySpec(f.m, Uint8Array.from(s), r), ${action}));`, 'return;'];
  return [`const u = ${a.kind}BySpec(f.m, s, r);`, `if (u !== undefined) sink(u, ${action});`, 'continue;'];
}

/** The guard and prelude of one request's action in the target: the lines before its effects. */
function emitGuard(target: Target, a: FastAction, kind: number): string[] {
  const fail = target === 'apply' ? `throw notEnabled(${actionOf(kind)});` : 'continue;';
  const phases = a.late === undefined ? a.phases : [...a.phases, lateFromOf(a)];
  const out = ['const phase = s[phaseAt + r]!;', `if (${phases.map((p) => `phase !== Ph.${p}`).join(' && ')}) ${fail}`];
  if (a.model !== undefined && target === 'apply') out.push(`if (!(${a.model})) ${fail}`);
  if (a.readsFree === true) out.push(...(target === 'apply' ? ['f.scanFree(s);'] : ['if (!scanned) f.scanFree(s);', 'scanned = true;']));
  if (a.when !== undefined) out.push(`if (!(${a.when})) ${fail}`);
  const esc = escape(target, a, kind);
  if (a.bySpecWhen === 'tableHasEmptySlot') out.push('if (hasEmptySlot(s, at, l)) {', ...esc.map((x) => `  ${x}`), '}');
  if (target === 'print' && writesPagesOfTable(effectsOf(a))) out.push('if (namesPageTwice(s, at, l)) {', ...esc.map((x) => `  ${x}`), '}');
  return out;
}

/** One action's function in the target. */
function emitAction(target: Target, a: FastAction, kind: number, exported: boolean): string[] {
  const effects = emitEffects(effectsOf(a), target, '');
  const inner = [...emitGuard(target, a, kind)];
  if (target === 'slice') inner.push('const t = s.slice();', ...effects, `sink(t, ${actionOf(kind)});`);
  if (target === 'apply') inner.push(...effects);
  if (target === 'print') {
    inner.push('let x = h1;', 'let y = h2;');
    inner.push('let b = 0;', 'let was = 0;', 'let now = 0;');
    const quiet = quietOf(a);
    inner.push(...effects, `sink(${actionOf(kind)}, x, y${quiet === undefined ? '' : `, ${quiet}`});`);
  }
  const locals = REQUEST_LOCALS.filter(([name]) => names(inner.join('\n'), name) || (name === 'w' && names(inner.join('\n'), 'o')));
  // A request local used by another (o by w) is declared before it, in the order of REQUEST_LOCALS.
  const declared = locals.map(([name, be]) => `const ${name} = ${be};`);
  const [phase, guard, ...rest] = inner;
  const body = [phase!, guard!, ...declared, ...rest];
  const params = { slice: 'f: FastFamily, s: State, sink: Sink', print: 'f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink', apply: 'f: FastFamily, s: State, r: number, t: State' }[target];
  const head = target === 'print' ? ['const { lo, hi } = z;'] : [];
  const skip = a.model === undefined ? [] : [...(target === 'apply' ? [] : [`if (!(${a.model})) return;`]), `const base = f.base[${kind}]!;`];
  // Fingerprints: only the requests the dispatcher found in one of the action's phases (`rs`, see `maskedDispatch`).
  const requests = target === 'print' ? 'for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {' : 'for (let r = 0; r < n; r++) {';
  const loop = target === 'apply' ? [...skip, ...body] : [...skip, ...(a.readsFree === true ? ['let scanned = false;'] : []), requests, ...body.map((x) => `  ${x}`), '}'];
  const text = [...head, ...loop].join('\n');
  const family = FAMILY_LOCALS.filter((name) => names(text, name));
  const destructure = family.length > 0 ? [`const { ${family.join(', ')} } = f;`] : [];
  const quiet = quietOf(a);
  const said = quiet === 'true' ? ' Quiet.' : quiet === undefined ? '' : ` Quiet but from phase \`${lateFromOf(a)}\`.`;
  const doc = `/** ${a.kind}: ${a.prose}${target === 'print' ? said : ''} */`;
  return [doc, `${exported ? 'export ' : ''}function ${a.kind}(${params}): void {`, ...[...destructure, ...head, ...loop].map((x) => `  ${x}`), '}'];
}

/** The header of an emitted file. */
function header(what: string): string[] {
  return ['/**', ` * ${what}`, ' *', ' * Emitted by `binding/fast-emit.ts` from `binding/fast-actions.ts`: do not edit; edit the', ' * description and run `npm run generate` (a test fails while this file is stale).', ' */'];
}

/** The imports an emitted file's text needs. */
function importsOf(text: string, target: Target, faults: boolean): string[] {
  const constants = SPEC_CONSTANTS.filter((c) => names(text, c));
  const out: string[] = [];
  if (target === 'print') out.push("import type { FingerprintSink } from '../checker/model.ts';", "import type { Zobrist } from '../checker/zobrist.ts';");
  if (names(text, 'byHash')) out.push("import { byHash } from './hash-whole.ts';");
  const helpers = ['hasEmptySlot', 'namesPageTwice', 'bySpec', 'notEnabled', 'nextIn'].filter((h) => names(text, h));
  out.push(`import { ${['FastFamily', ...helpers].map((h) => (h === 'FastFamily' ? 'type FastFamily' : h)).join(', ')} } from './family.ts';`);
  // The spec's own transition, for a case the description leaves to it, under another name than the emitted function's.
  const spec = FAST_ACTIONS.filter((a) => text.includes(`${a.kind}BySpec(`));
  if (spec.length > 0) out.push(`import { ${spec.map((a) => `${a.kind} as ${a.kind}BySpec`).join(', ')} } from '../spec/transitions.ts';`);
  out.push(`import { ${[...constants, 'type State'].join(', ')} } from '../spec/state.ts';`);
  if (!faults) out.push(`import { ${indexed(false).map(({ a }) => a.kind).join(', ')} } from './${FILES[target]}-faults.ts';`);
  if (target === 'slice' && faults) out.push("import type { Sink } from './fast-successors.ts';");
  return out;
}

/** The emitted files of each target, without `.ts`; the kinds only some models have (`model`) go in `-faults.ts` beside it, so that each file stays within the size limits. */
const FILES: Readonly<Record<Target, string>> = { slice: 'fast-successors', print: 'fast-fingerprints', apply: 'fast-apply' };

/** An action of the description with its kind index. */
type Indexed = { readonly a: FastAction; readonly kind: number };

/** The description's actions (read at each call: a test changes them) that every model of the family has (`always`), or the others. */
const indexed = (always: boolean): Indexed[] => FAST_ACTIONS.map((a, kind) => ({ a, kind })).filter(({ a }) => (a.model === undefined) === always);

/** One emitted file of `target`: the functions of `actions`, then the `exported` lines. */
function emitFile(what: string, target: Target, actions: readonly Indexed[], exported: string[], faults: boolean): string {
  const fns = actions.flatMap(({ a, kind }) => ['', ...emitAction(target, a, kind, faults)]);
  const body = [...fns, ...(exported.length > 0 ? ['', ...exported] : [])];
  const sink = target === 'slice' && !faults ? ['', '/** Receives a successor and the index (in `allActions`) of the action that made it. */', 'export type Sink = (t: State, action: number) => void;'] : [];
  return [...header(what), ...importsOf(body.join('\n'), target, faults), ...sink, ...body, ''].join('\n');
}

/** The phases an action's guard lets through (its late form's too), as bits: `1 << Ph[phase]`. */
const phaseMask = (a: FastAction): number => (a.late === undefined ? a.phases : [...a.phases, lateFromOf(a)]).reduce((m, p) => m | (1 << Ph[p]), 0);

/**
 * The dispatcher's body: the phases present in `s` as bits, then each action called only
 * where one of its phases is present. An action no request can pass the phase test of
 * (its guard's first) has no successor; most calls were such (owner-check: 3 successors
 * a state of 9 kinds), each a loop over every request.
 */
function dispatch(args: string): string[] {
  const head = ['  const { n, phaseAt } = f;', '  let present = 0;', '  for (let r = 0; r < n; r++) present |= 1 << s[phaseAt + r]!;'];
  return [...head, ...FAST_ACTIONS.map((a) => `  if ((present & 0x${phaseMask(a).toString(16)}) !== 0) ${a.kind}(${args});`)];
}

/**
 * The fingerprint dispatcher's body: per action, the requests in one of its phases as
 * bits (`rs`), made without a branch; then each action called with its requests, where it
 * has any. The phase tests of the actions' loops, one per action and request, were the
 * branches the processor mispredicted most. Over 31 requests every action is called with
 * every request (`nextIn`).
 */
function maskedDispatch(args: string): string[] {
  const ms = FAST_ACTIONS.map((_, k) => `m${k}`);
  const head = ['  const { n, phaseAt } = f;', ...ms.map((m) => `  let ${m} = n > 31 ? -1 : 0;`), '  for (let r = 0; r < n && n <= 31; r++) {', '    const p = s[phaseAt + r]!;'];
  const bits = FAST_ACTIONS.map((a, k) => `    m${k} |= ((0x${phaseMask(a).toString(16)} >>> p) & 1) << r;`);
  return [...head, ...bits, '  }', ...FAST_ACTIONS.map((a, k) => `  if (m${k} !== 0) ${a.kind}(${args.replace('s, ', `s, m${k}, `)});`)];
}

/** The six emitted files, by path relative to the repository's root. */
export function emitFastFamily(): Record<string, string> {
  const calls = dispatch;
  const cases = FAST_ACTIONS.map((a, kind) => `    case ${kind}:\n      return ${a.kind}(f, s, r, out);`);
  const faults = (target: Target, what: string): Record<string, string> => ({ [`binding/${FILES[target]}-faults.ts`]: emitFile(`${what} The kinds only some models have (faults \`early-free\`, \`torn-write\`).`, target, indexed(false), [], true) });
  return {
    'binding/fast-successors.ts': emitFile('Every successor of a state of the fast family, each written into a `slice()` of it, in action order.', 'slice', indexed(true), [
      '/** Every successor of `s`, in action order (kind-major, then request). */',
      'export function successors(f: FastFamily, s: State, sink: Sink): void {',
      ...calls('f, s, sink'),
      '}',
    ], false),
    ...faults('slice', 'Successors of the fast family, each written into a `slice()` of the state.'),
    'binding/fast-fingerprints.ts': emitFile("Every successor of a state of the fast family as its action and fingerprint: each written byte's old numbers out, the new ones in.", 'print', indexed(true), [
      '/** Every successor of `s` as its action and fingerprint (`s`\'s is `(h1, h2)`), in action order, each quiet one said so. */',
      'export function fingerprints(f: FastFamily, s: State, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {',
      ...maskedDispatch('f, s, h1, h2, z, sink'),
      '}',
    ], false),
    ...faults('print', "Successors of the fast family as their actions and fingerprints: each written byte's old numbers out, the new ones in."),
    'binding/fast-apply.ts': emitFile('One action of the fast family applied: its changes written into a copy of the state.', 'apply', indexed(true), [
      '/** Writes action `a`\'s changes of `s` into `out` (a copy of `s`); throws when `a` is not enabled in `s`. */',
      'export function apply(f: FastFamily, s: State, a: number, out: State): void {',
      '  const block = (a / f.n) | 0;',
      '  const r = a - block * f.n;',
      '  switch (f.kindOf[block]) {',
      ...cases,
      '    default:',
      '      throw notEnabled(a);',
      '  }',
      '}',
    ], false),
    ...faults('apply', 'Actions of the fast family applied: their changes written into a copy of the state.'),
  };
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  for (const [path, text] of Object.entries(emitFastFamily())) writeFileSync(root + path, text);
}
