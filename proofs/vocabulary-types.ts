/**
 * The shape of the z3 encoding's vocabulary (`vocabulary.ts` builds it): the term types,
 * one state as a record of arrays, the sizes of a bounded universe, and the sorts,
 * constructors and rigid symbols of one z3 context.
 */
import type { Arith, Bool, Context, Expr, SMTArray, Sort } from 'z3-solver';
import type { Phase } from '../spec/index.ts';

/** A z3 expression of the encoding. */
export type Z = Expr<'main'>;
/** A z3 formula. */
export type F = Bool<'main'>;
/** A z3 integer term. */
export type N = Arith<'main'>;
/** A z3 array: a state variable. */
export type Arr = SMTArray<'main'>;

/** One state: every variable of `state.ts` that the proofs need, as an array. */
export interface ZState {
  /** Page → Label: who holds the page (none, a request, or a prefix's cache entry). */
  readonly holder: Arr;
  /** Page → Label: whose content the page holds. */
  readonly data: Arr;
  /** Page → Label: the owner tag. */
  readonly tag: Arr;
  /** Req → Phase. */
  readonly phase: Arr;
  /** Req → Bool: allocated on its prefix's cached page (flag HIT). */
  readonly hit: Arr;
  /** Req → Bool: its first page was inserted into the prefix cache (flag INSERTED). */
  readonly inserted: Arr;
  /** Req × Label → Bool: the read set. */
  readonly read: Arr;
  /** Req × Slot → Page: the page table; the slots that count are those `inTable` says. */
  readonly table: Arr;
  /** Page → Slot: the table position the page's content was written for (meaningless while it holds nothing). */
  readonly dataPos: Arr;
  /** Req → Int: the decode steps taken. */
  readonly steps: Arr;
  /** Req × Slot → Rec: the read record, what decode read at each position (`spec/reads.ts`). */
  readonly rec: Arr;
  /** Req × Slot → Bool: the content part of r's write for this slot has landed (fault `torn-write`; meaningful while writing or landing). */
  readonly dataLanded: Arr;
  /** Req × Slot → Bool: the tag part of r's write for this slot has landed (likewise). */
  readonly tagLanded: Arr;
  /**
   * Page → Int: the page's copies on the free list (fault `double-free`, where it is a
   * multiset). Absent without the fault: the free list is then the set of pages nobody
   * holds, as `holder` says.
   */
  readonly free?: Arr;
}

/** Sizes of a bounded universe: the finite sorts used to search for counterexamples fast. */
export interface Bounds {
  /** Number of pages. */
  readonly pages: number;
  /** Number of requests. */
  readonly requests: number;
  /** Number of prefix groups. */
  readonly groups: number;
  /** Number of page-table slots (at least 2). */
  readonly slots: number;
}

/** Sorts, constructors and rigid symbols, built once per z3 context. */
export interface Vocabulary {
  /** The z3 context everything lives in. */
  readonly ctx: Context<'main'>;
  /** Set for a bounded universe: then every quantifier is expanded over the elements. */
  readonly bounds?: Bounds;
  /** The sort of pages. */
  readonly Page: Sort<'main'>;
  /** The sort of requests. */
  readonly Req: Sort<'main'>;
  /** The sort of prefix groups. */
  readonly Grp: Sort<'main'>;
  /** The sort of page-table slots. */
  readonly Slot: Sort<'main'>;
  /** Slot 0: a table's first position, always one of its prefix's. */
  readonly slot0: Z;
  /** Slot 1: a table's second position. */
  readonly slot1: Z;
  /** Whether slot `k` is one of prefix group `g`'s positions (`k < plen(g)`). */
  readonly inPrefix: (g: Z, k: Z) => F;
  /** Prefix group `g`'s first position past its pages (`plen(g)`): where a stub writes when the prefix is shared. */
  readonly firstOwn: (g: Z) => Z;
  /** Whether slot `k` is below request `r`'s length (`k < len(r)`). */
  readonly inTable: (r: Z, k: Z) => F;
  /** The label datatype. */
  readonly Label: Sort<'main'>;
  /** The phase datatype, one constructor per spec phase. */
  readonly Phase: Sort<'main'>;
  /** The read-record datatype: `unread | rd(label, misplaced)`. */
  readonly Rec: Sort<'main'>;
  /** Record `unread`. */
  readonly unread: Z;
  /** Record `rd(l, misplaced)`: label `l` read, written for another position when `misplaced`. */
  readonly rd: (l: Z, misplaced: F) => Z;
  /** Whether a record is some `rd(...)`. */
  readonly isRd: (x: Z) => F;
  /** The label of a record `rd(l, _)`. */
  readonly rdLabel: (x: Z) => Z;
  /** The misplaced flag of a record `rd(_, m)`. */
  readonly rdMisplaced: (x: Z) => F;
  /** A request's last table position (where a decode step writes its token). */
  readonly last: (r: Z) => Z;
  /** How many decode steps a request takes. */
  readonly decodeSteps: N;
  /** Label `none`: no data, no tag, free. */
  readonly none: Z;
  /** Label `body(r)`. */
  readonly body: (r: Z) => Z;
  /** Label `prefix(g, k)`: page `k` of prefix group `g`'s data. */
  readonly prefix: (g: Z, k: Z) => Z;
  /** Whether a label is some `prefix(g, k)`. */
  readonly isPrefix: (l: Z) => F;
  /** The group of a label `prefix(g, k)`. */
  readonly prefixGrp: (l: Z) => Z;
  /** The page (position) of a label `prefix(g, k)`. */
  readonly prefixPos: (l: Z) => Z;
  /** The phase constant of that name. */
  readonly ph: (p: Phase) => Z;
  /** A request's length in pages. */
  readonly len: (r: Z) => N;
  /** Whether a request has a prompt prefix. */
  readonly hasPrefix: (r: Z) => F;
  /** A request's prefix group (meaningful when it has one). */
  readonly group: (r: Z) => Z;
  /** P's prefill limit. */
  readonly limit: N;
  /** The elements of each finite sort, by sort name (bounded universes only). */
  readonly elements: ReadonlyMap<string, readonly Z[]>;
  /**
   * What the slots and the configuration's validation guarantee: slots 0 and 1 differ,
   * every request has slot 0 and a length of at least 1, it has slot 1 exactly when its
   * length is at least 2, which a request with a prefix is; every prefix has slot 0, and
   * a request with a prefix covers the prefix's slots and its first own slot, at which or
   * past which its last slot lies; and the limit is not negative.
   */
  readonly axioms: readonly F[];
}
