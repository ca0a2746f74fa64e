/** `pagecheck export promela`: stdout or a file, the configuration in the model, and no overwriting of foreign files. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { PROMELA_MARKER } from '../../spin/promela.ts';

let out = '';
let err = '';

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  process.exitCode = undefined;
});

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe('pagecheck export promela', () => {
  it('prints the model of the configuration on stdout, actions in exploration order', async () => {
    expect(await main(['export', 'promela', '--pages', '4', '--requests', '2,3:sys', '--variant', 'owner-check', '--faults', 'early-free'])).toBe(0);
    expect(out).toContain(PROMELA_MARKER);
    expect(out).toContain('variant owner-check; faults early-free');
    expect(out).toMatch(/#define PAGES +4\n/);
    expect(out).toMatch(/#define OWNER_CHECK +1 /);
    expect(out).toMatch(/#define SILENT_STUB +0 /);
    expect(out).toMatch(/#define EARLY_FREE +1\n/);
    expect(out).toContain('#define REQ_1 1, 3, 0, 2  /* B: prefix sys */');
    const options = [...out.matchAll(/^ {2}:: (\w+)\(REQ_(\d)\)/gm)].map((m) => `${m[1]}${m[2]}`);
    expect(options).toEqual([
      'Allocate0', 'Allocate1', 'Prefill0', 'Prefill1', 'Stub0', 'Stub1', 'Handoff0', 'Handoff1',
      'Decode0', 'Decode1', 'Free0', 'Free1', 'Timeout0', 'Timeout1', 'Insert0', 'Insert1',
    ]);
  });

  it('writes --out, overwrites its own file, and refuses a file it did not write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-export-'));
    const file = join(dir, 'model.pml');
    expect(await main(['export', 'promela', '--out', file])).toBe(0);
    expect(out).toBe('');
    expect(readFileSync(file, 'utf8')).toContain('requests A (2 pages), B (3 pages)');
    expect(await main(['export', 'promela', '--requests', '2,2', '--out', file])).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('requests A (2 pages), B (2 pages)');

    const mine = join(dir, 'mine.pml');
    writeFileSync(mine, 'active proctype p() { skip }\n');
    expect(await main(['export', 'promela', '--out', mine])).toBe(2);
    expect(err).toMatch(/--out .*mine\.pml: the file exists and pagecheck did not write it/);
    expect(readFileSync(mine, 'utf8')).toBe('active proctype p() { skip }\n');
    // Looking like pagecheck's output does not make a file pagecheck's.
    writeFileSync(mine, readFileSync(file, 'utf8'));
    expect(await main(['export', 'promela', '--out', mine])).toBe(2);
    expect(await main(['export', 'promela', '--out', mine, '--force'])).toBe(0);
    expect(await main(['export', 'promela', '--out', join(dir, 'missing', 'x.pml')])).toBe(2);
    expect(err).toMatch(/--out .*x\.pml: the directory .*missing does not exist/);
  });

  it('names the bad format or flag, exit 2', async () => {
    expect(await main(['export', 'tla'])).toBe(2);
    expect(err).toContain('unknown format "tla"; expected one of promela');
    err = '';
    expect(await main(['export', 'promela', '--pages', '40', '--requests', '2'])).toBe(2);
    expect(err).toContain('--pages: the Promela model supports at most 32 pages, got 40');
    err = '';
    expect(await main(['export', 'promela', '--pages', 'x'])).toBe(2);
    expect(err).toContain('--pages: expected a number of pages');
    // eviction with a prefix to evict: once a stack trace from toPromela, now one line naming the flag
    err = '';
    expect(await main(['export', 'promela', '--eviction', '--requests', '2:s,3:s'])).toBe(2);
    expect(err).toBe('pagecheck: --eviction: the Promela model has no prefix-cache eviction (action evict); check it with `pagecheck check --requests 2,3:sys,2:sys --eviction`\n');
  });
});
