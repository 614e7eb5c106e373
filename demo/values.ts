// The page's tensors: sample data for every dtype (1, 2, 3, ... as in the spec examples), the same
// data written as JavaScript for the code view, and small argument tensors (split, axis) typed as
// the node needs them. float16/bfloat16 travel as raw bits and packed types as bytes, so the page
// encodes them here (format.ts decodes them for display).

import {
  type DType,
  type HostTensor,
  type PackedDType,
  elementBits,
  halfToNumber,
  hostLength,
  isMsbFirst,
  isPacked,
} from '../src/index.js';

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
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++; // a carry into the exponent is still right
  return sign | h;
}

/** bfloat16 bits of a number, rounded to nearest even. */
export function toBfloat16Bits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  if (Number.isNaN(v)) return ((x >>> 16) & 0x8000) | 0x7fc0;
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

const INTEGER_RANGE: Partial<Record<DType, readonly [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

export function isIntegerDType(d: DType): boolean {
  return d in INTEGER_RANGE;
}

type NumberArray =
  | 'Float32Array'
  | 'Float64Array'
  | 'Int8Array'
  | 'Uint8Array'
  | 'Int16Array'
  | 'Uint16Array'
  | 'Int32Array'
  | 'Uint32Array';
const NUMBER_ARRAYS = {
  Float32Array,
  Float64Array,
  Int8Array,
  Uint8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
};

/**
 * Dtypes whose host array holds one number per element, with the sample value of element i both
 * as a function (the page's data) and as JavaScript (the code view); the e2e test checks they agree.
 */
const PLAIN: Partial<
  Record<DType, { readonly array: NumberArray; readonly value: (i: number) => number; readonly expr: string }>
> = {
  float32: { array: 'Float32Array', value: (i) => i + 1, expr: 'i + 1' },
  float64: { array: 'Float64Array', value: (i) => i + 1, expr: 'i + 1' },
  int8: { array: 'Int8Array', value: (i) => (i + 1) % 128, expr: '(i + 1) % 128' },
  uint8: { array: 'Uint8Array', value: (i) => (i + 1) % 256, expr: '(i + 1) % 256' },
  int16: { array: 'Int16Array', value: (i) => (i + 1) % 32768, expr: '(i + 1) % 32768' },
  uint16: { array: 'Uint16Array', value: (i) => (i + 1) % 65536, expr: '(i + 1) % 65536' },
  int32: { array: 'Int32Array', value: (i) => i + 1, expr: 'i + 1' },
  uint32: { array: 'Uint32Array', value: (i) => i + 1, expr: 'i + 1' },
  bool: { array: 'Uint8Array', value: (i) => (i % 3 === 0 ? 1 : 0), expr: '(i % 3 === 0 ? 1 : 0)' },
  // OpenVINO's one-byte floats: raw bytes 1, 2, 3, ...
  float8e4m3fn: { array: 'Uint8Array', value: (i) => (i + 1) % 256, expr: '(i + 1) % 256' },
  float8e5m2: { array: 'Uint8Array', value: (i) => (i + 1) % 256, expr: '(i + 1) % 256' },
  float8e8m0: { array: 'Uint8Array', value: (i) => (i + 1) % 256, expr: '(i + 1) % 256' },
};

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
  const plain = PLAIN[dtype];
  // Packed values count 1, 2, 3, ... modulo 2^bits, so every value of the type shows up.
  const value = plain
    ? plain.value
    : isPacked(dtype)
      ? (i: number) => (i + 1) % 2 ** elementBits(dtype)
      : (i: number) => i + 1;
  return { dtype, shape, data: dataOf(dtype, n, value) } as HostTensor;
}

const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';

function dataOf(dtype: DType, n: number, value: (i: number) => number): HostTensor['data'] {
  const plain = PLAIN[dtype];
  if (plain) {
    const a = new NUMBER_ARRAYS[plain.array](n);
    for (let i = 0; i < n; i++) a[i] = value(i);
    return a;
  }
  if (isPacked(dtype)) return packedBytes(dtype, n, value);
  switch (dtype) {
    case 'float16':
      return Uint16Array.from({ length: n }, (_, i) => toHalfBits(value(i)));
    case 'bfloat16':
      return Uint16Array.from({ length: n }, (_, i) => toBfloat16Bits(value(i)));
    case 'int64':
      return BigInt64Array.from({ length: n }, (_, i) => BigInt(value(i)));
    case 'uint64':
      return BigUint64Array.from({ length: n }, (_, i) => BigInt(value(i)));
    case 'string':
      return Array.from({ length: n }, (_, i) => GREEK[i % 24]! + (i >= 24 ? String(Math.floor(i / 24)) : ''));
    case 'complex64':
      return Float32Array.from({ length: 2 * n }, (_, k) => (k % 2 ? -1 : 1) * value(k >> 1));
    case 'complex128':
      return Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 ? -1 : 1) * value(k >> 1));
    default:
      throw new Error(`the demo has no sample data for ${dtype}`);
  }
}

/**
 * The packed bytes of `n` values of a sub-byte type, built a byte at a time the way the code view
 * writes it: bit j of byte b is bit k = 8b + j of the stream (MSB-first for uint1), which is bit
 * k mod w of value floor(k / w).
 */
function packedBytes(dtype: PackedDType, n: number, value: (i: number) => number): Uint8Array {
  const w = elementBits(dtype);
  const msb = isMsbFirst(dtype);
  return Uint8Array.from({ length: hostLength(dtype, n) }, (_, b) => {
    let byte = 0;
    for (let j = 0; j < 8; j++) {
      const k = 8 * b + j;
      const i = Math.floor(k / w);
      if (i < n && (value(i) >> (k % w)) & 1) byte |= 1 << (msb ? 7 - j : j);
    }
    return byte;
  });
}

/** The sample data of `n` elements of `dtype` as one JavaScript expression (what sampleTensor builds). */
export function sampleCode(dtype: DType, n: number): string {
  const from = (array: string, length: number | string, body: string) =>
    `${array}.from({ length: ${length} }, (_, i) => ${body})`;
  const plain = PLAIN[dtype];
  if (plain) return from(plain.array, n, plain.expr);
  if (isPacked(dtype)) {
    const w = elementBits(dtype);
    const bit = isMsbFirst(dtype) ? '7 - j' : 'j';
    return (
      `Uint8Array.from({ length: ${hostLength(dtype, n)} }, (_, b) => { let v = 0; for (let j = 0; j < 8; j++) { ` +
      `const k = 8 * b + j, i = Math.floor(k / ${w}); ` +
      `if (i < ${n} && (((i + 1) % ${2 ** w}) >> (k % ${w})) & 1) v |= 1 << (${bit}); } return v; })`
    );
  }
  switch (dtype) {
    case 'float16':
      return `new Uint16Array(${from('Float16Array', n, 'i + 1')}.buffer)`;
    case 'bfloat16':
      return (
        `Uint16Array.from({ length: ${n} }, (_, i) => { ` +
        'const u = new Uint32Array(new Float32Array([i + 1]).buffer)[0]; ' +
        'return (u + 0x7fff + ((u >>> 16) & 1)) >>> 16; })'
      );
    case 'int64':
      return from('BigInt64Array', n, 'BigInt(i + 1)');
    case 'uint64':
      return from('BigUint64Array', n, 'BigInt(i + 1)');
    case 'string':
      return from('Array', n, `'${GREEK}'[i % 24] + (i >= 24 ? Math.floor(i / 24) : '')`);
    case 'complex64':
      return `Float32Array.from({ length: ${2 * n} }, (_, k) => (k % 2 ? -1 : 1) * ((k >> 1) + 1))`;
    case 'complex128':
      return `Float64Array.from({ length: ${2 * n} }, (_, k) => (k % 2 ? -1 : 1) * ((k >> 1) + 1))`;
    default:
      throw new Error(`the demo has no sample code for ${dtype}`);
  }
}

/** A host tensor's data written out in full as JavaScript (for short arrays). */
export function literalCode(t: HostTensor): string {
  const list = (xs: Iterable<string>) => [...xs].join(', ');
  const hex = (xs: ArrayLike<number>, digits: number) =>
    list(Array.from(xs, (v) => `0x${v.toString(16).padStart(digits, '0')}`));
  if (Array.isArray(t.data)) return `[${list(t.data.map((s) => `'${s.replace(/[\\']/g, '\\$&')}'`))}]`;
  if (t.data instanceof BigInt64Array || t.data instanceof BigUint64Array) {
    return `new ${t.data.constructor.name}([${list(Array.from(t.data, (v) => `${v}n`))}])`;
  }
  if (t.dtype === 'float16') {
    const halves = list(Array.from(t.data as Uint16Array, (h) => numberCode(halfToNumber(h))));
    return `new Uint16Array(new Float16Array([${halves}]).buffer)`;
  }
  if (t.dtype === 'bfloat16') return `new Uint16Array([${hex(t.data as Uint16Array, 4)}])`;
  if (t.data instanceof Uint8Array && t.dtype !== 'uint8' && t.dtype !== 'bool')
    return `new Uint8Array([${hex(t.data, 2)}])`;
  return `new ${t.data.constructor.name}([${list(Array.from(t.data as ArrayLike<number>, numberCode))}])`;
}

function numberCode(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}
