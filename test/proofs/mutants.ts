/**
 * Mutants of `spec/`: a file of `spec/` patched, so that `prove` can be run on a spec that
 * is wrong in a known way without touching the real one: bundled with the patch (its step,
 * the whole child of apart.ts, or the command line).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StepFn } from '../../proofs/conformance.ts';
import type { Plugin } from 'esbuild';
import { bundleApart, CHILD, CHILD_LIMIT_MS, onceMoreIfZ3Crashed, stopped } from './apart.ts';

/** The project's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A mutant: a name, and text replacements in `file`, each of which must match exactly once. */
export interface Mutant {
  /** What is wrong with it, in words. */
  readonly name: string;
  /** The file patched, under the project's root (`spec/decode-steps.ts`). */
  readonly file: string;
  /** `[from, to]` replacements. */
  readonly patches: readonly (readonly [string, string])[];
  /** The action kinds at which `prove` must find the encoding and the spec disagree, comma-separated. */
  readonly caughtAt: string;
}

/** Mutants of the spec, each one a bug the proof must not survive. */
export const MUTANTS: readonly Mutant[] = [
  {
    name: 'decode lets a cleared tag pass',
    file: 'spec/decode-steps.ts',
    patches: [['    if (!mayReadAt(m, r, i, tagOf(m, s, p)) || !tagCovers(m, s, p, slotsReadAt(m, i, end))) return false;', '    if (tagOf(m, s, p) !== 0 && (!mayReadAt(m, r, i, tagOf(m, s, p)) || !tagCovers(m, s, p, slotsReadAt(m, i, end)))) return false;']],
    caughtAt: 'decode',
  },
  {
    name: 'a failing decode still records what it read',
    file: 'spec/decode-steps.ts',
    patches: [["  if (m.ownerCheck && !tagsPass(m, s, r)) {\n    enter(m, t, r, 'failed');", "  if (m.ownerCheck && !tagsPass(m, s, r)) {\n    readTable(m, s, t, r);\n    enter(m, t, r, 'failed');"]],
    caughtAt: 'decode',
  },
  {
    name: 'the owner check skips the pages past the third of a table',
    file: 'spec/decode-steps.ts',
    patches: [['  for (let i = 0; i < len; i++) {\n    const p = tablePage(m, s, r, i);\n    if (!mayReadAt', '  for (let i = 0; i < Math.min(len, 3); i++) {\n    const p = tablePage(m, s, r, i);\n    if (!mayReadAt']],
    caughtAt: 'decode',
  },
  {
    name: 'decode reads only the first four pages of a table',
    file: 'spec/decode-steps.ts',
    patches: [['  for (let i = 0; i < len; i++) {\n    const p = tablePage(m, s, r, i);\n    const record = slotRecord', '  for (let i = 0; i < Math.min(len, 4); i++) {\n    const p = tablePage(m, s, r, i);\n    const record = slotRecord']],
    caughtAt: 'decode',
  },
  {
    name: 'allocate does not clear the tags of the pages it hands out past the third',
    file: 'spec/hold.ts',
    patches: [['    if (m.ownerCheck) setTag(m, t, p, 0);', '    if (m.ownerCheck && i < 3) setTag(m, t, p, 0);']],
    caughtAt: 'allocate',
  },
  {
    name: 'a write stores content without stamping the tag of a page past the third position',
    file: 'spec/transfer.ts',
    patches: [['  if (m.ownerCheck) setTag(m, t, p, label, slots);', '  if (m.ownerCheck && pos < 3) setTag(m, t, p, label, slots);']],
    // prefill's write. (The token write of a later decode step is no witness: decode passes only
    // if the last page's tag is already the request's own, so not stamping it changes nothing.)
    caughtAt: 'prefill',
  },
  {
    name: 'release frees all but the last page of a table',
    // A release is SGLang's allocator calls (spec/release.ts): each call stops one page short, so a table's last page is never freed.
    file: 'spec/release.ts',
    patches: [['i < c.to; i++) {', 'i < c.to - 1; i++) {']],
    caughtAt: 'free,timeout',
  },
  {
    name: 'prefill also runs for a request exactly one page over the limit',
    file: 'spec/transfer.ts',
    patches: [["  if (isOverLong(m, r) && !m.fault['auto-truncate']) return undefined;\n  const t = s.slice();\n  postWrite", "  if ((m.tokens[r] ?? 0) > m.config.prefillLimit + 1 && !m.fault['auto-truncate']) return undefined;\n  const t = s.slice();\n  postWrite"]],
    caughtAt: 'prefill',
  },
];

/** The text of `mutant`'s file with its patches applied, each of which must match exactly once. */
function patched(mutant: Mutant, text: string): string {
  let out = text;
  for (const [from, to] of mutant.patches) {
    const count = out.split(from).length - 1;
    if (count !== 1) throw new Error(`mutant "${mutant.name}": the patch matches ${count} times in ${mutant.file}: ${JSON.stringify(from)}`);
    out = out.replace(from, to);
  }
  return out;
}

/**
 * `entry` bundled with `mutant`'s patches applied to its file as esbuild loads it: no copy of
 * the project, and no tsx (which spent 2 to 2.5 s of CPU per process loading the copy's
 * sources module by module). Refused if the entry does not import the mutant's file.
 */
async function mutantBundle(mutant: Mutant, entry: string, name: string): Promise<string> {
  const target = join(ROOT, ...mutant.file.split('/'));
  let applied = false;
  const plugin: Plugin = {
    name: 'mutant',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path !== target) return undefined;
        applied = true;
        return { contents: patched(mutant, readFileSync(target, 'utf8')), loader: 'ts' };
      });
    },
  };
  const out = await bundleApart(entry, name, [plugin]);
  if (!applied) throw new Error(`mutant "${mutant.name}": ${mutant.file} is not part of ${relative(ROOT, entry)}`);
  return out;
}

/** The mutant's `step` (spec/transitions.ts) bundled: the module's path, for `stepFrom` of apart.ts. */
export function mutantStepModule(mutant: Mutant): Promise<string> {
  return mutantBundle(mutant, join(ROOT, 'spec', 'transitions.ts'), 'mutant-step');
}

/** The mutant's `step`, imported into this process. */
export async function mutantStep(mutant: Mutant): Promise<StepFn> {
  const mod = (await import(pathToFileURL(await mutantStepModule(mutant)).href)) as { step: StepFn };
  return mod.step;
}

/** apart.ts's child bundled with the mutant: its spec, and so the encoding it compiles, are the mutant's. */
export function mutantChild(mutant: Mutant): Promise<string> {
  return mutantBundle(mutant, CHILD, 'mutant-child');
}

/** `pagecheck …args` bundled with the mutant (cli/bin.ts, one file: `prove` starts no worker), in a process of its own: its exit code and output. */
export async function pagecheckMutant(mutant: Mutant, args: readonly string[]): Promise<{ code: number; out: string }> {
  const bin = await mutantBundle(mutant, join(ROOT, 'cli', 'bin.ts'), 'mutant-cli');
  // the command line finds its version in the package.json above it
  writeFileSync(join(dirname(bin), 'package.json'), JSON.stringify({ name: 'pagecheck', version: '0.0.0-mutant', type: 'module' }));
  return onceMoreIfZ3Crashed(() => pagecheckOnce(bin, args), (r) => r.out);
}

/** One run of the mutant's `pagecheck …args` from the project's root, stopped after {@link CHILD_LIMIT_MS}. */
function pagecheckOnce(bin: string, args: readonly string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: ROOT, maxBuffer: 1 << 24, timeout: CHILD_LIMIT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, out: `${stdout}${stderr}${error === null ? '' : stopped(error)}` });
    });
  });
}

/**
 * Mutants of `hardened`'s torn-write mechanism, for `prove --variant hardened`: one
 * switches `revoke-writer` off where the spec derives the variant's mechanisms (`spec/behaviour.ts`; the proof's encoding
 * reads the same switch, so the encoding still agrees with `step` and the invariant is
 * what breaks), one drops it from the late write only (the encoding, which follows the
 * switch, then disagrees with `step`).
 */
export const TORN_WRITE_MUTANTS: readonly Mutant[] = [
  {
    name: 'hardened without revoke-writer',
    file: 'spec/behaviour.ts',
    patches: [['MECHANISMS.map((k) => [k, hasMechanism(variant, k) && !without.includes(k)])', "MECHANISMS.map((k) => [k, hasMechanism(variant, k) && !without.includes(k) && k !== 'revoke-writer'])"]],
    caughtAt: 'prefill,stub,timeout',
  },
  {
    name: "a late write lands although the writer's access was revoked",
    file: 'spec/transfer.ts',
    patches: [["  if (late && m.mechanism['revoke-writer']) {", "  if (late && m.mechanism['revoke-writer'] && m.fault['torn-write'] === false) {"]],
    caughtAt: 'prefill',
  },
];

/** Mutants of the part landings themselves, which the encoding check must catch at the action they break (tables of 4 and 5 pages). */
export const LANDING_MUTANTS: readonly Mutant[] = [
  {
    name: 'a content part past the third position lands nowhere',
    file: 'spec/transfer.ts',
    patches: [['  if (p !== NO_PAGE) writeContent(m, t, p, sourceLabel(m, s, r, i), i, writeSlots(m, r, i));', '  if (p !== NO_PAGE && i < 3) writeContent(m, t, p, sourceLabel(m, s, r, i), i, writeSlots(m, r, i));']],
    caughtAt: 'landData',
  },
  {
    name: 'a tag part past the third position stamps the wrong label',
    file: 'spec/transfer.ts',
    patches: [['  if (p !== NO_PAGE) setTag(m, t, p, writeLabel(m, r, i), writeSlots(m, r, i));', '  if (p !== NO_PAGE) setTag(m, t, p, i < 3 ? writeLabel(m, r, i) : 0, writeSlots(m, r, i));']],
    caughtAt: 'landTag',
  },
];

/**
 * Mutants that only a prefix of several pages shows (the encoding check's `sys` has 2):
 * each confuses page `j` of a prefix with another page of it, which with one-page
 * prefixes cannot happen.
 */
export const PREFIX_PAGE_MUTANTS: readonly Mutant[] = [
  {
    name: 'a prefix page is accepted at any of its prefix positions',
    file: 'spec/labels.ts',
    patches: [['  return isPrefixPosition(m, r, i) && label === prefixLabel(m, m.group[r]!, i);', '  return isPrefixPosition(m, r, i) && groupOfLabel(m, label) === m.group[r]!;']],
    caughtAt: 'decode',
  },
  {
    name: 'a hit shares the prefix’s first cached page at every prefix position',
    file: 'spec/hold.ts',
    patches: [['    for (; i < plan.shared; i++) setTablePage(m, t, r, i, cachedPage(m, s, g, i));', '    for (; i < plan.shared; i++) setTablePage(m, t, r, i, cachedPage(m, s, g, 0));']],
    caughtAt: 'allocate',
  },
  {
    name: 'insert makes every prefix page the entry’s first',
    file: 'spec/prefix-cache.ts',
    patches: [['  for (let j = 0; j < k; j++) setHolder(m, t, tablePage(m, s, r, j), prefixLabel(m, g, j));', '  for (let j = 0; j < k; j++) setHolder(m, t, tablePage(m, s, r, j), prefixLabel(m, g, 0));']],
    caughtAt: 'insert',
  },
  {
    name: 'prefill writes the prefix’s first page at every prefix position',
    file: 'spec/writes.ts',
    patches: [['  return isPrefixPosition(m, r, i) && !isStubWrite(m, r) ? prefixLabel(m, m.group[r] ?? -1, i) : bodyLabel(r);', '  return isPrefixPosition(m, r, i) && !isStubWrite(m, r) ? prefixLabel(m, m.group[r] ?? -1, 0) : bodyLabel(r);']],
    caughtAt: 'prefill',
  },
];
