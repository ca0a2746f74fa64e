/**
 * The wording of the metadata slot's actions (fault `aux-torn`, spec/aux.ts), in both
 * forms, beside trace/wording.ts: which part of the metadata write landed, and what the
 * slot now holds.
 */
import { auxPayloadOf, auxRoomOf } from '../spec/index.ts';
import { dataWords } from './facts.ts';
import type { Phrasing, Told } from './phrasing.ts';

/** A `landRoom` or `landPayload`: the part of the request's metadata write that landed, and the slot's room and payload after it. */
export function landAux(t: Told, kind: 'landRoom' | 'landPayload'): Phrasing {
  const { m, who, label, after } = t;
  const part = kind === 'landRoom' ? 'bootstrap_room' : 'first output token';
  const room = auxRoomOf(m, after);
  const holds = `room ${room === 0 ? '0' : dataWords(m, room)}, token ${dataWords(m, auxPayloadOf(m, after))}`;
  return {
    sentence: `the ${part} part of ${who}'s metadata write lands in D's metadata slot; the slot now holds ${holds}.`,
    messages: [`P->>D: ${label}: ${who}'s ${part} lands in the metadata slot (${holds})`],
  };
}
