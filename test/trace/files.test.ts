import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/errors.ts';
import { HTML_SIGNATURE, MERMAID_SIGNATURE, writeTraceFiles, writtenByPagecheck } from '../../trace/index.ts';
import { minimalLeak } from './traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { m, trace } = minimalLeak();

describe('writeTraceFiles', () => {
  it('writes each form requested, and only those', () => {
    const files = { itf: join(dir, 'a.itf.json'), mermaid: join(dir, 'a.mmd'), html: join(dir, 'a.html') };
    expect(writeTraceFiles(m, trace, 'Isolation', files)).toEqual([files.itf, files.mermaid, files.html]);
    expect(JSON.parse(readFileSync(files.itf, 'utf8'))['#meta'].invariant).toBe('Isolation');
    expect(readFileSync(files.mermaid, 'utf8').startsWith(`${MERMAID_SIGNATURE}: `)).toBe(true);
    expect(readFileSync(files.html, 'utf8').startsWith(HTML_SIGNATURE)).toBe(true);
    expect(writeTraceFiles(m, trace, 'Isolation', { mermaid: join(dir, 'only.mmd') })).toEqual([join(dir, 'only.mmd')]);
    expect(existsSync(join(dir, 'only.html'))).toBe(false);
  });

  it('overwrites its own files', () => {
    const file = join(dir, 'again.html');
    writeTraceFiles(m, trace, undefined, { html: file });
    expect(readFileSync(file, 'utf8')).toContain('trace of 9 steps');
    writeTraceFiles(m, trace, 'Isolation', { html: file });
    expect(readFileSync(file, 'utf8')).toContain('Isolation violated after 9 steps');
  });

  it("refuses to overwrite a file it did not write, and writes nothing then", () => {
    const mine = join(dir, 'notes.txt');
    writeFileSync(mine, 'my notes');
    const fresh = join(dir, 'fresh.itf.json');
    expect(() => writeTraceFiles(m, trace, 'Isolation', { itf: fresh, html: mine })).toThrow(
      new UsageError(`--html ${mine}: the file exists and was not written by pagecheck; remove it or name another file`),
    );
    expect(readFileSync(mine, 'utf8')).toBe('my notes');
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses a directory, the same file twice, and a path it cannot write', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(() => writeTraceFiles(m, trace, undefined, { itf: sub })).toThrow(new UsageError(`--itf ${sub}: exists and is not a file`));
    const same = join(dir, 'same');
    expect(() => writeTraceFiles(m, trace, undefined, { itf: same, html: same })).toThrow(
      new UsageError(`--itf and --html name the same file ${same}`),
    );
    const nowhere = join(dir, 'missing', 'x.mmd');
    expect(() => writeTraceFiles(m, trace, undefined, { mermaid: nowhere })).toThrow(new UsageError(`--mermaid ${nowhere}: cannot write (ENOENT)`));
  });
});

describe('writtenByPagecheck', () => {
  it('recognises the three signatures and nothing else', () => {
    expect(writtenByPagecheck(`${HTML_SIGNATURE}: x -->`)).toBe(true);
    expect(writtenByPagecheck(`${MERMAID_SIGNATURE}: x`)).toBe(true);
    expect(writtenByPagecheck('{\n  "#meta": {\n    "format": "ITF",\n    "source": "pagecheck",')).toBe(true);
    expect(writtenByPagecheck('{\n  "#meta": {\n    "format": "ITF",\n    "source": "apalache",')).toBe(false);
    expect(writtenByPagecheck('{"note": "source": "pagecheck"}')).toBe(false);
    expect(writtenByPagecheck('<!DOCTYPE html>\n<html>')).toBe(false);
    expect(writtenByPagecheck('')).toBe(false);
  });
});
