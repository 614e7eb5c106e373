// An independent bit-level reference for OpenVINO's packed sub-byte types, written from the layout
// the issue states (not from Cleave's code): a tensor is one bit stream, value i at bits
// [i*w, i*w + w); LSB-first (bit 0 of byte 0 holds value 0's lowest bit) for every type but uint1,
// which is MSB-first (value 0 is bit 7 of byte 0); every tensor starts at bit 0 of its own first
// byte and the unused bits of its last byte are zero. One value at a time, one bit at a time.

export const PACKED_WIDTH = {
  int4: 4,
  uint4: 4,
  nf4: 4,
  float4e2m1: 4,
  uint1: 1,
  uint2: 2,
  uint3: 3,
  uint6: 6,
} as const;
export type Packed = keyof typeof PACKED_WIDTH;

export function isPackedType(d: string): d is Packed {
  return Object.hasOwn(PACKED_WIDTH, d);
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

/** The split of a packed tensor, output by output, as packed bytes. */
export function referencePackedSplit(
  d: Packed,
  shape: readonly number[],
  bytes: Uint8Array,
  axis: number,
  sizes: readonly number[],
): Uint8Array[] {
  const ax = axis < 0 ? axis + shape.length : axis;
  const outer = shape.slice(0, ax).reduce((a, b) => a * b, 1);
  const inner = shape.slice(ax + 1).reduce((a, b) => a * b, 1);
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
