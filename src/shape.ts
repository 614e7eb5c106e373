// Shapes and their caps, shared by every layer: the most dimensions a tensor may have, outputs a
// split may make and strings a tensor may hold; a shape's product and its row-major strides.

/** Most dimensions a shape may have. */
export const MAX_RANK = 64;
/** Most outputs one split may have (checked before anything is allocated: TOO_LARGE). */
export const MAX_OUTPUTS = 65536;
/** Most elements of a string tensor (strings are split on the CPU, one JS string each). */
export const MAX_STRINGS = 1 << 24;

/** The product of some dimensions (1 for none). */
export function product(xs: readonly number[]): number {
  let p = 1;
  for (let i = 0; i < xs.length; i++) p *= xs[i]!;
  return p;
}

/** Row-major element strides of a shape: each dimension's stride is the product of those after it. */
export function rowMajorStrides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  for (let k = shape.length - 1, acc = 1; k >= 0; k--) [out[k], acc] = [acc, acc * shape[k]!];
  return out;
}

/** Whether `a` (a caller's array, each entry read once) holds the numbers of `b`, element by element. */
export function sameList(a: unknown, b: readonly number[]): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || a.length !== b.length) return false;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
