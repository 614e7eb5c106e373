// Reading GPU outputs back, free of vitest and of src/ at run time (the conformance suite runs it
// under Deno on the built bundle): the caller passes its Cleave module's hostDataFromBytes.
import type { GpuTensor, HostTensor, SplitEngine, hostDataFromBytes } from '../../src/index.js';

/**
 * Reads GPU outputs back with one download of their whole shared buffer, then slices it: 4096
 * outputs cost one mapAsync, not 4096.
 */
export async function downloadOutputs(
  engine: SplitEngine,
  outs: readonly GpuTensor[],
  decode: typeof hostDataFromBytes,
): Promise<HostTensor[]> {
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
        data: decode(o.dtype, bytes.get(o.buffer)!.subarray(o.byteOffset, o.byteOffset + o.byteLength)),
      }) as HostTensor,
  );
}

/** A whole GPU buffer's bytes, read through a staging buffer of the test's own (MAP_READ | COPY_DST). */
export async function readBuffer(device: GPUDevice, b: GPUBuffer): Promise<Uint8Array> {
  const [MAP_READ, COPY_DST] = [0x1, 0x8];
  const staging = device.createBuffer({ size: b.size, usage: MAP_READ | COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(b, 0, staging, 0, b.size);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(MAP_READ);
  const bytes = new Uint8Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return bytes;
}
