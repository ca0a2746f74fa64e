import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TraceInputError } from '../../trace/errors.ts';
import { checkTraceFiles, formatHtml, HTML_SIGNATURE, MERMAID_SIGNATURE, writeTraceFiles, wroteIt } from '../../trace/index.ts';
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
      new TraceInputError(`--html ${mine}: the file exists and pagecheck did not write it (or it changed since); name another file, or add --force to overwrite it`),
    );
    expect(readFileSync(mine, 'utf8')).toBe('my notes');
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses a directory, the same file twice, and a path it cannot write', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(() => writeTraceFiles(m, trace, undefined, { itf: sub })).toThrow(new TraceInputError(`--itf ${sub}: is a directory; name the file to write`));
    const same = join(dir, 'same');
    expect(() => writeTraceFiles(m, trace, undefined, { itf: same, html: same })).toThrow(
      new TraceInputError(`--itf and --html name the same file ${same}`),
    );
    const nowhere = join(dir, 'missing', 'x.mmd');
    expect(() => writeTraceFiles(m, trace, undefined, { mermaid: nowhere })).toThrow(
      new TraceInputError(`--mermaid ${nowhere}: the directory ${join(dir, 'missing')} does not exist`),
    );
    expect(() => checkTraceFiles({ itf: nowhere })).toThrow(new TraceInputError(`--itf ${nowhere}: the directory ${join(dir, 'missing')} does not exist`));
  });
});

describe("pagecheck's record of what it wrote", () => {
  it('a file that merely looks like pagecheck output is the user\'s; --force overwrites it', () => {
    const lookalike = join(dir, 'lookalike.html');
    writeFileSync(lookalike, formatHtml(m, trace, 'Isolation'));
    expect(wroteIt(lookalike)).toBe(false);
    expect(() => checkTraceFiles({ html: lookalike })).toThrow(/the file exists and pagecheck did not write it/);
    expect(writeTraceFiles(m, trace, undefined, { html: lookalike }, true)).toEqual([lookalike]);
    expect(wroteIt(lookalike)).toBe(true);
  });

  it('a file pagecheck wrote and the user then edited is the user\'s again', () => {
    const file = join(dir, 'edited.mmd');
    writeTraceFiles(m, trace, 'Isolation', { mermaid: file });
    expect(wroteIt(file)).toBe(true);
    writeFileSync(file, `${readFileSync(file, 'utf8')}%% my note\n`);
    expect(wroteIt(file)).toBe(false);
    expect(() => checkTraceFiles({ mermaid: file })).toThrow(/pagecheck did not write it \(or it changed since\)/);
  });
});
