/**
 * One declaration of what each consumer covers (spec/coverage.ts, spec/features.ts), and
 * the refusals derived from it: every feature a consumer does not name is refused, by the
 * library call and by the command, in one line that names the feature's flag. A fault,
 * switch or action the catalogues gain is a feature no declaration names, so these tests
 * hold it to every consumer's refusal with no edit here.
 */
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { addModelOptions, configFromFlags } from '../../cli/model-options.ts';
import { CHECK_DEFAULTS } from '../../cli/search-report.ts';
import { ADAPTER_COVERAGE, ADAPTER_FAULTS, ADAPTER_VARIANTS } from '../../conformance/adapter/index.ts';
import { decodeConfigObject, UNLOGGED_KINDS, VALIDATOR_COVERAGE } from '../../conformance/index.ts';
import { abstractState, PagePool, POOL_COVERAGE, poolOptionsFor } from '../../impl/index.ts';
import { PROOF_COVERAGE } from '../../proofs/coverage.ts';
import { REFERENCE_COVERAGE } from '../../scale/coverage.ts';
import { referenceFor } from '../../scale/to-spec.ts';
import { PROMELA_COVERAGE } from '../../spin/coverage.ts';
import { toPromela } from '../../spin/promela.ts';
import { checksOf, compile, coverage, FEATURES, featuresOf, flagOf, notCoveredLines, partsOf, SWITCH_DOCS, uncoveredIn, type Config, type Coverage, type Feature } from '../../spec/index.ts';

/** The configuration `pagecheck check ARGS` checks. */
function configOf(args: string): Config {
  const cmd = addModelOptions(new Command()).exitOverride();
  cmd.parse(['node', 'pagecheck', ...args.split(' ').filter((a) => a !== '')]);
  return configFromFlags(cmd.opts(), CHECK_DEFAULTS);
}

const CONSUMERS: readonly Coverage[] = [POOL_COVERAGE, REFERENCE_COVERAGE, PROMELA_COVERAGE, PROOF_COVERAGE, VALIDATOR_COVERAGE, ADAPTER_COVERAGE];

/** `text` as a regular expression matches it. */
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The features `c` does not cover. */
const uncovered = (c: Coverage): Feature[] => FEATURES.filter((f) => !c.covers(f));

describe('the vocabulary of features', () => {
  it('every feature has check flags that turn it on in the default configuration', () => {
    const off = FEATURES.filter((f) => !featuresOf(configOf(checksOf(f))).includes(f));
    expect(off).toEqual([]);
  });

  it('a declaration that says what it does instead of a feature it covers is refused', () => {
    expect(() => coverage('x', { variants: ['buggy'], allocators: [], switches: [], faults: [], actions: [], instead: { 'variant:buggy': 'is buggy' } })).toThrow('says what it does instead of variant:buggy, which it covers');
  });
});

describe('every consumer refuses what it does not cover', () => {
  it.each(CONSUMERS.map((c) => [c.consumer, c] as const))('%s: the configuration that checks each such feature is refused', (_name, c) => {
    const accepted = uncovered(c).filter((f) => uncoveredIn(c, configOf(checksOf(f))) === undefined);
    expect(accepted).toEqual([]);
  });

  it('the library calls: toPromela, the scale reference and the pool\'s abstraction throw on each', () => {
    for (const [c, call] of [
      [PROMELA_COVERAGE, (config: Config) => toPromela(config)],
      [REFERENCE_COVERAGE, (config: Config) => referenceFor(compile(config))],
      [POOL_COVERAGE, (config: Config) => abstractState(compile(config), new PagePool(poolOptionsFor(compile(config))))],
    ] as const) {
      for (const f of uncovered(c)) expect(() => call(configOf(checksOf(f))), `${c.consumer}, ${f}`).toThrow(c.consumer);
    }
  });

  it('a feature is taken apart into its kind and name; a bare name is a switch', () => {
    expect([partsOf('fault:early-free'), partsOf('variant:hardened'), partsOf('action:grow'), partsOf('allocator:sglang'), partsOf('tableGrowth')]).toEqual([
      { kind: 'fault', name: 'early-free' },
      { kind: 'variant', name: 'hardened' },
      { kind: 'action', name: 'grow' },
      { kind: 'allocator', name: 'sglang' },
      { kind: 'switch', name: 'tableGrowth' },
    ]);
  });

  it('validate-log refuses every switch it does not follow that a config event turns on by its own field', () => {
    for (const s of uncovered(VALIDATOR_COVERAGE)) {
      const p = partsOf(s);
      const field = p.kind === 'switch' ? SWITCH_DOCS[p.name].field : undefined;
      if (field === undefined) continue;
      const decoded = decodeConfigObject({ pages: 3, prefillLimit: 2, [field]: true });
      expect(decoded._tag === 'Left' && decoded.left.field, s).toBe(field);
    }
    // The actions no log event stands for are exactly those it does not cover.
    expect(Object.keys(UNLOGGED_KINDS).map((k) => `action:${k}`)).toEqual(uncovered(VALIDATOR_COVERAGE).filter((f) => partsOf(f).kind === 'action'));
  });

  it('prove names every feature it does not cover under its verdict', () => {
    const lines = notCoveredLines(PROOF_COVERAGE).join('\n');
    const unnamed = uncovered(PROOF_COVERAGE).filter((f) => {
      const p = partsOf(f);
      return !lines.includes(p.kind === 'switch' ? SWITCH_DOCS[p.name].words : p.name);
    });
    expect(unnamed).toEqual([]);
  });

  it('the adapter protocol draws only what it covers', () => {
    expect(ADAPTER_FAULTS.filter((f) => !ADAPTER_COVERAGE.covers(`fault:${f}`))).toEqual([]);
    expect(ADAPTER_VARIANTS.filter((v) => !ADAPTER_COVERAGE.covers(`variant:${v}`))).toEqual([]);
  });
});

describe('the commands refuse with exit 2, in one line naming the flag', () => {
  let err = '';
  beforeEach(() => {
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
    process.exitCode = undefined;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  /** `pagecheck ...command ARGS`: its exit code and its one error line. */
  const refused = async (command: readonly string[], args: string): Promise<[number, string]> => {
    err = '';
    const code = await main([...command, ...args.split(' ').filter((a) => a !== '')]);
    return [code, err];
  };

  it.each([
    ['mbt', ['mbt'], POOL_COVERAGE],
    ['mbt --adapter', ['mbt', '--adapter', 'never-started'], ADAPTER_COVERAGE],
    ['export promela', ['export', 'promela'], PROMELA_COVERAGE],
  ] as const)('%s', async (_name, command, c) => {
    for (const f of uncovered(c)) {
      const [code, text] = await refused(command, checksOf(f));
      expect([f, code], text).toEqual([f, 2]);
      expect(text).toMatch(new RegExp(`^pagecheck: ${flagOf(uncoveredIn(c, configOf(checksOf(f)))!)}: ${escaped(c.consumer)} [^\\n]*; check it with \`pagecheck check [^\`]*\`\\n$`));
    }
  });

  it('prove --faults', async () => {
    for (const f of uncovered(PROOF_COVERAGE)) {
      const p = partsOf(f);
      if (p.kind !== 'fault') continue;
      const [code, text] = await refused(['prove'], `--faults ${p.name}`);
      expect([f, code]).toEqual([f, 2]);
      expect(text).toMatch(new RegExp(`^pagecheck: --faults: the proof [^\\n]*fault ${p.name}[^\\n]*; check it with \`pagecheck check [^\`]*--faults ${p.name}\`\\n$`));
    }
  });
});
