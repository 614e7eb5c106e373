// Tensor values for the page: sample data for any dtype (1, 2, 3, ... as in the spec examples),
// small argument tensors (split, axis) typed as the node needs them, and short text for a value.
// float16/bfloat16 travel as raw bits, so the page converts to and from them here.

import { type DType, type HostTensor, halfToNumber, hostLength } from '../src/index.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE binary16 bits of a number, rounded to nearest even. */
export function toHalfBits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    let h = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++; // a carry into the exponent is still right
  return sign | h;
}

/** bfloat16 bits of a number, rounded to nearest even. */
export function toBfloat16Bits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  if (Number.isNaN(v)) return ((x >>> 16) & 0x8000) | 0x7fc0;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

export function fromBfloat16Bits(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}

const INTEGER_RANGE: Partial<Record<DType, readonly [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n], uint8: [0n, 2n ** 8n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n], uint16: [0n, 2n ** 16n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n], uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n], uint64: [0n, 2n ** 64n - 1n],
};

export function isIntegerDType(d: DType): boolean {
  return d in INTEGER_RANGE;
}

/**
 * A host tensor holding `values` (numbers) in `dtype`. Integer dtypes refuse values they cannot
 * hold (a typed array would silently wrap or truncate them); the engine checks everything else.
 */
export function tensorOf(dtype: DType, shape: readonly number[], values: readonly number[]): HostTensor {
  const range = INTEGER_RANGE[dtype];
  if (range) {
    for (const v of values) {
      if (!Number.isSafeInteger(v) || BigInt(v) < range[0] || BigInt(v) > range[1]) {
        throw new RangeError(`${v} is not a ${dtype} value`);
      }
    }
  }
  return { dtype, shape, data: dataOf(dtype, values.length, (i) => values[i]!) } as HostTensor;
}

/** Sample input data of `n` elements: 1, 2, 3, ... (wrapped for narrow integers), Greek letters for strings. */
export function sampleTensor(dtype: DType, shape: readonly number[], n: number): HostTensor {
  const wrap = (m: number) => (i: number) => ((i + 1) % m);
  const value: (i: number) => number =
    dtype === 'int8' ? wrap(128) : dtype === 'uint8' ? wrap(256) : dtype === 'int16' ? wrap(32768)
      : dtype === 'uint16' ? wrap(65536) : dtype === 'bool' ? (i) => (i % 3 === 0 ? 1 : 0) : (i) => i + 1;
  return { dtype, shape, data: dataOf(dtype, n, value) } as HostTensor;
}

const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';

function dataOf(dtype: DType, n: number, value: (i: number) => number): HostTensor['data'] {
  const fill = <A extends { [k: number]: number }>(a: A) => { for (let i = 0; i < n; i++) a[i] = value(i); return a; };
  switch (dtype) {
    case 'float32': return fill(new Float32Array(n));
    case 'float64': return fill(new Float64Array(n));
    case 'float16': return Uint16Array.from({ length: n }, (_, i) => toHalfBits(value(i)));
    case 'bfloat16': return Uint16Array.from({ length: n }, (_, i) => toBfloat16Bits(value(i)));
    case 'int8': return fill(new Int8Array(n));
    case 'uint8': return fill(new Uint8Array(n));
    case 'int16': return fill(new Int16Array(n));
    case 'uint16': return fill(new Uint16Array(n));
    case 'int32': return fill(new Int32Array(n));
    case 'uint32': return fill(new Uint32Array(n));
    case 'int64': return BigInt64Array.from({ length: n }, (_, i) => BigInt(value(i)));
    case 'uint64': return BigUint64Array.from({ length: n }, (_, i) => BigInt(value(i)));
    case 'bool': return Uint8Array.from({ length: n }, (_, i) => (value(i) ? 1 : 0));
    case 'string': return Array.from({ length: n }, (_, i) => GREEK[i % 24]! + (i >= 24 ? String(Math.floor(i / 24)) : ''));
    case 'complex64': return Float32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? -1 : 1) * value(k >> 1));
    case 'complex128': return Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 ? -1 : 1) * value(k >> 1));
    // OpenVINO's byte-wide floats and packed sub-byte types travel as raw bytes.
    default: return Uint8Array.from({ length: hostLength(dtype, n) }, (_, i) => value(i) & 0xff);
  }
}

function num(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return Object.is(v, -0) ? '-0' : String(v);
  return String(Number(v.toPrecision(4)));
}

/** Element `i` of a host tensor as short text. */
export function formatValue(t: HostTensor, i: number): string {
  switch (t.dtype) {
    case 'string': return t.data[i] ?? '';
    case 'bool': return t.data[i] ? 'true' : 'false';
    case 'float16': return num(halfToNumber(t.data[i]!));
    case 'bfloat16': return num(fromBfloat16Bits(t.data[i]!));
    case 'complex64':
    case 'complex128': {
      const re = t.data[2 * i]!;
      const im = t.data[2 * i + 1]!;
      return `${num(re)}${im < 0 || Object.is(im, -0) ? '−' : '+'}${num(Math.abs(im))}i`;
    }
    case 'int64':
    case 'uint64': return String(t.data[i]);
    default: return num(t.data[i]!);
  }
}

/** Whether two host tensors hold the same dtype, shape and bits. */
export function sameTensor(a: HostTensor, b: HostTensor): boolean {
  if (a.dtype !== b.dtype || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) return false;
  if (Array.isArray(a.data) || Array.isArray(b.data)) {
    const x = a.data as string[];
    const y = b.data as string[];
    return x.length === y.length && x.every((s, i) => s === y[i]);
  }
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Row-major multi-index of a flat index. */
export function unravel(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d]!;
    if (n > 0) { idx[d] = flat % n; flat = Math.floor(flat / n); }
  }
  return idx;
}
