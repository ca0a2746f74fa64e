/**
 * Read sets under a renaming of requests (`symmetry.ts`): a read set is a little-endian
 * bit set of labels, request `r` at bit `r` (label `r + 1`), of the width the layout gives
 * it (`spec/layout.ts`: 1, 2 or 4 bytes, then a byte per 8 labels). A renaming moves each
 * request's set to its new place and renames the request bits in it; prefix bits stay.
 */
import type { RequestField } from '../spec/layout.ts';
import type { State } from '../spec/state.ts';

/** Moves each request's label set of `field` to its renamed place, renaming the request bits in it. */
export function moveLabelSets(field: RequestField, s: State, out: Uint8Array, perm: Int32Array, n: number): void {
  if (field.valueWidth > 4 || n > 31) return moveWideLabelSets(field, s, out, perm, n);
  const low = (1 << n) - 1;
  for (let r = 0; r < n; r++) {
    const bits = readBits(s, field.at[r]!, field.width[r]!);
    let moved = bits & ~low;
    for (let rest = bits & low; rest !== 0; rest &= rest - 1) {
      const b = 31 - Math.clz32(rest & -rest);
      moved |= 1 << perm[b]!;
    }
    const o = field.at[perm[r]!]!;
    const width = field.width[r]!;
    for (let k = 0; k < width; k++) out[o + k] = (moved >>> (8 * k)) & 0xff;
  }
}

/** {@link moveLabelSets} for a set wider than 32 bits: bit by bit over its bytes. */
function moveWideLabelSets(field: RequestField, s: State, out: Uint8Array, perm: Int32Array, n: number): void {
  const width = field.valueWidth;
  for (let r = 0; r < n; r++) {
    const from = field.at[r]!;
    const to = field.at[perm[r]!]!;
    // Prefix bits (n and above) stay; request bits move to the renamed request's bit.
    for (let k = 0; k < width; k++) out[to + k] = s[from + k]! & (8 * k >= n ? 0xff : 8 * k + 8 <= n ? 0 : (0xff << (n - 8 * k)) & 0xff);
    for (let b = 0; b < n; b++) {
      if (((s[from + (b >>> 3)]! >>> (b & 7)) & 1) === 0) continue;
      const q = perm[b]!;
      out[to + (q >>> 3)] = out[to + (q >>> 3)]! | (1 << (q & 7));
    }
  }
}

/** Compares the bits from `n` up of the little-endian sets at `a` and `b` (`width` bytes each), as numbers: the higher set bit decides. */
export function compareHighBits(s: State, a: number, b: number, width: number, n: number): number {
  if (width <= 4 && n <= 31) return (readBits(s, a, width) >>> n) - (readBits(s, b, width) >>> n);
  for (let k = width - 1; k >= 0 && 8 * k + 8 > n; k--) {
    const mask = 8 * k >= n ? 0xff : (0xff << (n - 8 * k)) & 0xff;
    const d = (s[a + k]! & mask) - (s[b + k]! & mask);
    if (d !== 0) return d;
  }
  return 0;
}

/** The little-endian unsigned integer of `width` bytes (at most 4) at `o`. */
function readBits(s: Uint8Array, o: number, width: number): number {
  let bits = 0;
  for (let k = 0; k < width; k++) bits |= s[o + k]! << (8 * k);
  return bits >>> 0;
}
