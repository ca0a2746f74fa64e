import { describe, expect, it } from 'vitest';
import { ACTION_KINDS } from '../../spec/index.ts';
import { EVENT_KINDS, EVENT_TABLE, UNLOGGED_KINDS, WRITE_KINDS } from '../../conformance/index.ts';
import { pagecheck } from '../support/cli.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the one table from log events to spec actions', () => {
  it('has a rule for every event kind', () => {
    expect(Object.keys(EVENT_TABLE).sort()).toEqual([...EVENT_KINDS].sort());
  });

  it('reaches every action of the spec, logged or hidden: a new action must be given its event here', () => {
    const reached = new Set<string>();
    for (const rule of Object.values(EVENT_TABLE)) {
      if (rule.role !== 'action') continue;
      reached.add(rule.action);
      for (const k of rule.opens ?? []) reached.add(k);
    }
    // An action no event stands for is listed, with its reason, among the unlogged: never left out silently.
    for (const k of Object.keys(UNLOGGED_KINDS)) {
      expect(reached.has(k)).toBe(false);
      reached.add(k);
    }
    expect([...reached].sort()).toEqual([...ACTION_KINDS].sort());
    expect(WRITE_KINDS).toEqual(['prefill', 'stub']);
  });
});

describe('events beyond the first decode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-table-'));
  const base = ['{"kind":"config","pages":2,"prefillLimit":2}', '{"kind":"arrive","id":"A","length":2}', '{"kind":"allocate","id":"A","pages":[0,1]}', '{"kind":"done","id":"A"}', '{"kind":"handoff","id":"A"}'];
  const run = async (name: string, lines: string[]): Promise<{ code: number; out: string }> => {
    const file = join(dir, name);
    writeFileSync(file, `${[...base, ...lines].join('\n')}\n`);
    return pagecheck('validate-log', file);
  };

  it('later decode steps read the same table again', async () => {
    const ok = await run('steps.jsonl', ['{"kind":"decode","id":"A","pages":[0,1],"step":0}', '{"kind":"decode","id":"A","pages":[0,1],"step":1}', '{"kind":"decode","id":"A","step":2}', '{"kind":"free","id":"A","pages":[1,0]}']);
    expect(ok.code).toBe(0);
    const wrong = await run('steps-bad.jsonl', ['{"kind":"decode","id":"A","pages":[0,1]}', '{"kind":"decode","id":"A","pages":[1,0],"step":1}']);
    expect(wrong.code).toBe(4);
    expect(wrong.out).toContain("A's page table is [0, 1]; the log says it read [1, 0]");
  });

  it('evict without eviction in the model: a deviation, because the spec does not enable it', async () => {
    const r = await run('evict.jsonl', ['{"kind":"evict","id":"A","pages":[0]}']);
    expect(r.code).toBe(4);
    expect(r.out).toContain('evict');
  });
});
