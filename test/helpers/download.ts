// Reading GPU outputs back in tests. No vitest import: the crash tier's child processes bundle it.
import { type GpuTensor, type HostTensor, type SplitEngine, hostDataFromBytes } from '../../src/index.js';

/**
 * Reads GPU outputs back with one download of their whole shared buffer, then slices it: 4096
 * outputs cost one mapAsync, not 4096.
 */
export async function downloadAll(engine: SplitEngine, outs: readonly GpuTensor[]): Promise<HostTensor[]> {
  const bytes = new Map<GPUBuffer, Uint8Array>();
  for (const buffer of new Set(outs.map((o) => o.buffer))) {
    const all = await engine.download({
      dtype: 'uint8',
      shape: [buffer.size],
      buffer,
      byteOffset: 0,
      byteLength: buffer.size,
    });
    bytes.set(buffer, all.data);
  }
  return outs.map(
    (o) =>
      ({
        dtype: o.dtype,
        shape: o.shape,
        data: hostDataFromBytes(o.dtype, bytes.get(o.buffer)!.subarray(o.byteOffset, o.byteOffset + o.byteLength)),
      }) as HostTensor,
  );
}
