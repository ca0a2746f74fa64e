/**
 * Rough edges of issue 28 (item 9), one test each: a `--faults` value the validator does
 * not check is blamed on the flag, `--help` lists only what a command accepts, defaults
 * print as numbers, counts of one are singular, and the HTML report opens at the
 * violation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/main.ts';
import { VALIDATOR_FAULTS } from '../../conformance/index.ts';
import { compile, FAULTS, incidentConfig, run, parseAction } from '../../spec/index.ts';
import { formatHtml } from '../../trace/index.ts';
import { REPORT_JS } from '../../trace/html-assets.ts';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-rough-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('validate-log --faults', () => {
  it('a fault the validator does not check is blamed on the flag, not on a line of the log', async () => {
    const r = await pagecheck('validate-log', 'examples/logs/d.jsonl', '--faults', 'auto-truncate');
    expect([r.code, r.err]).toEqual([2, `pagecheck: --faults: validate-log does not check logs with auto-truncate yet; it checks ${VALIDATOR_FAULTS.join(', ')} (or none)\n`]);
  });

  it('--help lists only the faults it accepts', async () => {
    const program = await buildProgram('validate-log');
    const faults = program.commands[0]!.options.find((o) => o.long === '--faults')!;
    const refused = FAULTS.filter((f) => !VALIDATOR_FAULTS.includes(f));
    expect(refused.length).toBeGreaterThan(0);
    for (const f of refused) expect(faults.description).not.toContain(f);
    for (const f of VALIDATOR_FAULTS) expect(faults.description).toContain(f);
  });
});

describe('--help of every command', () => {
  it('prints no default as a quoted number ("128")', async () => {
    const program = await buildProgram();
    const quoted = program.commands.flatMap((c) => c.options.filter((o) => typeof o.defaultValue === 'string' && /^\d+$/.test(o.defaultValue)).map((o) => `${c.name()} ${o.long}`));
    expect(quoted).toEqual([]);
    const help = program.commands.find((c) => c.name() === 'validate-log')!.helpInformation();
    expect(help.replace(/\s+/g, ' ')).toContain('the most requests in flight at once (default 128)');
  }, 60_000);
});

describe('counts of one', () => {
  it('incident and validate-log: "1 request"', async () => {
    const one = await pagecheck('incident', '--requests', '1', '--log', join(dir, 'one.jsonl'));
    expect(one.out).toContain(', 1 request, up to');
    const text = await pagecheck('validate-log', join(dir, 'one.jsonl'));
    expect(text.out).toMatch(/^pagecheck validate-log: \d+ events, 1 request, from /);
  });
});

/** A DOM just large enough for the report's script; records the address it sets. */
function fakeDocument(data: string): { document: unknown; history: { replaceState: (a: unknown, b: unknown, url: string) => void }; shown: string[] } {
  const shown: string[] = [];
  const element = (): Record<string, unknown> => {
    const e: Record<string, unknown> = {
      style: { setProperty: () => undefined },
      dataset: {},
      appendChild: () => undefined,
      replaceChildren: () => undefined,
      setAttribute: () => undefined,
      removeAttribute: () => undefined,
      scrollIntoView: () => undefined,
      addEventListener: () => undefined,
    };
    return e;
  };
  const byId = new Map<string, Record<string, unknown>>();
  const document = {
    getElementById: (id: string) => {
      if (!byId.has(id)) byId.set(id, { ...element(), ...(id === 'trace-data' ? { textContent: data } : {}) });
      return byId.get(id);
    },
    createElement: () => element(),
    addEventListener: () => undefined,
  };
  return { document, history: { replaceState: (_a, _b, url) => void shown.push(url) }, shown };
}

describe('the HTML report', () => {
  const m = compile(incidentConfig('buggy'));
  const labels = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)'];
  const replayed = run(m, labels.map((l) => parseAction(m, l)!));
  if (!('trace' in replayed)) throw new Error('the minimal incident no longer replays');
  const trace = replayed.trace;

  /** The address the report's script opens at, for a report of `violation` (and an address `hash`). */
  function opensAt(violation: string | undefined, hash = ''): string | undefined {
    const html = formatHtml(m, trace, violation);
    const data = /<script type="application\/json" id="trace-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '';
    const fake = fakeDocument(data);
    runInNewContext(REPORT_JS, { document: fake.document, history: fake.history, location: { hash } });
    return fake.shown.at(-1);
  }

  it('opens at the violating state, not at state 0', () => {
    expect(opensAt('Isolation')).toBe('#step-9');
  });

  it('opens at state 0 without a violation, and where the address says when it names a step', () => {
    expect(opensAt(undefined)).toBe('#step-0');
    expect(opensAt('Isolation', '#step-3')).toBe('#step-3');
  });
});
