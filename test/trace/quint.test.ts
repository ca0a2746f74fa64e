/**
 * ITF both ways with Quint (issue 12, item 6). The fixture is the minimal leak laid out
 * the way Quint 0.33 writes a trace with `--mbt` (its src/itf.ts and the traces in its
 * repository): compact JSON, Quint's own `#meta` (no pagecheck configuration), `vars`
 * listing `mbt::actionTaken` and `mbt::nondetPicks`, state fields in name order, every
 * integer as `{"#bigint": "..."}`, and each pick as an Option variant. It was assembled by
 * hand to those rules, not produced by running Quint. Issue 14's fields (a page's
 * `position`, a request's `steps` and `partsLanded`) were added to it, in the same layout,
 * when issue 14 was merged.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { incidentConfig } from '../../spec/index.ts';
import { decodeInts, encodeInts, formatItf, replayItf, toItf, unwrapOption } from '../../trace/index.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures/quint-0.33-minimal-leak.itf.json');
const quint = (): { '#meta': Record<string, unknown>; vars: string[]; states: Array<Record<string, unknown>> } => JSON.parse(readFileSync(FIXTURE, 'utf8'));

describe('a trace as Quint 0.33 writes it', () => {
  it('replays, given the configuration Quint does not record, to the leak', () => {
    const result = replayItf(quint(), { config: incidentConfig('buggy') });
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });

  it('round-trips: pagecheck writes back the same states and variables', () => {
    const original = quint();
    const result = replayItf(original, { config: incidentConfig('buggy') });
    const written = JSON.parse(formatItf(result.model, result.trace, 'Isolation'));
    // The same values in every state (key order aside), and the same variables.
    expect(written.states).toEqual(original.states);
    expect([...written.vars].sort()).toEqual([...original.vars].sort());
    // ... and what pagecheck wrote replays too, now from its own #meta.config.
    expect(replayItf(written)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });

  it('without a configuration, the refusal says how to give one', () => {
    expect(() => replayItf(quint())).toThrow('#meta.config is missing: give the model configuration (--config FILE or the model flags)');
  });

  it('still reads the plain numbers and plain picks of older traces', () => {
    const result = replayItf(quint(), { config: incidentConfig('buggy') });
    const old = JSON.parse(JSON.stringify(toItf(result.model, result.trace, 'Isolation'), (_k, v: unknown) => decodeInts(v)));
    for (const s of old.states) s['mbt::nondetPicks'] = s['mbt::nondetPicks'].r.tag === 'Some' ? { r: s['mbt::nondetPicks'].r.value } : {};
    old.vars = ['pages', 'requests'];
    expect(old.states[1].pages[0].id).toBe(0);
    expect(replayItf(old)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });
});

describe('ITF values', () => {
  it('integers as #bigint, both ways; one too big for a number stays as written', () => {
    expect(encodeInts({ id: 3, table: [0, 1], name: 'A', hit: false })).toEqual({ id: { '#bigint': '3' }, table: [{ '#bigint': '0' }, { '#bigint': '1' }], name: 'A', hit: false });
    // As in a trace from Quint's own repository: balances as a map of #bigint.
    expect(decodeInts({ '#map': [['alice', { '#bigint': '0' }], ['bob', { '#bigint': '-12' }]] })).toEqual({ '#map': [['alice', 0], ['bob', -12]] });
    expect(decodeInts({ '#bigint': '123456789012345678901234567890' })).toEqual({ '#bigint': '123456789012345678901234567890' });
  });

  it('Option picks: Some is its value, None is nothing, a plain value is itself', () => {
    expect(unwrapOption({ tag: 'Some', value: 'B' })).toBe('B');
    expect(unwrapOption({ tag: 'None', value: { '#tup': [] } })).toBeUndefined();
    expect(unwrapOption('B')).toBe('B');
  });
});
