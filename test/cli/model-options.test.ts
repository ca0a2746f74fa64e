import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addModelOptions, configFromFlags, modelFlagsGiven, type ModelFlags } from '../../cli/model-options.ts';
import { CHECK_DEFAULTS, replayCommand } from '../../cli/search-report.ts';
import { UsageError } from '../../cli/errors.ts';
import { incidentConfig, matrixConfig, type Config } from '../../spec/index.ts';

const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error('expected a UsageError');
};

describe('model flags and configuration files', () => {
  it('builds a configuration from flags, with LEN:PREFIX requests', () => {
    const config = configFromFlags({ pages: '4', prefillLimit: '2', requests: '2,3:sys', variant: 'owner-check', faults: 'early-free,stale-free' });
    expect(config).toEqual({
      pages: 4,
      prefillLimit: 2,
      requests: [
        { name: 'A', length: 2 },
        { name: 'B', length: 3, prefix: 'sys' },
      ],
      variant: 'owner-check',
      faults: ['early-free', 'stale-free'],
    });
    expect(configFromFlags({ pages: '3', prefillLimit: '2', requests: '2', faults: 'none' }).faults).toEqual([]);
  });

  it('names the flag and the value in its errors', () => {
    expect(errorOf(() => configFromFlags({ pages: '0', prefillLimit: 'two', requests: '2,x' }))).toBe(
      [
        'invalid model configuration:',
        '  --pages: expected a number of pages: a whole number from 1 to 65535, got 0',
        '  --prefill-limit: expected a prefill limit in tokens: a whole number from 0 to 65535, got "two"',
        '  --requests[1].length: expected a length in tokens: a whole number from 1 to 65535, got "x"',
      ].join('\n'),
    );
    expect(errorOf(() => configFromFlags({ pages: '3', prefillLimit: '2', requests: '2', variant: 'fast' }))).toContain(
      '--variant: expected one of buggy, length-fix, owner-check, hardened, got "fast"',
    );
  });

  it('reads a configuration file, lets flags override it, and names the file in its errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-'));
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }] }));
    expect(configFromFlags({ config: good, variant: 'length-fix' }).variant).toBe('length-fix');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ pages: -3, prefillLimit: 2, requests: [{ length: 2 }] }));
    expect(errorOf(() => configFromFlags({ config: bad }))).toContain(`${bad}: pages: expected a number of pages`);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "pages": 3,');
    expect(errorOf(() => configFromFlags({ config: broken }))).toMatch(/is not valid JSON/);
    expect(errorOf(() => configFromFlags({ config: join(dir, 'missing.json') }))).toMatch(/cannot read configuration file .*ENOENT/);
  });
});

describe('--prefix-pages', () => {
  const flags = { pages: '4', prefillLimit: '3', requests: '3:sys,3:sys' };

  it('gives a prefix its length in pages; the flag joins, and overrides, the file\'s prefixPages', () => {
    expect(configFromFlags({ ...flags, prefixPages: 'sys=2' }).prefixPages).toEqual({ sys: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-prefix-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ pages: 5, prefillLimit: 3, requests: [{ length: 4, prefix: 'sys' }, { length: 4, prefix: 'doc' }], prefixPages: { sys: 3, doc: 2 } }));
    expect(configFromFlags({ config: file }).prefixPages).toEqual({ sys: 3, doc: 2 });
    expect(configFromFlags({ config: file, prefixPages: 'sys=2' }).prefixPages).toEqual({ sys: 2, doc: 2 });
  });

  it('names the flag and the value in its errors', () => {
    expect(errorOf(() => configFromFlags({ ...flags, prefixPages: 'sys=two' }))).toBe(
      'invalid model configuration: --prefix-pages.sys: expected a prefix length in pages: a whole number from 1 to 65535, got "two"',
    );
    expect(errorOf(() => configFromFlags({ ...flags, prefixPages: 'sys=3' }))).toBe(
      [
        'invalid model configuration:',
        '  --requests[0].length: a request with a prefix needs at least 4 pages (its prefix "sys" of 3 pages and one of its own), got 3 pages',
        '  --requests[1].length: a request with a prefix needs at least 4 pages (its prefix "sys" of 3 pages and one of its own), got 3 pages',
      ].join('\n'),
    );
    expect(errorOf(() => configFromFlags({ ...flags, prefixPages: 'sys' }))).toBe('--prefix-pages: "sys" is not NAME=PAGES; expected a list such as sys=2 or sys=2,doc=3');
    expect(errorOf(() => configFromFlags({ ...flags, prefixPages: 'sys=2,sys=3' }))).toBe('--prefix-pages: prefix "sys" is given twice');
  });
});

/** The configuration the words after `check` in a replay line give, read by the CLI's own parser. */
function replayed(line: string): Config {
  const words = line.slice(line.indexOf(' check ') + ' check '.length).trim().split(/\s+/);
  const cmd = addModelOptions(new Command().exitOverride());
  cmd.parse(words, { from: 'user' });
  return configFromFlags(cmd.opts<ModelFlags>(), CHECK_DEFAULTS);
}

describe('replay lines give back the configuration', () => {
  // Required<Config>: a field added to Config fails to typecheck here until this test sets it. `draft` is refused with
  // retraction (spec/config-checks.ts), so it has a test of its own below.
  const every: Required<Omit<Config, 'draft'>> = {
    pages: 4,
    prefillLimit: 6,
    // Lengths in tokens: 2, 4 and 3 pages of 2 tokens.
    requests: [
      { name: 'A', length: 4 },
      { name: 'B', length: 8, prefix: 'sys' },
      { name: 'C', length: 6, prefix: 'sys' },
    ],
    // hardened: the one variant with mechanisms to switch off (without).
    variant: 'hardened',
    faults: ['early-free', 'double-free'],
    // Not lifo: retraction with lifo and double-free is refused (spec/config-checks.ts).
    allocator: 'sglang',
    eviction: true,
    prefixPages: { sys: 2 },
    pageSize: 2,
    lengthRule: 'ge',
    sourcePages: true,
    stateSlots: true,
    decodeSteps: 3,
    tableGrowth: true,
    retraction: true,
    radix: true,
    without: ['revoke-writer', 'unlock-once'],
    loadback: true,
  };

  it('every field, none at its default, survives replayCommand and the flag parser', () => {
    const line = replayCommand(every);
    expect(line).toContain('--decode-steps 3');
    expect(line).toContain('--table-growth');
    expect(line).toContain('--retraction');
    expect(line).toContain('--without revoke-writer,unlock-once');
    expect(replayed(line)).toEqual(every);
  });

  it('--draft survives too, with every other field but retraction (refused with it)', () => {
    const { retraction: _refused, ...rest } = every;
    const drafted: Required<Omit<Config, 'retraction'>> = { ...rest, draft: true };
    const line = replayCommand(drafted);
    expect(line).toContain('--draft');
    expect(replayed(line)).toEqual(drafted);
  });

  it('fields at their defaults are left out and still come back', () => {
    for (const config of [incidentConfig('buggy'), incidentConfig('length-fix'), matrixConfig('hardened', ['torn-write'])]) {
      expect(replayed(replayCommand(config))).toEqual(config);
    }
    expect(replayCommand(incidentConfig('buggy'))).toMatch(/ check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3$/);
    expect(replayCommand(incidentConfig('buggy'), [], true)).toMatch(/ --requests 2,3 --faults silent-stub$/);
  });

  it('every model flag counts as a model given, for a trace without its own configuration', () => {
    expect(modelFlagsGiven({})).toBe(false);
    for (const flags of [{ decodeSteps: '2' }, { allocator: 'lifo' }, { eviction: true }, { pageSize: '4' }, { prefixPages: 'sys=2' }, { config: 'c.json' }]) {
      expect(modelFlagsGiven(flags), JSON.stringify(flags)).toBe(true);
    }
  });
});
