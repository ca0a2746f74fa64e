import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { merged } from './record-costs.ts';
import { byCost, COSTS_FILE, readCosts } from './sequencer.ts';

const files = (...specs: [string, boolean][]) => specs.map(([file, isolate]) => ({ file, isolate }));

describe('the suite starts its costliest files first', () => {
  it('isolated before shared, unknown first, then by cost; ties keep their order', () => {
    const order = byCost(
      files(['fast-a', false], ['heavy-small', true], ['fast-big', false], ['heavy-new', true], ['heavy-big', true], ['fast-new', false], ['heavy-tie', true]),
      { 'fast-a': 2, 'heavy-small': 10, 'fast-big': 17, 'heavy-big': 120, 'heavy-tie': 10 },
    );
    expect(order.map((f) => f.file)).toEqual(['heavy-new', 'heavy-big', 'heavy-small', 'heavy-tie', 'fast-new', 'fast-big', 'fast-a']);
  });

  it('reads no costs from a missing or broken file, so the order falls back to the glob order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-costs-'));
    expect(readCosts(join(dir, 'none.json'))).toEqual({});
    writeFileSync(join(dir, 'bad.json'), '{');
    expect(readCosts(join(dir, 'bad.json'))).toEqual({});
    expect(byCost(files(['b', true], ['a', true]), {}).map((f) => f.file)).toEqual(['b', 'a']);
  });

  it('records a log: whole CPU seconds with the children, at least 1; old entries kept; gone files dropped', () => {
    const log = ['{"file":"x.test.ts","cpuMs":1400,"childCpuMs":2700,"wallMs":9}', '{"file":"y.test.ts","cpuMs":30,"childCpuMs":0,"wallMs":1}', ''].join('\n');
    expect(merged({ 'old.test.ts': 5, 'gone.test.ts': 9, 'x.test.ts': 1 }, log, (f) => f !== 'gone.test.ts')).toEqual({ 'old.test.ts': 5, 'x.test.ts': 4, 'y.test.ts': 1 });
  });

  it('costs.json names only test files that exist, and nearly every one of them', () => {
    const costs = readCosts(COSTS_FILE);
    const root = join(COSTS_FILE, '../../..');
    expect(Object.keys(costs).filter((f) => !existsSync(join(root, f)))).toEqual([]);
    const tests = execFileSync('git', ['ls-files', 'test'], { cwd: root, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.test.ts'));
    // a file added since the last recording runs first of its tier (sequencer.ts); re-record when many are new
    const unrecorded = tests.filter((f) => costs[f] === undefined);
    expect(unrecorded.length, `not in test/support/costs.json: ${unrecorded.join(', ')}; record with test/support/record-costs.ts`).toBeLessThanOrEqual(15);
  });
});
