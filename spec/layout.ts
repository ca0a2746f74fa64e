/**
 * The state layout as one table. A state is a flat byte string (`state.ts`); this table says which variables it holds,
 * in which order, how many of each (the scope), how wide each is, and under which configurations it is there at all.
 * `compile` (`model.ts`) lays the table out for one configuration: the offsets, the widths, the accessors of `state.ts`,
 * the liveness resets (`liveness.ts`) and the symmetry reduction's renaming (`binding/symmetry.ts`) all follow from it,
 * so a new variable is one row here.
 *
 * Widths follow the configuration. A label (a request, a prefix page, nobody), a page id, a table position or a count
 * takes one byte while the configuration's values fit one, and two (little-endian) past that: a label past 255 labels, a
 * page id past 254 pages (all-ones is the empty table slot), a position in a table longer than 256 pages. A read set has
 * a bit per label: 1, 2 or 4 bytes up to 32 labels, then a byte per 8 labels. A read record holds a label and two flags:
 * one byte while labels fit 6 bits, else two (14 bits). The limits (`LAYOUT_LIMITS`) are where two bytes run out;
 * `decode.ts` refuses a configuration past one, naming it.
 *
 * The order of the rows is the byte order, and it is the first model's order with every later variable appended: a
 * configuration of one-byte widths has the layout it always had, so pinned states, fingerprints and traces do not move.
 */
import type { Presence } from './presence.ts';

/** How many of a variable a state holds: one per page, per request, per table position of every request, per prefix, per entry of `lifo`'s free list, or one for D's metadata slot (fault `aux-torn`), or one per request in D's pools of state slots and metadata rows (config `stateSlots`). */
export type Scope = 'page' | 'request' | 'position' | 'prefix' | 'list' | 'slot' | 'pool';

/** What a variable's values are, which decides its width (see {@link widthsOf}). */
export type Kind = 'label' | 'page' | 'position' | 'parts' | 'labelSet' | 'record' | 'byte';

/** How a renaming of requests changes a variable: its values are labels (renamed), it moves with its request (a value, a label set, read records, or labels that are renamed as they move), or it stays. */
export type Moves = 'labels' | 'value' | 'labelSet' | 'readRecord' | 'requestLabels' | 'stays';

/** One row of the layout. */
export interface Variable {
  /** Its name; the accessors of `state.ts` are named after it. */
  readonly name: VariableName;
  /** How many of it there are. */
  readonly scope: Scope;
  /** What its values are (its width follows). */
  readonly kind: Kind;
  /** When it is present; an absent variable takes no bytes and has no field. */
  readonly present: (c: Presence) => boolean;
  /** How a renaming of requests changes it (symmetry). */
  readonly moves: Moves;
  /** Whether it dies with its request's page table (`liveness.ts`): reset to all-ones when the table dies. */
  readonly diesWithTable: boolean;
  /** What it is, in a sentence. */
  readonly doc: string;
}

const always = (): boolean => true;

/** Every state variable, in byte order. */
export const LAYOUT = [
  { name: 'holder', scope: 'page', kind: 'label', present: always, moves: 'labels', diesWithTable: false, doc: 'Who holds the page: nobody (0, free), a request, or a prefix cache entry.' },
  { name: 'data', scope: 'page', kind: 'label', present: always, moves: 'labels', diesWithTable: false, doc: "Whose content the page holds: the last write's label; never cleared." },
  { name: 'tag', scope: 'page', kind: 'label', present: (c) => c.ownerCheck, moves: 'labels', diesWithTable: false, doc: 'The owner tag: the label of every write, cleared by allocate.' },
  // D's one metadata slot (fault `aux-torn`, spec/aux.ts): labels, so among the label fields.
  { name: 'auxHolder', scope: 'slot', kind: 'label', present: (c) => c.aux, moves: 'labels', diesWithTable: false, doc: 'Who holds the metadata slot: nobody (0) or a request, from its allocation to its commit.' },
  { name: 'auxRoom', scope: 'slot', kind: 'label', present: (c) => c.aux, moves: 'labels', diesWithTable: false, doc: "The slot's `bootstrap_room`: 0 (not yet written) or the request whose room landed." },
  { name: 'auxPayload', scope: 'slot', kind: 'label', present: (c) => c.aux, moves: 'labels', diesWithTable: false, doc: "Whose first output token the slot holds: the last payload that landed; never cleared." },
  { name: 'draft', scope: 'page', kind: 'label', present: (c) => c.draft, moves: 'labels', diesWithTable: false, doc: "Whose draft-model KV the page holds (config `draft`, spec/draft.ts): the last draft part's label; never cleared." },
  // D's pools of state slots and metadata rows, one of each per request (config `stateSlots`, spec/state-slots.ts): labels, so among the label fields.
  { name: 'stateHolder', scope: 'pool', kind: 'label', present: (c) => c.stateSlots, moves: 'labels', diesWithTable: false, doc: 'Who holds the state slot: nobody (0) or a request, from its allocation to its release.' },
  { name: 'stateOf', scope: 'pool', kind: 'label', present: (c) => c.stateSlots, moves: 'labels', diesWithTable: false, doc: "Whose recurrent state the slot holds: the last transfer's that wrote it; never cleared." },
  { name: 'metaHolder', scope: 'pool', kind: 'label', present: (c) => c.stateSlots, moves: 'labels', diesWithTable: false, doc: 'Who holds the metadata row: nobody (0) or the request it was last handed to, from its allocation to its commit.' },
  { name: 'metaOf', scope: 'pool', kind: 'label', present: (c) => c.stateSlots, moves: 'labels', diesWithTable: false, doc: "Whose first output token the metadata row holds: the last transfer's that wrote it; never cleared." },
  { name: 'phase', scope: 'request', kind: 'byte', present: always, moves: 'value', diesWithTable: false, doc: "The request's lifecycle phase (`PHASES`)." },
  { name: 'flags', scope: 'request', kind: 'byte', present: always, moves: 'value', diesWithTable: false, doc: 'HIT, INSERTED, READ_UNHELD, EVICTED_FOR.' },
  { name: 'observed', scope: 'request', kind: 'labelSet', present: always, moves: 'labelSet', diesWithTable: false, doc: 'The labels its decode read, bit `label - 1`.' },
  { name: 'table', scope: 'position', kind: 'page', present: always, moves: 'value', diesWithTable: true, doc: 'Its page table: a page id per position, all-ones while empty.' },
  { name: 'dataPos', scope: 'page', kind: 'position', present: always, moves: 'stays', diesWithTable: false, doc: "The table position the page's content was written for." },
  { name: 'steps', scope: 'request', kind: 'byte', present: always, moves: 'value', diesWithTable: false, doc: 'How many decode steps it has taken.' },
  { name: 'dataParts', scope: 'request', kind: 'parts', present: (c) => c.torn, moves: 'value', diesWithTable: false, doc: "How many content parts of P's write have landed." },
  { name: 'tagParts', scope: 'request', kind: 'parts', present: (c) => c.torn && c.ownerCheck, moves: 'value', diesWithTable: false, doc: "How many tag parts of P's write have landed." },
  { name: 'reads', scope: 'position', kind: 'record', present: always, moves: 'readRecord', diesWithTable: false, doc: 'What its decode read at each position (READ, MISPLACED, the label).' },
  { name: 'free', scope: 'page', kind: 'byte', present: (c) => c.freeCopies, moves: 'stays', diesWithTable: false, doc: 'Copies of the page in the free list.' },
  { name: 'release', scope: 'page', kind: 'byte', present: (c) => c.releaseList, moves: 'stays', diesWithTable: false, doc: "Copies of the page in `sglang`'s release list." },
  { name: 'list', scope: 'list', kind: 'byte', present: (c) => c.orderedList, moves: 'stays', diesWithTable: false, doc: "`lifo`'s free list, front first, padded with all-ones." },
  { name: 'lock', scope: 'prefix', kind: 'byte', present: (c) => c.eviction && !c.radix, moves: 'stays', diesWithTable: false, doc: "The prefix entry's lock count." },
  { name: 'fill', scope: 'page', kind: 'byte', present: (c) => c.slots, moves: 'stays', diesWithTable: false, doc: 'How many of its slots, from the first, hold its content.' },
  { name: 'tagFill', scope: 'page', kind: 'byte', present: (c) => c.slots && c.ownerCheck, moves: 'stays', diesWithTable: false, doc: 'How many slots its owner tag says were written.' },
  // The saved copy of a retracted request, per table position: what its page held when the copy read it (spec/retraction.ts).
  { name: 'savedData', scope: 'position', kind: 'label', present: (c) => c.retraction, moves: 'requestLabels', diesWithTable: true, doc: "The saved copy's content label at the position (0: a page never written)." },
  { name: 'savedPos', scope: 'position', kind: 'position', present: (c) => c.retraction, moves: 'value', diesWithTable: true, doc: "The table position the saved content was written for." },
  { name: 'savedTag', scope: 'position', kind: 'label', present: (c) => c.retraction && c.ownerCheck, moves: 'requestLabels', diesWithTable: true, doc: "The owner tag the copy read with the content (restored by the load under `copy-carries-tag`)." },
  { name: 'savedFill', scope: 'position', kind: 'byte', present: (c) => c.retraction && c.slots, moves: 'value', diesWithTable: true, doc: "How many slots of the saved page held its content." },
  { name: 'savedTagFill', scope: 'position', kind: 'byte', present: (c) => c.retraction && c.slots && c.ownerCheck, moves: 'value', diesWithTable: true, doc: "How many slots the saved tag says were written." },
  { name: 'nodeLock', scope: 'page', kind: 'byte', present: (c) => c.radix, moves: 'stays', diesWithTable: false, doc: "The lock_ref of the tree node the page is (a signed byte; 0 while the page is no node)." },
  { name: 'depth', scope: 'request', kind: 'byte', present: (c) => c.radix, moves: 'value', diesWithTable: false, doc: "The depth of its last node: how many leading table positions are tree nodes it locked (SGLang's `last_node`)." },
  { name: 'sourceFreed', scope: 'request', kind: 'byte', present: (c) => c.sourcePages, moves: 'value', diesWithTable: false, doc: "1 while P has freed the source pages of the request's write in flight (`abortSource`); back to 0 when its last content part lands." },
  { name: 'draftPending', scope: 'request', kind: 'byte', present: (c) => c.draft, moves: 'value', diesWithTable: false, doc: "1 while the draft part of the request's write is still to land (`landDraft`)." },
  { name: 'stateIdx', scope: 'request', kind: 'byte', present: (c) => c.stateSlots, moves: 'value', diesWithTable: false, doc: 'The state slot it was given, plus one (0: none yet, or its request has ended).' },
  { name: 'metaIdx', scope: 'request', kind: 'byte', present: (c) => c.stateSlots, moves: 'value', diesWithTable: false, doc: 'The metadata row it was given, plus one (0: none yet, or its commit has read it).' },
  { name: 'hostCopy', scope: 'prefix', kind: 'byte', present: (c) => c.loadback, moves: 'stays', diesWithTable: false, doc: "What the prefix's host slot holds: 0 the prefix's KV, 1 another request's (the copy was evicted and the slot reused)." },
  { name: 'load', scope: 'request', kind: 'byte', present: (c) => c.loadback, moves: 'value', diesWithTable: false, doc: 'Its load back from host memory: 0 none, 1 posted (reading the host copy), 2 landed.' },
] as const satisfies readonly (Omit<Variable, 'name'> & { readonly name: string })[];

/** The name of a state variable. */
export type VariableName = (typeof LAYOUT)[number]['name'];

/** Bytes per value of each kind, for one configuration. */
export type Widths = Readonly<Record<Kind, number>>;

/** The sizes a configuration gives the layout: counts per scope and the largest values stored. */
export interface Sizes {
  /** Page slots (the padding page included). */
  readonly pages: number;
  /** Requests. */
  readonly n: number;
  /** Per request: its table length in pages. */
  readonly len: ArrayLike<number>;
  /** Prefix groups. */
  readonly groups: number;
  /** Entries of `lifo`'s free list. */
  readonly listCap: number;
  /** The highest label stored anywhere (the stale P-side label included). */
  readonly topLabel: number;
  /** Bits of a read set. */
  readonly setBits: number;
}

/** Where two bytes (or a read record's 14 label bits) run out; a configuration past one is refused (`decode.ts`). */
export const LAYOUT_LIMITS = {
  maxPageId: 0xfffe, // page ids are two bytes, all-ones being the empty table slot
  maxLabel: 0x3fff, // a read record holds a label in 14 bits
  maxTableLength: 0xffff, // a table position (and a count of landed parts) is two bytes
} as const;

/** The width of each kind for one configuration. */
export function widthsOf(z: Sizes): Widths {
  let longest = 0;
  for (let r = 0; r < z.n; r++) longest = Math.max(longest, z.len[r] ?? 0);
  const s = z.setBits;
  return {
    label: z.topLabel <= 0xff ? 1 : 2,
    page: z.pages <= 254 ? 1 : 2,
    position: longest <= 0x100 ? 1 : 2, // positions 0 .. longest-1
    parts: longest <= 0xff ? 1 : 2, // counts 0 .. longest
    labelSet: s <= 8 ? 1 : s <= 16 ? 2 : s <= 32 ? 4 : Math.ceil(s / 8),
    record: z.topLabel <= 0x3f ? 1 : 2, // labels in 6 bits below READ and MISPLACED, else 14
    byte: 1,
  };
}

/** One present variable laid out: where its element `k` (a page, a request, a prefix, a list entry) begins, and how wide an element is. */
export interface Field {
  /** Its name. */
  readonly name: VariableName;
  /** Its row. */
  readonly row: Variable;
  /** Offset of its first byte. */
  readonly at: number;
  /** Bytes per value. */
  readonly width: number;
  /** Bytes it takes in all. */
  readonly bytes: number;
  /** Per-position variables only: per request, the offset of its first position. */
  readonly starts?: Uint32Array;
}

/** A configuration's layout: its present fields by name and the state's length. */
export interface Laid {
  /** The present variables, by name; an absent one has no entry. */
  readonly fields: Readonly<Partial<Record<VariableName, Field>>>;
  /** The present variables in byte order. */
  readonly order: readonly Field[];
  /** The present per-position variables that die with their request's page table (`liveness.ts` resets them). */
  readonly dying: readonly Field[];
  /** The widths of each kind. */
  readonly widths: Widths;
  /** The state's length in bytes. */
  readonly size: number;
}

/** Lays the table out for one configuration. */
export function layOut(c: Presence, z: Sizes): Laid {
  const widths = widthsOf(z);
  const fields: Partial<Record<VariableName, Field>> = {};
  const order: Field[] = [];
  let at = 0;
  for (const row of LAYOUT as readonly Variable[]) {
    if (!row.present(c)) continue;
    const width = widths[row.kind];
    let field: Field;
    if (row.scope === 'position') {
      const starts = new Uint32Array(z.n);
      let bytes = 0;
      for (let r = 0; r < z.n; r++) {
        starts[r] = at + bytes;
        bytes += width * (z.len[r] ?? 0);
      }
      field = { name: row.name, row, at, width, bytes, starts };
    } else {
      const count = row.scope === 'page' ? z.pages : row.scope === 'request' ? z.n : row.scope === 'prefix' ? z.groups : row.scope === 'slot' ? 1 : row.scope === 'pool' ? z.n : z.listCap;
      field = { name: row.name, row, at, width, bytes: width * count };
    }
    fields[row.name] = field;
    order.push(field);
    at += field.bytes;
  }
  const dying = order.filter((f) => f.row.diesWithTable);
  for (const f of dying) if (f.starts === undefined) throw new Error(`layout: ${f.name} dies with the table but is not per position`);
  return { fields, order, dying, widths, size: at };
}

/** The field of a variable that must be present; an error names it when it is not (a reader of an absent variable is a bug). */
export function requireField(laid: Laid, name: VariableName): Field {
  const f = laid.fields[name];
  if (f === undefined) throw new Error(`layout: state variable ${name} is absent under this configuration`);
  return f;
}

/**
 * A per-request variable of the state, as a renaming of requests moves it: request `r`'s
 * bytes `at[r] .. at[r]+width[r]` go to the renamed request's place. A `value` is copied
 * as it is (a phase, flags, page ids); a `labelSet` is a little-endian set (of its width, up to 32 bits) of
 * content labels (bit `label - 1`), whose request bits are renamed too; a `readRecord`
 * byte holds a label in its low bits (`READ_LABEL` in `state.ts`), renamed too, and flags
 * above them. Every per-request variable is listed here, in the order the symmetry key
 * compares them: a new variable registered here is permuted, and compared, with no other change.
 */
export interface RequestField {
  /** The variable's name. */
  readonly name: string;
  /** How its bytes change under a renaming. */
  readonly kind: 'value' | 'labelSet' | 'readRecord' | 'requestLabels';
  /** Per request: its offset in the state. */
  readonly at: Uint32Array;
  /** Per request: its width in bytes. */
  readonly width: Uint16Array;
  /** Bytes per value (a page id, a read record) within the field. */
  readonly valueWidth: number;
}

/** Symmetry's renaming table: every per-request and per-position variable that moves with its request, in byte order. */
export function requestFieldsOf(laid: Laid, n: number): RequestField[] {
  const out: RequestField[] = [];
  for (const f of laid.order) {
    const kind = f.row.moves;
    if (kind !== 'value' && kind !== 'labelSet' && kind !== 'readRecord' && kind !== 'requestLabels') continue;
    const starts = f.starts;
    const at = Uint32Array.from({ length: n }, (_, r) => (starts === undefined ? f.at + f.width * r : starts[r]!));
    const end = (r: number): number => (r + 1 < n ? starts![r + 1]! : f.at + f.bytes);
    const width = Uint16Array.from({ length: n }, (_, r) => (starts === undefined ? f.width : end(r) - starts[r]!));
    out.push({ name: f.name, kind, at, width, valueWidth: f.width });
  }
  return out;
}

/** The bytes `[0, labelBytes)` hold labels only: the label fields come first and are contiguous (the table's order says so; checked here). */
export function labelBytesOf(laid: Laid): number {
  let end = 0;
  for (const f of laid.order) {
    if (f.row.moves !== 'labels') continue;
    if (f.at !== end) throw new Error(`layout: label field ${f.name} does not follow the label fields before it`);
    end += f.bytes;
  }
  return end;
}
