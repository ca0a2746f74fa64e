/** `pagecheck docs`: writes, refuses, and checks, the generator stubbed (the run with the real generator is in document.test.ts, which computes it once). */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDocs, type DocsIo } from '../../cli/commands/docs.ts';
import { EXIT } from '../../cli/errors.ts';
import { TraceInputError } from '../../trace/errors.ts';
import { GENERATED_MARKER } from '../../docs/generate/index.ts';

const DOC = `${GENERATED_MARKER}\n\n# Spec\n\n## Actions\n\nallocate\n\n## Properties\n\nIsolation\n`;

/** An io that records what was said and generates `doc`, counting the calls. */
function io(doc = DOC): DocsIo & { out: string[]; err: string[]; generated: () => number } {
  const out: string[] = [];
  const err: string[] = [];
  let calls = 0;
  return {
    out,
    err,
    generated: () => calls,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    generate: () => {
      calls++;
      return doc;
    },
  };
}

const tmp = (): string => mkdtempSync(join(tmpdir(), 'pagecheck-docs-'));

describe('pagecheck docs', () => {
  it('writes a new file, then finds it up to date; a missing directory is an error, not created', () => {
    const nowhere = join(tmp(), 'nested', 'SPEC.md');
    expect(() => runDocs({ out: nowhere }, io())).toThrow(`--out ${nowhere}: the directory ${join(nowhere, '..')} does not exist`);
    const out = join(tmp(), 'SPEC.md');
    const first = io();
    expect(runDocs({ out }, first)).toBe(EXIT.ok);
    expect(readFileSync(out, 'utf8')).toBe(DOC);
    expect(first.out).toEqual([`wrote ${out} (new file)`]);
    const second = io();
    expect(runDocs({ out }, second)).toBe(EXIT.ok);
    expect(second.out).toEqual([`${out} is already up to date`]);
  });

  it('overwrites a file it generated, naming the sections that changed', () => {
    const out = join(tmp(), 'SPEC.md');
    expect(runDocs({ out }, io(DOC.replace('Isolation', 'Isolation, old')))).toBe(EXIT.ok);
    const run = io();
    expect(runDocs({ out }, run)).toBe(EXIT.ok);
    expect(run.out).toEqual([`wrote ${out} (changed: Properties)`]);
    expect(readFileSync(out, 'utf8')).toBe(DOC);
  });

  it('refuses to overwrite a file it did not generate, before generating anything', () => {
    const out = join(tmp(), 'README.md');
    writeFileSync(out, '# my notes\n');
    const run = io();
    expect(() => runDocs({ out }, run)).toThrow(TraceInputError);
    expect(() => runDocs({ out }, run)).toThrow(`--out ${out}: the file exists and pagecheck did not write it (or it changed since)`);
    expect(run.generated()).toBe(0);
    // A user's file that starts with the generated marker is still the user's.
    writeFileSync(out, DOC);
    expect(() => runDocs({ out }, run)).toThrow(`--out ${out}: the file exists and pagecheck did not write it`);
    expect(runDocs({ out, force: true }, io(`${DOC}\nforced\n`))).toBe(EXIT.ok);
    expect(readFileSync(out, 'utf8')).toBe(`${DOC}\nforced\n`);
    writeFileSync(out, '# my notes\n');
    expect(readFileSync(out, 'utf8')).toBe('# my notes\n');
    const dir = join(tmp(), 'SPEC.md');
    mkdirSync(dir);
    expect(() => runDocs({ out: dir }, io())).toThrow(`--out ${dir}: is a directory`);
  });

  it('--check: exit 0 when up to date, 1 naming the stale section or the missing file, and writes nothing', () => {
    const out = join(tmp(), 'SPEC.md');
    writeFileSync(out, DOC);
    expect(runDocs({ out, check: true }, io())).toBe(EXIT.ok);
    const stale = DOC.replace('allocate', 'allocate, old');
    writeFileSync(out, stale);
    const run = io();
    expect(runDocs({ out, check: true }, run)).toBe(EXIT.violation);
    expect(run.err.join('\n')).toContain('section "Actions" differs, from line 7:');
    expect(readFileSync(out, 'utf8')).toBe(stale);
    const missing = io();
    expect(runDocs({ out: join(tmp(), 'none.md'), check: true }, missing)).toBe(EXIT.violation);
    expect(missing.err.join('\n')).toMatch(/none\.md does not exist; run npm run -s pagecheck -- docs/);
  });
});
