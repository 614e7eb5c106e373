// The CPU executor: the same plan, carried out with byte copies (bit copies for packed sub-byte
// types), its outputs in the input's array class. It serves strings always, complex host tensors,
// and every dtype on an engine with `backend: 'cpu'`.

import { type FixedDType, byteLengthOf, elementBits, isMsbFirst } from '../dtype.js';
import { arrayFromBytes } from '../host-data.js';
import type { HostTensor } from '../tensor.js';
import type { HostView } from '../read/tensor.js';
import type { SplitPlan } from '../planner/split.js';

export function splitOnCpu(plan: SplitPlan, x: HostView, shapes: readonly (readonly number[])[]): HostTensor[] {
  return plan.sizes.map((size, i) => {
    const shape = [...shapes[i]!];
    if (x.strings) return { dtype: 'string', shape, data: strings(plan, x.strings, i) };
    const dtype = x.dtype as FixedDType;
    const bits = elementBits(dtype);
    const rowBits = size * plan.inner * bits;
    const srcBit = (o: number) => (o * plan.axisLen + plan.starts[i]!) * plan.inner * bits;
    const out = new Uint8Array(byteLengthOf(dtype, plan.outer * size * plan.inner));
    if (bits % 8 === 0) {
      const n = rowBits / 8;
      for (let o = 0; o < plan.outer; o++) out.set(x.bytes.subarray(srcBit(o) / 8, srcBit(o) / 8 + n), o * n);
    } else {
      for (let o = 0; o < plan.outer; o++) copyBits(x.bytes, srcBit(o), out, o * rowBits, rowBits, isMsbFirst(dtype));
      if (isMsbFirst(dtype)) for (let k = 0; k < out.length; k++) out[k] = REVERSED[out[k]!]!;
    }
    return { dtype, shape, data: arrayFromBytes(x.array!, out, false) } as HostTensor;
  });
}

function strings(plan: SplitPlan, src: readonly string[], i: number): string[] {
  const span = plan.sizes[i]! * plan.inner;
  const out: string[] = [];
  for (let o = 0; o < plan.outer; o++) {
    const at = (o * plan.axisLen + plan.starts[i]!) * plan.inner;
    for (let k = 0; k < span; k++) out.push(src[at + k]!);
  }
  return out;
}

/** Each byte with its bits in reverse order: turns an MSB-first packed stream into LSB-first and back. */
const REVERSED = Uint8Array.from({ length: 256 }, (_, b) => {
  let r = 0;
  for (let j = 0; j < 8; j++) r |= ((b >> j) & 1) << (7 - j);
  return r;
});

/**
 * ORs `n` stream bits of `src` from bit `s` into the zeroed LSB-first stream `dst` at bit `d`, eight
 * at a time. `msb`: `src` is MSB-first (its bytes are read reversed; the caller reverses `dst`).
 */
function copyBits(src: Uint8Array, s: number, dst: Uint8Array, d: number, n: number, msb: boolean): void {
  const at = (i: number) => (i < src.length ? (msb ? REVERSED[src[i]!]! : src[i]!) : 0);
  for (let done = 0; done < n; done += 8) {
    const bit = s + done;
    const sh = bit % 8;
    const i = (bit - sh) / 8;
    let v = ((at(i) >> sh) | (sh ? at(i + 1) << (8 - sh) : 0)) & 0xff;
    if (n - done < 8) v &= (1 << (n - done)) - 1;
    const p = d + done;
    const dsh = p % 8;
    const j = (p - dsh) / 8;
    dst[j] = dst[j]! | ((v << dsh) & 0xff);
    if (dsh && j + 1 < dst.length) dst[j + 1] = dst[j + 1]! | (v >> (8 - dsh));
  }
}
