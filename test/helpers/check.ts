// Assertions shared by the GPU tiers: outputs compared byte for byte with the reference split.
import { expect } from 'vitest';
import { type GpuTensor, type HostTensor, type SplitEngine, hostDataFromBytes } from '../../src/index.js';
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
  const bytes = new Map<GPUBuffer, Uint8Array>();
  for (const buffer of new Set(outs.map((o) => o.buffer))) {
    const all = await engine.download({ dtype: 'uint8', shape: [buffer.size], buffer, byteOffset: 0, byteLength: buffer.size });
    bytes.set(buffer, all.data);
  }
  return outs.map((o) => ({
    dtype: o.dtype, shape: o.shape,
    data: hostDataFromBytes(o.dtype, bytes.get(o.buffer)!.subarray(o.byteOffset, o.byteOffset + o.byteLength)),
  }) as HostTensor);
}
