/**
 * The log writer's config line (conformance/log-writer.ts, what `incident --log` writes
 * first): the deployment as validate-log reads it back. The events after it are held to
 * the validator end to end by test/incident/serving-log.test.ts and radix-log.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeLine, LogWriter, type LogHeader } from '../../conformance/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-log-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The config line a writer with `header` starts its log with, as written and as decoded. */
function configLine(name: string, header: LogHeader): { json: Record<string, unknown>; decoded: boolean } {
  const path = join(dir, name);
  new LogWriter(path, header).close();
  const text = readFileSync(path, 'utf8').trim();
  return { json: JSON.parse(text) as Record<string, unknown>, decoded: decodeLine(text)._tag === 'Right' };
}

describe('the log writer\'s config line', () => {
  const base = { pages: 16, pageSize: 64, prefillLimit: 10, variant: 'owner-check' } as const;

  it('names the allocation order and the length rule the run used', () => {
    const { json, decoded } = configLine('sglang.jsonl', { ...base, allocator: 'sglang', lengthRule: 'ge' });
    expect(decoded).toBe(true);
    expect([json['allocator'], json['lengthRule'], json['pageSize'], json['prefillLimit']]).toEqual(['sglang', 'ge', 64, 10]);
  });

  it('says sorted, and no length rule, where the run used the defaults', () => {
    const { json, decoded } = configLine('plain.jsonl', base);
    expect(decoded).toBe(true);
    expect([json['allocator'], 'lengthRule' in json, 'tableGrowth' in json, 'radix' in json]).toEqual(['sorted', false, false, false]);
  });

  it('a serving replay with prefixes: growth, retraction, the variant\'s faults and early-free, the radix tree and the longer prefixes', () => {
    const { json } = configLine('serving.jsonl', { ...base, serving: true, prefixLengths: [1, 3] });
    expect([json['tableGrowth'], json['retraction'], json['faults'], json['radix'], json['eviction'], json['prefixPages']]).toEqual([true, true, ['silent-stub', 'early-free'], true, true, { sys1: 3 }]);
  });
});
