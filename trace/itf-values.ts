/**
 * ITF values as Quint writes them: every integer as `{"#bigint": "12"}` (a JSON number
 * cannot hold all of Quint's integers), and an optional value as a variant,
 * `{"tag": "Some", "value": x}` or `{"tag": "None", "value": {"#tup": []}}`. pagecheck
 * writes both that way and reads both ways, since older traces (and Apalache's) use plain
 * numbers and plain values.
 */

/** An integer in ITF. */
export interface ItfBigint {
  /** The integer in decimal. */
  readonly '#bigint': string;
}

/** An optional value in ITF: Quint's `Option` variant. */
export type ItfOption<T> = { readonly tag: 'Some'; readonly value: T } | { readonly tag: 'None'; readonly value: { readonly '#tup': readonly [] } };

/** `T` as written to ITF: numbers become {@link ItfBigint}, the rest keeps its shape. */
export type ItfEncoded<T> = T extends number
  ? ItfBigint
  : T extends readonly (infer E)[]
    ? readonly ItfEncoded<E>[]
    : T extends object
      ? { readonly [K in keyof T]: ItfEncoded<T[K]> }
      : T;

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Whether `x` is `{"#bigint": "..."}` with a decimal integer in it. */
export function isBigint(x: unknown): x is ItfBigint {
  return isRecord(x) && Object.keys(x).length === 1 && typeof x['#bigint'] === 'string' && /^-?\d+$/.test(x['#bigint']);
}

/** `value` with every integer written as Quint writes it. */
export function encodeInts<T>(value: T): ItfEncoded<T> {
  const go = (v: unknown): unknown => {
    if (typeof v === 'number' && Number.isInteger(v)) return { '#bigint': String(v) };
    if (Array.isArray(v)) return v.map(go);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, go(x)]));
    return v;
  };
  return go(value) as ItfEncoded<T>;
}

/** `value` with every `#bigint` that fits a JavaScript number read back as one; a larger one stays as it is, so that a comparison names it. */
export function decodeInts(value: unknown): unknown {
  if (isBigint(value)) {
    const n = Number(value['#bigint']);
    return Number.isSafeInteger(n) ? n : value;
  }
  if (Array.isArray(value)) return value.map(decodeInts);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, decodeInts(x)]));
  return value;
}

/** `Some(value)`, or `None` for `undefined`. */
export function option<T>(value: T | undefined): ItfOption<T> {
  return value === undefined ? { tag: 'None', value: { '#tup': [] } } : { tag: 'Some', value };
}

/** A pick as written: `Some(x)` is `x`, `None` is `undefined`, and a plain value (older traces) is itself. */
export function unwrapOption(x: unknown): unknown {
  if (isRecord(x) && Object.keys(x).length === 2 && 'value' in x && (x['tag'] === 'Some' || x['tag'] === 'None')) {
    return x['tag'] === 'Some' ? x['value'] : undefined;
  }
  return x;
}
