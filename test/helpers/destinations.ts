// Destinations for `into` and their oracle, free of vitest and of src/ at run time (the conformance
// suite runs them under Deno too). The oracle is the tests' own: the reference split's output bits
// scattered element by element to offset + Σ index·stride over the buffer's previous bytes, so
// every byte a destination does not own must come back unchanged (row gaps, word tails, neighbours).

import { int } from './cases.js';
import { REF_TYPES, TENSOR_USAGE, numel } from './dtypes.js';

/** Bits per element from the tests' own table. */
export const widthOf = (d: string) => REF_TYPES[d as keyof typeof REF_TYPES].bits;

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** Row-major element strides of a shape. */
export const rowMajor = (shape: readonly number[]) => shape.map((_, k) => numel(shape.slice(k + 1)));

/**
 * The oracle: `before` with the output's elements (row-major bits in `out`) written at byteOffset
 * + Σ index·stride elements. uint1 numbers its bits from bit 7 of each byte.
 */
export function scatter(
  before: Uint8Array,
  out: Uint8Array,
  dtype: string,
  shape: readonly number[],
  byteOffset: number,
  strides: readonly number[],
): Uint8Array {
  const w = widthOf(dtype);
  const msb = dtype === 'uint1';
  const bit = (k: number) => [Math.floor(k / 8), msb ? 7 - (k % 8) : k % 8] as const;
  const after = before.slice();
  const n = numel(shape);
  for (let e = 0; e < n; e++) {
    let [q, off] = [e, 0];
    for (let k = shape.length - 1; k >= 0; k--) {
      off += (q % shape[k]!) * strides[k]!;
      q = Math.floor(q / shape[k]!);
    }
    for (let b = 0; b < w; b++) {
      const [sb, ss] = bit(e * w + b);
      const [db, ds] = bit(byteOffset * 8 + off * w + b);
      after[db] = (after[db]! & ~(1 << ds)) | (((out[sb]! >> ss) & 1) << ds);
    }
  }
  return after;
}

/** A buffer of the caller's, usage STORAGE | COPY_SRC | COPY_DST, holding `bytes`. */
export function bufferOf(device: GPUDevice, bytes: Uint8Array, usage = TENSOR_USAGE): GPUBuffer {
  const b = device.createBuffer({ size: Math.max(4, Math.ceil(bytes.length / 4) * 4), usage });
  device.queue.writeBuffer(b, 0, bytes);
  return b;
}

/** Random bytes, n rounded up to whole 4-byte words. */
export const noise = (n: number, next: () => number) =>
  Uint8Array.from({ length: Math.ceil(n / 4) * 4 }, () => int(next, 0, 255));

/** A destination before its buffer exists: `target` says which of the two buffers holds it. */
export interface Destination {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly byteOffset: number;
  readonly strides: readonly number[];
  readonly target: 0 | 1;
}

/**
 * Destinations for a split of `shape` along `axis` into `sizes`, about 70% of the outputs: each a
 * window of a larger tensor (padding on every dimension) in one of two buffers, at a random 4-byte
 * offset, its dimensions in a random order in memory for word types; byte and packed types keep
 * the innermost dimension contiguous and rows on 4-byte boundaries, as the bit path requires.
 * `bytes` is how much of each buffer they use.
 */
export function randomDestinations(
  next: () => number,
  dtype: string,
  shape: readonly number[],
  axis: number,
  sizes: readonly number[],
): { readonly dests: (Destination | undefined)[]; readonly bytes: readonly [number, number] } {
  const w = widthOf(dtype);
  const rank = shape.length;
  const used: [number, number] = [0, 0];
  const dests = sizes.map((s): Destination | undefined => {
    if (next() < 0.3) return undefined;
    const dims = shape.map((n, k) => (k === axis ? s : n));
    const padded = dims.map((n) => n + int(next, 0, 2));
    const order = dims.map((_, k) => k);
    if (w >= 32) order.sort(() => next() - 0.5);
    // Strides in the padded tensor, `order` from outermost to innermost; rows of 32 bits at least.
    const strides = new Array<number>(rank);
    let acc = 1;
    for (let j = rank - 1; j >= 0; j--) {
      const k = order[j]!;
      strides[k] = acc;
      acc *= padded[k]!;
      if (w < 32 && j === rank - 1) acc = Math.ceil(acc / (32 / gcd(w, 32))) * (32 / gcd(w, 32));
    }
    const target = int(next, 0, 1) as 0 | 1;
    const byteOffset = used[target] + 4 * int(next, 0, 2);
    used[target] = byteOffset + Math.ceil((acc * w) / 8 / 4) * 4;
    return { dtype, shape: dims, byteOffset, strides, target };
  });
  return { dests, bytes: used };
}

/**
 * Slot `t` of a heads-major KV cache [1, H, T, D] of float16 in `buffer`: a destination [1, H, 1, D] at byte t·D·2,
 * strides [H·T·D, T·D, D, 1] (the decode step's K or V, written into the cache where the next token goes).
 */
export const cacheSlot = (buffer: GPUBuffer, [H, T, D]: readonly [number, number, number], t: number) =>
  ({
    dtype: 'float16',
    shape: [1, H, 1, D],
    buffer,
    byteOffset: t * D * 2,
    strides: [H * T * D, T * D, D, 1],
  }) as const;
