// Assertions shared by the GPU tiers: outputs compared byte for byte with the reference split.
import { expect } from 'vitest';
import type { GpuTensor, HostTensor, SplitEngine } from '../../src/index.js';
import { bitsOf, referenceSplit } from './cases.js';

export function expectSplitOf(outs: readonly HostTensor[], x: HostTensor, axis: number, sizes: readonly number[]): void {
  const want = referenceSplit(x, axis, sizes);
  expect(outs.map((o) => o.dtype)).toEqual(sizes.map(() => x.dtype));
  expect(outs.map((o) => o.shape)).toEqual(sizes.map((s) => x.shape.map((d, i) => (i === (axis + x.shape.length) % x.shape.length ? s : d))));
  outs.forEach((o, i) => expect(bitsOf(o), `output ${i}`).toEqual(want[i]));
}

/**
 * Reads GPU outputs back with one download of their whole shared buffer, then slices it: 4096
 * outputs cost one mapAsync, not 4096.
 */
export async function downloadAll(engine: SplitEngine, outs: readonly GpuTensor[]): Promise<HostTensor[]> {
  const groups = new Map<GPUBuffer, GpuTensor[]>();
  for (const o of outs) groups.set(o.buffer, [...(groups.get(o.buffer) ?? []), o]);
  const bytes = new Map<GPUBuffer, Uint8Array>();
  for (const buffer of groups.keys()) {
    const all = await engine.download({ dtype: 'uint8', shape: [buffer.size], buffer, byteOffset: 0, byteLength: buffer.size });
    bytes.set(buffer, all.data);
  }
  return outs.map((o) => ({
    dtype: o.dtype, shape: o.shape,
    data: view(o.dtype, bytes.get(o.buffer)!.slice(o.byteOffset, o.byteOffset + o.byteLength)),
  }) as HostTensor);
}

function view(dtype: GpuTensor['dtype'], b: Uint8Array): unknown {
  const C = { float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array, int8: Int8Array,
    uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
    uint64: BigUint64Array, bool: Uint8Array, complex64: Float32Array, complex128: Float64Array }[dtype];
  return new (C as new (buffer: ArrayBuffer) => unknown)(b.buffer as ArrayBuffer);
}
