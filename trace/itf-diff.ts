/**
 * The first difference between a recorded ITF value and the one the spec gives, as a path
 * and both values, so that replay can tell the user which field of a hand-edited trace no
 * longer fits: `recorded pages[1].data is "B" but the spec gives "A"`. ITF sets compare
 * without order and ITF maps by key, as the format means them.
 */

/** A JSON value, shown briefly. */
export function showValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** An ITF set's elements, or undefined when `x` is not one. */
function setOf(x: unknown): unknown[] | undefined {
  return isRecord(x) && Array.isArray(x['#set']) ? x['#set'] : undefined;
}

/** An ITF map's entries keyed by their key's JSON, or undefined when `x` is not a well-formed one. */
function mapOf(x: unknown): Map<string, { key: unknown; value: unknown }> | undefined {
  if (!isRecord(x) || !Array.isArray(x['#map'])) return undefined;
  const out = new Map<string, { key: unknown; value: unknown }>();
  for (const entry of x['#map']) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    out.set(JSON.stringify(entry[0]), { key: entry[0], value: entry[1] });
  }
  return out;
}

const keyPath = (path: string, key: unknown): string =>
  `${path}[${typeof key === 'string' && /^\w+$/.test(key) ? key : JSON.stringify(key)}]`;

const fieldPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const sortedJson = (xs: readonly unknown[]): string => JSON.stringify(xs.map((x) => JSON.stringify(x)).sort());

/** The first difference between `recorded` and `expected` under `path`, in words; undefined when they agree. */
export function itfDiff(recorded: unknown, expected: unknown, path = ''): string | undefined {
  const where = path === '' ? 'state' : path;
  const mismatch = `recorded ${where} is ${showValue(recorded)} but the spec gives ${showValue(expected)}`;
  const wantSet = setOf(expected);
  if (wantSet !== undefined) {
    const got = setOf(recorded);
    return got !== undefined && sortedJson(got) === sortedJson(wantSet) ? undefined : mismatch;
  }
  const wantMap = mapOf(expected);
  if (wantMap !== undefined) {
    const got = mapOf(recorded);
    if (got === undefined) return mismatch;
    for (const [k, { key, value }] of wantMap) {
      const entry = got.get(k);
      if (entry === undefined) return `recorded ${where} has no entry ${showValue(key)}; the spec gives ${showValue(value)}`;
      const d = itfDiff(entry.value, value, keyPath(path, key));
      if (d !== undefined) return d;
    }
    for (const [k, { key }] of got) if (!wantMap.has(k)) return `recorded ${where} has an entry ${showValue(key)} that the spec does not have`;
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(recorded)) return mismatch;
    if (recorded.length !== expected.length) {
      return `recorded ${where} has ${recorded.length} entries but the spec gives ${expected.length}: ${showValue(expected)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const d = itfDiff(recorded[i], expected[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isRecord(expected)) {
    if (!isRecord(recorded)) return mismatch;
    for (const [k, value] of Object.entries(expected)) {
      if (!(k in recorded)) return `recorded ${where} has no field ${k}; the spec gives ${showValue(value)}`;
      const d = itfDiff(recorded[k], value, fieldPath(path, k));
      if (d !== undefined) return d;
    }
    for (const k of Object.keys(recorded)) if (!(k in expected)) return `recorded ${where} has a field ${k} that the spec does not have`;
    return undefined;
  }
  return Object.is(recorded, expected) ? undefined : mismatch;
}
