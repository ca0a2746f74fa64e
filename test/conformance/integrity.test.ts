/**
 * validate-log --integrity: a decode that read, at some position, no other request's data
 * but no content written for it there either (a silent stub over pages nobody wrote) breaks
 * `Integrity` at the decode line; without the flag the same log conforms, as `check` leaves
 * `Integrity` out unless it is named. `Isolation` is reported first where both break.
 */
import { describe, expect, it } from 'vitest';
import { pagecheck } from '../support/cli.ts';

const GARBAGE = 'examples/logs/garbage.jsonl';

describe('validate-log --integrity', () => {
  it('a stub over never-written pages: Integrity at the decode line, with the spec trace of four actions', async () => {
    const r = await pagecheck('validate-log', GARBAGE, '--integrity');
    expect(r.code).toBe(1);
    expect(r.out).toContain(`violation of Integrity at ${GARBAGE}:7`);
    expect(r.out).toContain('A read pages 1, 2, never written during its hold: its answer is garbage (nothing leaked).');
    expect(r.out).toContain('actions: allocate(A) stub(A) handoff(A) decode(A)');
  });

  it('without --integrity the same log conforms', async () => {
    const r = await pagecheck('validate-log', GARBAGE, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'conforms', events: 8, requests: 1 });
  });

  it('where a read leaks and reads garbage, Isolation is named (the minimal incident)', async () => {
    const r = await pagecheck('validate-log', 'examples/logs/d.jsonl', 'examples/logs/p.jsonl', '--integrity', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'violation', line: 10, invariant: 'Isolation' });
  });

  it('under length-fix P would refuse the over-long request: the logged stub write is a deviation, before any decode', async () => {
    const r = await pagecheck('validate-log', GARBAGE, '--integrity', '--variant', 'length-fix');
    // The log's posted write and decode are what length-fix forbids: a deviation at the posted line, not a violation.
    expect(r.code).toBe(4);
    expect(r.out).toContain(`deviation at ${GARBAGE}:4`);
  });
});
