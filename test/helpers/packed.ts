// Two independent bit-level references for OpenVINO's packed sub-byte types (and, for the second,
// every fixed width), written from the layout OpenVINO states (not from Cleave's code): a tensor is
// one bit stream, value i at bits [i*w, i*w + w); LSB-first (bit 0 of byte 0 holds value 0's
// lowest bit) for every type but uint1, which is MSB-first (value 0 is bit 7 of byte 0); every
// tensor starts at bit 0 of its own first byte and the unused bits of its last byte are zero.
// The first moves one value at a time, one bit at a time; the second slices a string of '0'/'1'
// characters. They share nothing but the widths of test/helpers/dtypes.ts.

import { REF_TYPES, type RefDType, numel } from './dtypes.js';

export const PACKED_TYPES = ['int4', 'uint4', 'nf4', 'float4e2m1', 'uint1', 'uint2', 'uint3', 'uint6'] as const;
export type Packed = (typeof PACKED_TYPES)[number];
export const PACKED_WIDTH = Object.fromEntries(PACKED_TYPES.map((d) => [d, REF_TYPES[d].bits])) as Readonly<
  Record<Packed, number>
>;

export function isPackedType(d: string): d is Packed {
  return (PACKED_TYPES as readonly string[]).includes(d);
}

function bitPosition(k: number, msb: boolean): [byte: number, shift: number] {
  const byte = Math.floor(k / 8);
  return [byte, msb ? 7 - (k % 8) : k % 8];
}

/** Value i (as an unsigned integer of w bits). */
export function valueAt(bytes: Uint8Array, i: number, d: Packed): number {
  const w = PACKED_WIDTH[d];
  let v = 0;
  for (let b = 0; b < w; b++) {
    const [byte, shift] = bitPosition(i * w + b, d === 'uint1');
    v += ((bytes[byte]! >> shift) & 1) * 2 ** b;
  }
  return v;
}

/** Packs values of w bits into a fresh byte array with zero padding bits. */
export function pack(values: readonly number[], d: Packed): Uint8Array {
  const w = PACKED_WIDTH[d];
  const out = new Uint8Array(Math.ceil((values.length * w) / 8));
  values.forEach((v, i) => {
    for (let b = 0; b < w; b++) {
      if (Math.floor(v / 2 ** b) % 2) {
        const [byte, shift] = bitPosition(i * w + b, d === 'uint1');
        out[byte]! |= 1 << shift;
      }
    }
  });
  return out;
}

/** Reference 1: the split of a packed tensor, output by output, as packed bytes. */
export function referencePackedSplit(
  d: Packed,
  shape: readonly number[],
  bytes: Uint8Array,
  axis: number,
  sizes: readonly number[],
): Uint8Array[] {
  const ax = axis < 0 ? axis + shape.length : axis;
  const outer = numel(shape.slice(0, ax));
  const inner = numel(shape.slice(ax + 1));
  let start = 0;
  return sizes.map((size) => {
    const values: number[] = [];
    for (let o = 0; o < outer; o++) {
      for (let a = start; a < start + size; a++) {
        for (let k = 0; k < inner; k++) values.push(valueAt(bytes, (o * shape[ax]! + a) * inner + k, d));
      }
    }
    start += size;
    return pack(values, d);
  });
}

// Reference 2: a tensor as a string of '0'/'1' characters in stream order (bit 0 of byte 0 first,
// or bit 7 first for uint1); a split is a concatenation of substrings, padded with '0' to bytes.

export function streamOf(bytes: Uint8Array, msb: boolean): string {
  let s = '';
  for (const b of bytes) {
    const bin = b.toString(2).padStart(8, '0'); // most significant bit first
    s += msb ? bin : [...bin].reverse().join('');
  }
  return s;
}

function bytesOfStream(s: string, msb: boolean): Uint8Array {
  const padded = s.padEnd(Math.ceil(s.length / 8) * 8, '0');
  const out = new Uint8Array(padded.length / 8);
  for (let i = 0; i < out.length; i++) {
    const chunk = padded.slice(i * 8, i * 8 + 8);
    out[i] = parseInt(msb ? chunk : [...chunk].reverse().join(''), 2);
  }
  return out;
}

/** Reference 2 for any fixed-width dtype (small tensors: a character per bit). */
export function stringSplit(
  d: Exclude<RefDType, 'string'>,
  shape: readonly number[],
  bytes: Uint8Array,
  axis: number,
  sizes: readonly number[],
): Uint8Array[] {
  const w = REF_TYPES[d].bits;
  const msb = d === 'uint1';
  const s = streamOf(bytes, msb);
  const ax = axis < 0 ? axis + shape.length : axis;
  const outer = numel(shape.slice(0, ax));
  const inner = numel(shape.slice(ax + 1));
  const dim = shape[ax]!;
  let start = 0;
  return sizes.map((size) => {
    const parts: string[] = [];
    for (let o = 0; o < outer; o++)
      parts.push(s.slice((o * dim + start) * inner * w, (o * dim + start + size) * inner * w));
    start += size;
    return bytesOfStream(parts.join(''), msb);
  });
}
