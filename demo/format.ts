// Values as text for the picture: one element of any dtype (bfloat16 and OpenVINO's 8-bit, 4-bit
// and other packed types decoded to the numbers they stand for), where a packed value sits in its
// tensor's bytes, and the multi-index of a flat index.

import {
  type DType,
  type HostTensor,
  elementBits,
  halfToNumber,
  isMsbFirst,
  isPacked,
  packedValue,
} from '../src/index.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function fromBfloat16Bits(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}

/** The 16 levels of NF4 (QLoRA's normal-float 4-bit code book, as OpenVINO decodes it). */
const NF4 = [
  -1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334,
  -0.09105003625154495, 0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
  0.44070982251167296, 0.5626170039176941, 0.7229568362236023, 1,
];

/** A small float of 1 sign bit, `e` exponent bits and `m` mantissa bits (IEEE-like: bias 2^(e-1) - 1, subnormals). */
function smallFloat(bits: number, e: number, m: number): number {
  const sign = (bits >> (e + m)) & 1 ? -1 : 1;
  const exp = (bits >> m) & ((1 << e) - 1);
  const mant = bits & ((1 << m) - 1);
  const bias = (1 << (e - 1)) - 1;
  return sign * (exp === 0 ? (mant / 2 ** m) * 2 ** (1 - bias) : (1 + mant / 2 ** m) * 2 ** (exp - bias));
}

/** The number an OpenVINO 8-bit or packed code stands for. */
function decode(dtype: DType, code: number): number {
  switch (dtype) {
    case 'int4':
      return code >= 8 ? code - 16 : code;
    case 'nf4':
      return NF4[code]!;
    case 'float4e2m1':
      return smallFloat(code, 2, 1);
    // e4m3fn has no infinities: only S.1111.111 is NaN. e5m2 follows IEEE. e8m0 is a power of two.
    case 'float8e4m3fn':
      return (code & 0x7f) === 0x7f ? NaN : smallFloat(code, 4, 3);
    case 'float8e5m2':
      return (code & 0x7c) === 0x7c ? (code & 3 ? NaN : code & 0x80 ? -Infinity : Infinity) : smallFloat(code, 5, 2);
    case 'float8e8m0':
      return code === 0xff ? NaN : 2 ** (code - 127);
    default:
      return code;
  }
}

function num(v: number): string {
  if (Number.isInteger(v) || !Number.isFinite(v)) return Object.is(v, -0) ? '-0' : String(v);
  return String(Number(v.toPrecision(4)));
}

/** Element `i` of a host tensor as short text. */
export function formatValue(t: HostTensor, i: number): string {
  if (isPacked(t.dtype)) return num(decode(t.dtype, packedValue(t.dtype, t.data as Uint8Array, i)));
  switch (t.dtype) {
    case 'string':
      return t.data[i] ?? '';
    case 'bool':
      return t.data[i] ? 'true' : 'false';
    case 'float16':
      return num(halfToNumber(t.data[i]!));
    case 'bfloat16':
      return num(fromBfloat16Bits(t.data[i]!));
    case 'complex64':
    case 'complex128': {
      const re = t.data[2 * i]!;
      const im = t.data[2 * i + 1]!;
      return `${num(re)}${im < 0 || Object.is(im, -0) ? '−' : '+'}${num(Math.abs(im))}i`;
    }
    case 'int64':
    case 'uint64':
      return String(t.data[i]);
    case 'float8e4m3fn':
    case 'float8e5m2':
    case 'float8e8m0':
      return num(decode(t.dtype, t.data[i]!));
    default:
      return num(t.data[i] as number);
  }
}

/**
 * Where a packed value lives in its tensor's bytes, e.g. "byte 1, bits 4–7" or, for a value that
 * straddles two bytes, "byte 0 bits 6–7 + byte 1 bit 0"; undefined for whole-byte dtypes.
 */
export function bitsOf(dtype: DType, i: number): string | undefined {
  if (!isPacked(dtype)) return undefined;
  const w = elementBits(dtype);
  const msb = isMsbFirst(dtype);
  const parts: string[] = [];
  for (let k = i * w; k < (i + 1) * w;) {
    const byte = Math.floor(k / 8);
    const end = Math.min((i + 1) * w, (byte + 1) * 8);
    // Bit numbers as a byte reads them: for uint1 (MSB-first) stream bit 0 is bit 7.
    const [lo, hi] = msb ? [7 - ((end - 1) % 8), 7 - (k % 8)] : [k % 8, (end - 1) % 8];
    parts.push(`byte ${byte} ${lo === hi ? `bit ${lo}` : `bits ${lo}–${hi}`}`);
    k = end;
  }
  return parts.join(' + ');
}

/** Row-major multi-index of a flat index. */
export function unravel(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) {
    const n = shape[d]!;
    if (n > 0) {
      idx[d] = flat % n;
      flat = Math.floor(flat / n);
    }
  }
  return idx;
}
