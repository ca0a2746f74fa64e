import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-vl-'));
const path = (name: string): string => join(dir, name);
const write = (name: string, lines: readonly string[]): string => {
  writeFileSync(path(name), `${lines.join('\n')}\n`);
  return path(name);
};

/** The early-free race: A times out, its write lands late, maybe after B's write and before B's decode. */
const EARLY_FREE = [
  '{"kind":"config","pages":2,"prefillLimit":2,"variant":"buggy","faults":["silent-stub","early-free"]}',
  '{"kind":"arrive","id":"A","length":2}',
  '{"kind":"allocate","id":"A","pages":[0,1]}',
  '{"kind":"posted","id":"A","pages":[0,1]}',
  '{"kind":"timeout","id":"A"}',
  '{"kind":"arrive","id":"B","length":2}',
  '{"kind":"allocate","id":"B","pages":[0,1]}',
  '{"kind":"posted","id":"B","pages":[0,1]}',
  '{"kind":"done","id":"B"}',
  '{"kind":"handoff","id":"B"}',
  '{"kind":"decode","id":"B","pages":[0,1]}',
  '{"kind":"done","id":"A"}',
  '{"kind":"free","id":"B","pages":[0,1]}',
];

describe('validate-log on the minimal incident (examples/logs)', () => {
  it('joins P and D logs and prints the spec trace of nine actions', async () => {
    const r = await pagecheck('validate-log', 'examples/logs/d.jsonl', 'examples/logs/p.jsonl');
    expect(r.code).toBe(1);
    expect(r.out).toContain('violation of Isolation at examples/logs/d.jsonl:10');
    expect(r.out).toContain('Isolation violated after 9 steps');
    expect(r.out).toContain('actions: allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) handoff(B) decode(B)');
  });

  it('lands the unlogged write of a D-only log before the handoff that needs it', async () => {
    const r = await pagecheck('validate-log', 'examples/logs/d.jsonl', '--json');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { verdict: string; line: number; invariant: string; specTrace: boolean };
    expect(json).toMatchObject({ verdict: 'violation', line: 10, invariant: 'Isolation', specTrace: true });
    expect((JSON.parse(r.out) as { trace: string[] }).trace).toHaveLength(9);
  });

  it('conforms under length-fix when P refuses the over-long request', async () => {
    const log = write('refuse.jsonl', [
      '{"kind":"config","pages":3,"pageSize":64,"prefillLimit":2,"variant":"length-fix"}',
      ...readFileSync('examples/logs/d.jsonl', 'utf8').trim().split('\n').slice(1, 8),
      '{"t":2.2,"side":"P","kind":"refuse","id":"B"}',
      '{"t":3.4,"side":"D","kind":"free","id":"B","pages":[0,1,2]}',
    ]);
    const r = await pagecheck('validate-log', log);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('hidden steps: a late write after an early free', () => {
  it('buggy: some interleaving of the late write leaks, at the decode line', async () => {
    const r = await pagecheck('validate-log', write('ef.jsonl', EARLY_FREE), '--json');
    const json = JSON.parse(r.out) as { verdict: string; line: number; invariant: string; peakStates: number };
    expect(r.code).toBe(1);
    expect(json).toMatchObject({ verdict: 'violation', line: 11, invariant: 'Isolation' });
  });

  it('owner-check: a successful decode and a loud failure both conform, each explained by some landing order', async () => {
    const ok = await pagecheck('validate-log', write('ef-ok.jsonl', EARLY_FREE), '--variant', 'owner-check', '--json');
    const failed = EARLY_FREE.map((l) => l.replace('"kind":"decode","id":"B","pages":[0,1]', '"kind":"fail","id":"B"'));
    const loud = await pagecheck('validate-log', write('ef-fail.jsonl', failed), '--variant', 'owner-check', '--json');
    expect([ok.code, loud.code]).toEqual([0, 0]);
    // Landed before B's allocation, between B's write and its decode, or not yet: three distinct states.
    expect((JSON.parse(ok.out) as { peakStates: number }).peakStates).toBe(3);
  });

  it('buggy: a loud failure is a deviation, and every state says why', async () => {
    const failed = EARLY_FREE.map((l) => l.replace('"kind":"decode","id":"B","pages":[0,1]', '"kind":"fail","id":"B"'));
    const r = await pagecheck('validate-log', write('ef-fail2.jsonl', failed));
    expect(r.code).toBe(4);
    expect(r.out).toContain('ef-fail2.jsonl:11');
    expect(r.out).toContain("possible state 1 refuses it: the spec's decode(B) leaves it decoded; the log says it ended failed");
  });
});

describe('validate-log on the incident replay at real scale', () => {
  let buggy = '';
  let owner = '';
  beforeAll(async () => {
    buggy = path('buggy.jsonl');
    owner = path('owner.jsonl');
    expect((await pagecheck('incident', '--variant', 'buggy', '--seed', '1', '--requests', '2000', '--log', buggy)).code).toBe(1);
    expect((await pagecheck('incident', '--variant', 'owner-check', '--seed', '1', '--requests', '2000', '--log', owner)).code).toBe(0);
  }, 60_000);

  it('buggy: exit 1 at the first leak, with the spec trace of the requests involved, projected onto a few pages', async () => {
    const html = path('leak.html');
    const r = await pagecheck('validate-log', buggy, '--html', html);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/violation of Isolation at .*buggy\.jsonl:147/);
    expect(r.out).toContain("r17 read pages 1, 2, 3, 4, 5, 6, 7, 8, ... 50 pages, which hold r0's data.");
    expect(r.out).toContain("the spec's trace of r0 and r17, projected onto their pages 0, 1, 2, 51 (numbered 0 to 3 below)");
    expect(r.out).toContain('actions: allocate(r0) prefill(r0) handoff(r0) decode(r0) free(r0) allocate(r17) stub(r17) handoff(r17) decode(r17)');
    expect(readFileSync(html, 'utf8')).toContain('Isolation violated after 9 steps');
  }, 30_000);

  it('owner-check: the whole replay conforms', async () => {
    const r = await pagecheck('validate-log', owner, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'conforms', events: 14001, requests: 2000, peakStates: 1 });
  }, 30_000);

  it('an allocation edited to take a page still held breaks ExclusiveHold at that line', async () => {
    const lines = readFileSync(owner, 'utf8').trim().split('\n');
    // r1 is allocated while r0 still holds pages 0..50: give r1 page 0 instead of its first own page.
    const at = lines.findIndex((l) => l.includes('"kind":"allocate","id":"r1"'));
    lines[at] = (lines[at] ?? '').replace(/"pages":\[\[(\d+),(\d+)\]\]/, (_m, a: string, b: string) => `"pages":[0,[${Number(a) + 1},${b}]]`);
    const r = await pagecheck('validate-log', write('held.jsonl', lines));
    expect(r.code).toBe(1);
    expect(r.out).toContain(`violation of ExclusiveHold at ${path('held.jsonl')}:${at + 1}`);
    expect(r.out).toContain('allocate(r1) took page 0, which r0 still holds.');
  }, 30_000);

  it('a log the spec cannot produce (a handoff removed) is a deviation naming the line', async () => {
    const lines = readFileSync(owner, 'utf8').trim().split('\n');
    const at = lines.findIndex((l) => l.includes('"kind":"handoff","id":"r3"'));
    lines.splice(at, 1);
    const decode = lines.findIndex((l) => /"kind":"(decode|fail)","id":"r3"/.test(l));
    const r = await pagecheck('validate-log', write('nohandoff.jsonl', lines));
    expect(r.code).toBe(4);
    expect(r.out).toContain(`deviation at ${path('nohandoff.jsonl')}:${decode + 1}`);
    expect(r.out).toContain('possible state 1 refuses it: decode(r3) is not enabled: r3 is written');
  }, 30_000);
});

describe('allocator orders and the window', () => {
  const log = ['{"kind":"config","pages":4,"prefillLimit":4}', '{"kind":"arrive","id":"A","length":2}', '{"kind":"allocate","id":"A","pages":[1,2]}'];

  it('sorted: pages other than the lowest free ones are a deviation; any: they conform', async () => {
    const sorted = await pagecheck('validate-log', write('order.jsonl', log));
    expect(sorted.code).toBe(4);
    expect(sorted.out).toContain('possible state 1 refuses it: the sorted allocator hands out [0, 1]; the log says [1, 2]');
    const any = await pagecheck('validate-log', write('order.jsonl', log), '--allocator', 'any');
    expect(any.code).toBe(0);
  });

  it('any: an allocation that names a page twice breaks ExclusiveHold', async () => {
    const twice = ['{"kind":"config","pages":4,"prefillLimit":4}', '{"kind":"arrive","id":"A","length":2}', '{"kind":"allocate","id":"A","pages":[3,3]}'];
    const r = await pagecheck('validate-log', write('twice.jsonl', twice), '--allocator', 'any');
    expect(r.code).toBe(1);
    expect(r.out).toContain('allocate(A) took page 3 twice');
  });

  it('more requests in flight than --window: bad input naming the flag', async () => {
    const r = await pagecheck('validate-log', write('window.jsonl', [...log, '{"kind":"arrive","id":"B","length":1}']), '--window', '1', '--allocator', 'any');
    expect([r.code, r.err]).toEqual([2, expect.stringContaining(`${path('window.jsonl')}:4: more than 1 requests are in flight at once; raise --window`)]);
  });

  it('a slot is reused once its request is finished', async () => {
    const lifecycle = (id: string): string[] => [
      `{"kind":"arrive","id":"${id}","length":2}`,
      `{"kind":"allocate","id":"${id}","pages":[0,1]}`,
      `{"kind":"done","id":"${id}"}`,
      `{"kind":"handoff","id":"${id}"}`,
      `{"kind":"decode","id":"${id}","pages":[0,1]}`,
      `{"kind":"free","id":"${id}","pages":[0,1]}`,
    ];
    const lines = ['{"kind":"config","pages":2,"prefillLimit":2}', ...Array.from({ length: 50 }, (_, i) => lifecycle(`q${i}`)).flat()];
    const r = await pagecheck('validate-log', write('reuse.jsonl', lines), '--window', '1', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'conforms', events: 301, requests: 50 });
  });
});

describe('bad input', () => {
  it('a malformed field: exit 2 naming file, line and field', async () => {
    const r = await pagecheck('validate-log', write('bad.jsonl', ['{"kind":"config","pages":3,"prefillLimit":2}', '{"kind":"arrive","id":"A","length":2}', '{"kind":"allocate","id":"A","pages":"0,1"}']));
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${path('bad.jsonl')}:3: pages: expected a list of page ids such as [3, 4, [10, 20]], got "0,1"`);
  });

  it('a line that is not JSON, an unknown kind, a missing model', async () => {
    const notJson = await pagecheck('validate-log', write('nj.jsonl', ['{"kind":"config","pages":3,"prefillLimit":2}', '{"kind":']));
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain(`${path('nj.jsonl')}:2: not valid JSON`);
    const kind = await pagecheck('validate-log', write('kind.jsonl', ['{"kind":"alloc","id":"A"}']));
    expect(kind.err).toContain(`${path('kind.jsonl')}:1: kind: expected one of config, arrive, allocFail, allocate, posted`);
    const size = await pagecheck('validate-log', write('size.jsonl', ['{"kind":"config","pages":3,"prefillLimit":2}', '{"kind":"arrive","id":"A","tokens":100}']));
    expect(size.err).toContain(`${path('size.jsonl')}:2: tokens: an arrival in tokens needs the page size`);
    const none = await pagecheck('validate-log', write('nomodel.jsonl', ['{"kind":"arrive","id":"A","length":2}']));
    expect(none.err).toContain('no model: the log does not begin with a config event');
    const missing = await pagecheck('validate-log', path('does-not-exist.jsonl'));
    expect([missing.code, missing.err]).toEqual([2, expect.stringContaining('cannot read log')]);
  });

  it('flags override the config event, and a bad flag names itself', async () => {
    const r = await pagecheck('validate-log', 'examples/logs/d.jsonl', 'examples/logs/p.jsonl', '--variant', 'owner-check');
    // Under owner-check B's decode fails loudly: the log's successful decode is a deviation.
    expect(r.code).toBe(4);
    const bad = await pagecheck('validate-log', 'examples/logs/d.jsonl', '--allocator', 'fifo');
    expect([bad.code, bad.err]).toEqual([2, expect.stringContaining('--allocator: expected one of sorted, sglang, lifo, any, got "fifo"')]);
  });
});
