/**
 * z3's model of a failed obligation read in the spec's words (`counterexample.ts` tells the
 * story with it): one reader per state variable, each naming elements as the bounded
 * search names them (`p0`, `r1`, `g0`); a model of the unbounded sorts (`Page!val!0`) is
 * renamed the same way.
 */
import type { Model } from 'z3-solver';
import { at, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** How a label is read: as a page's content, its holder, or its owner tag. */
export type LabelRole = 'data' | 'holder' | 'tag';

/** `Page!val!3` → `p3`; bounded names stay as they are. */
function rename(text: string): string {
  return text.replace(/\b(Page|Req|Grp|Slot)!val!(\d+)/g, (_, sort: string, i: string) => `${{ Page: 'p', Req: 'r', Grp: 'g', Slot: 'k' }[sort] ?? '?'}${i}`);
}

/** The values of one z3 model, in the spec's words. */
export class ModelReader {
  /** The model's slots, slot 0 and slot 1 first. */
  readonly slots: Z[];
  private readonly slot0: string;
  private readonly slot1: string;

  constructor(
    readonly v: Vocabulary,
    private readonly model: Model<'main'>,
  ) {
    this.slot0 = this.val(v.slot0);
    this.slot1 = this.val(v.slot1);
    const rank = (name: string): number => (name === this.slot0 ? 0 : name === this.slot1 ? 1 : 2);
    this.slots = this.universe(v.Slot).sort((a, b) => rank(this.val(a)) - rank(this.val(b)));
  }

  /** The value of `t` in the model, as text. */
  val(t: Z): string {
    return rename(this.model.eval(t, true).toString());
  }

  /** Whether formula `t` is true in the model. */
  truth(t: Z): boolean {
    return this.val(t) === 'true';
  }

  /** The elements of `sort`: the bounded universe's, or the model's. */
  universe(sort: Z['sort']): Z[] {
    const known = this.v.elements.get(String(sort.name()));
    if (known !== undefined && known.length > 0) return [...known];
    const u = this.model.sortUniverse(sort);
    return Array.from({ length: u.length() }, (_, i) => u.get(i) as Z);
  }

  /** A slot as people read it: `slot 0`, `slot 1`, or `slot k2`. */
  slotName(k: Z): string {
    return { [this.slot0]: 'slot 0', [this.slot1]: 'slot 1' }[this.val(k)] ?? `slot ${this.val(k)}`;
  }

  /** A label as people read it in its role. */
  label(t: Z, as: LabelRole): string {
    const text = this.val(t);
    if (text === 'none') return { data: 'nothing', holder: 'nobody (free)', tag: 'none' }[as];
    const body = /^\(body (\S+)\)$/.exec(text);
    if (body) return as === 'data' ? `${body[1]}'s data` : `${body[1]}`;
    const prefix = /^\(prefix (\S+) (\S+)\)$/.exec(text);
    if (prefix) {
      // page 0 as the spec names a one-page prefix's; another page with its position
      const pos = this.v.prefixPos(t);
      const page = this.val(pos) === this.slot0 ? `prefix ${prefix[1]}` : `prefix ${prefix[1]}[${this.slotName(pos)}]`;
      return { data: `${page}'s data`, holder: `the cache entry of ${page}`, tag: page }[as];
    }
    return text;
  }

  /** Every label of the model. */
  labels(): Z[] {
    const v = this.v;
    return [v.none, ...this.universe(v.Req).map((q) => v.body(q)), ...this.universe(v.Grp).flatMap((g) => this.slots.map((k) => v.prefix(g, k)))];
  }

  /** Request `q` in state `s`, one line: each of its variables in turn. */
  requestLine(s: ZState, q: Z): string {
    return [
      `request ${this.val(q)}: ${this.val(at(s.phase, q))}`,
      this.lengthOf(s, q),
      `table ${this.tableOf(s, q).join(', ') || 'empty'}`,
      `has read ${this.readSetOf(s, q).join(', ') || 'nothing'}`,
      ...this.recordsOf(s, q),
      ...this.stepsOf(s, q),
    ].join('; ');
  }

  /** Page `p` in state `s`, one line: its holder, its content and the position it was written for, its tag. */
  pageLine(s: ZState, p: Z): string {
    const written = this.val(at(s.data, p)) === 'none' ? '' : ` (for ${this.slotName(at(s.dataPos, p))})`;
    return `page ${this.val(p)}: held by ${this.label(at(s.holder, p), 'holder')}; holds ${this.label(at(s.data, p), 'data')}${written}; tag ${this.label(at(s.tag, p), 'tag')}`;
  }

  /** `len`, `hasPrefix`, `group` and the flags `hit` and `inserted` of `q`. */
  private lengthOf(s: ZState, q: Z): string {
    const v = this.v;
    const flags = [this.truth(at(s.hit, q)) ? 'hit' : '', this.truth(at(s.inserted, q)) ? 'inserted' : ''].filter(Boolean);
    return `length ${this.val(v.len(q))}${this.truth(v.hasPrefix(q)) ? `, prefix ${this.val(v.group(q))}` : ''}${flags.length ? `, prefix pages shared (${flags.join(', ')})` : ''}`;
  }

  /** `table` of `q`: each slot of its length and the page there. */
  private tableOf(s: ZState, q: Z): string[] {
    return this.slots.filter((k) => this.truth(this.v.inTable(q, k))).map((k) => `${this.slotName(k)} → ${this.val(at(s.table, q, k))}`);
  }

  /** `read` of `q`: the labels in its read set. */
  private readSetOf(s: ZState, q: Z): string[] {
    return this.labels()
      .filter((l) => this.truth(at(s.read, q, l)))
      .map((l) => this.label(l, 'data'));
  }

  /** `rec` of `q`: what its decode read at each position, if anything. */
  private recordsOf(s: ZState, q: Z): string[] {
    const v = this.v;
    const records = this.slots
      .filter((k) => this.truth(v.inTable(q, k)) && this.truth(v.isRd(at(s.rec, q, k))))
      .map((k) => `${this.slotName(k)} ${this.label(v.rdLabel(at(s.rec, q, k)), 'data')}${this.truth(v.rdMisplaced(at(s.rec, q, k))) ? ' (written for another position)' : ''}`);
    return records.length ? [`read at ${records.join(', ')}`] : [];
  }

  /** `steps` of `q`, unless none was taken. */
  private stepsOf(s: ZState, q: Z): string[] {
    const steps = this.val(at(s.steps, q));
    return steps !== '0' ? [`${steps} decode steps taken`] : [];
  }
}
