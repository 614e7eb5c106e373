// The tests' independent model of a split, the oracle of every GPU tier: imports nothing from
// src/ on purpose, so a fault in Cleave's planner, shader or executors cannot reach it. Widths come
// from test/helpers/dtypes.ts; sub-byte types go through test/helpers/packed.ts, bit by bit. `scatter`
// is the oracle of `into`: a split output written into a strided destination.

import { REF_TYPES, type RefDType, numel } from './dtypes.js';
import { isPackedType, referencePackedSplit } from './packed.js';

/** Any tensor with host data: a typed array, or strings. */
export interface RefTensor {
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly data: unknown;
}

/** A tensor's data as its bytes (a view, no copy), or its strings. */
export function bitsOf(t: RefTensor): Uint8Array | readonly string[] {
  if (Array.isArray(t.data)) return t.data as string[];
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

function refType(d: string): RefDType {
  if (!Object.hasOwn(REF_TYPES, d)) throw new Error(`reference: unknown dtype ${d}`);
  return d as RefDType;
}

/**
 * The outputs of splitting `x` along `axis` (negative counts from the end) into `sizes`: fresh
 * byte arrays (or string arrays). Whole-byte types move row by row: output i takes, from each of
 * the `outer` rows, the bytes of elements [start_i, start_i + size_i) times `inner`.
 */
export function referenceSplit(x: RefTensor, axis: number, sizes: readonly number[]): (Uint8Array | string[])[] {
  const d = refType(x.dtype);
  const ax = axis < 0 ? axis + x.shape.length : axis;
  if (isPackedType(d)) return referencePackedSplit(d, x.shape, bitsOf(x) as Uint8Array, ax, sizes);
  const outer = numel(x.shape.slice(0, ax));
  const inner = numel(x.shape.slice(ax + 1));
  const dim = x.shape[ax]!;
  const src = bitsOf(x);
  const width = d === 'string' ? 1 : REF_TYPES[d].bits / 8;
  let start = 0;
  return sizes.map((size) => {
    const row = size * inner * width;
    const out: Uint8Array | string[] = d === 'string' ? [] : new Uint8Array(outer * row);
    for (let o = 0; o < outer; o++) {
      const from = (o * dim + start) * inner * width;
      if (Array.isArray(out)) out.push(...(src as readonly string[]).slice(from, from + row));
      else out.set((src as Uint8Array).subarray(from, from + row), o * row);
    }
    start += size;
    return out;
  });
}

const show = (v: number | string | undefined) =>
  typeof v === 'number' ? `0x${v.toString(16).padStart(2, '0')}` : JSON.stringify(v);

/**
 * The first difference between two byte (or string) arrays, as `length n, want m` or
 * `at i: got x, want y`; undefined when they are equal. A plain loop: never a deep diff, which on
 * megabytes of wrong data would stall the run.
 */
export function firstMismatch(
  got: Uint8Array | readonly string[],
  want: Uint8Array | readonly string[],
): string | undefined {
  const n = Math.min(got.length, want.length);
  for (let i = 0; i < n; i++) {
    if (got[i] !== want[i]) return `at ${i}: got ${show(got[i])}, want ${show(want[i])}`;
  }
  return got.length === want.length ? undefined : `length ${got.length}, want ${want.length}`;
}

/** What is wrong with `outs` as the split of `x` (dtype, shape, host array class and bytes), or undefined. */
export function splitMismatch(
  outs: readonly RefTensor[],
  x: RefTensor,
  axis: number,
  sizes: readonly number[],
): string | undefined {
  if (outs.length !== sizes.length) return `${outs.length} outputs, want ${sizes.length}`;
  const ax = axis < 0 ? axis + x.shape.length : axis;
  const want = referenceSplit(x, ax, sizes);
  const array = REF_TYPES[refType(x.dtype)].array;
  for (const [i, o] of outs.entries()) {
    const shape = x.shape.map((n, k) => (k === ax ? sizes[i]! : n));
    if (o.dtype !== x.dtype) return `output ${i}: dtype ${o.dtype}, want ${x.dtype}`;
    if (o.shape.join() !== shape.join() || o.shape.length !== shape.length)
      return `output ${i}: shape [${o.shape.join(',')}], want [${shape.join(',')}]`;
    const proto = Object.getPrototypeOf(o.data) as { constructor?: { name?: string } } | null;
    const cls = proto === Array.prototype ? 'Array' : proto?.constructor?.name;
    if (cls !== array) return `output ${i}: data is ${String(cls)}, want ${array}`;
    const m = firstMismatch(bitsOf(o), want[i]!);
    if (m) return `output ${i}: ${m}`;
  }
  return undefined;
}

/**
 * The oracle of `into`: `before` with the output's elements (row-major bits in `out`) written at
 * byteOffset + Σ index·stride elements. uint1 numbers its bits from bit 7 of each byte.
 */
export function scatter(
  before: Uint8Array,
  out: Uint8Array,
  dtype: string,
  shape: readonly number[],
  byteOffset: number,
  strides: readonly number[],
): Uint8Array {
  const w = REF_TYPES[refType(dtype)].bits;
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
