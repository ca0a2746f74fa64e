/**
 * Input checked before work (issue 12, item 5): output paths before the search, nested or
 * huge JSON, request lists, configurations in which a fault cannot fire, --help, --version.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonDepth, MAX_JSON_DEPTH } from '../../cli/model-options.ts';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A search far longer than any test: it must never start when an argument is bad. */
const LONG = ['--pages', '5', '--requests', '2,3:s,2:s,1,1', '--variant', 'owner-check', '--faults', 'silent-stub,early-free,prefix-poison', '--no-symmetry'];

describe('checked before the search', () => {
  it('an --itf in a missing directory is exit 2 at once, with nothing searched', async () => {
    const started = performance.now();
    const run = await pagecheck('check', ...LONG, '--itf', join(dir, 'missing', 'leak.itf.json'));
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toBe(`pagecheck: --itf ${join(dir, 'missing', 'leak.itf.json')}: the directory ${join(dir, 'missing')} does not exist\n`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a user file is refused before the search, and --force overwrites it', async () => {
    const mine = join(dir, 'mine.html');
    writeFileSync(mine, '<!-- pagecheck trace: looks like ours -->');
    const refused = await pagecheck('check', ...LONG, '--html', mine);
    expect([refused.code, refused.out]).toEqual([2, '']);
    expect(refused.err).toContain('the file exists and pagecheck did not write it');
    const forced = await pagecheck('check', '--html', mine, '--force');
    expect(forced.code).toBe(1);
    expect(forced.out).toContain(`wrote ${mine}`);
    // Now pagecheck wrote it: the next run overwrites without --force.
    expect((await pagecheck('check', '--html', mine)).code).toBe(1);
  });
});

describe('bad input is exit 2 with a message', () => {
  it('deeply nested JSON, as a configuration and as a trace', async () => {
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const config = await pagecheck('check', '--config', deep);
    expect([config.code, config.err]).toEqual([2, `pagecheck: configuration file ${deep}: arrays and objects are nested more than ${MAX_JSON_DEPTH} deep; pagecheck's files nest a few levels\n`]);
    const trace = await pagecheck('replay', deep);
    expect(trace.code).toBe(2);
    expect(trace.err).toContain(`trace file ${deep}: arrays and objects are nested more than ${MAX_JSON_DEPTH} deep`);
    expect(jsonDepth({ a: [1, { b: [] }] })).toBe(4);
  });

  it('--requests 2:a:b', async () => {
    const run = await pagecheck('check', '--requests', '2:a:b');
    expect([run.code, run.err]).toEqual([2, 'pagecheck: --requests: "2:a:b" has 2 colons; expected LEN or LEN:PREFIX (e.g. 2,3:sys)\n']);
  });
});

describe('a configuration in which a fault cannot fire', () => {
  it('warns in text and in JSON (--prefill-limit 50 on 3 pages)', async () => {
    const text = await pagecheck('check', '--prefill-limit', '50', '--pages', '3');
    expect(text.code).toBe(0);
    expect(text.out).toContain("warning: fault silent-stub (the buggy variant's own) cannot fire in this configuration: no request is longer than the prefill limit 50");
    const json = JSON.parse((await pagecheck('check', '--prefill-limit', '50', '--pages', '3', '--faults', 'silent-stub,prefix-poison', '--json')).out);
    expect(json.warnings).toEqual([
      "fault silent-stub (the buggy variant's own) cannot fire in this configuration: no request is longer than the prefill limit 50 (the longest is 3 pages); a verdict says nothing about it",
      'fault prefix-poison cannot fire in this configuration: no request has a prompt prefix (LEN:PREFIX in --requests); a verdict says nothing about it',
    ]);
  });

  it('says nothing when every fault can fire', async () => {
    expect(JSON.parse((await pagecheck('check', '--json')).out).warnings).toEqual([]);
  });
});

describe('help and version', () => {
  it('check --help lists every exit code, 2 included', async () => {
    const run = await pagecheck('check', '--help');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 +bad input/);
  });

  it('--version prints the package version', async () => {
    const run = await pagecheck('--version');
    expect([run.code, run.out]).toEqual([0, '0.1.0\n']);
  });
});
