// Tensors beyond one storage binding: on a device created with WebGPU's default limits
// (maxStorageBufferBindingSize 128 MiB), a 144 MiB tensor is split through several binding
// windows, and the result is compared byte for byte with the independent reference of
// test/helpers/reference.ts (a loop that stops at the first mismatch); an output set beyond
// maxBufferSize is refused before anything is allocated.
import { expect, test } from 'vitest';
import { type GpuTensor, type HostTensor, createSplitEngine } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectGpuWork } from '../helpers/check.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { defaultLimitsDevice } from '../helpers/gpu.js';

const device = await defaultLimitsDevice();

async function checkLarge(shape: number[], axis: number, sizes: number[], dispatches: (n: number) => boolean) {
  const e = await createSplitEngine({ device, strategy: 'gather' });
  const window = device.limits.maxStorageBufferBindingSize;
  const x = randomTensor('float32', shape, rng(11)) as HostTensor<'float32'>;
  expect(x.data.byteLength).toBeGreaterThan(window);
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const outs = await e.split(x, { axis, sizes });
  const stats = e.stats;
  expect((await device.popErrorScope())?.message ?? null).toBeNull();
  expect((await device.popErrorScope())?.message ?? null).toBeNull();
  expect(stats.strategy).toBe('gather');
  expectGpuWork(e, outs, { alias: false });
  expect(dispatches(stats.dispatches), `${stats.dispatches} dispatches`).toBe(true);
  const want = referenceSplit(x, axis, sizes);
  expect(outs.length).toBe(sizes.length);
  outs.forEach((o, i) => expect(firstMismatch(bitsOf(o), want[i]!), `output ${i}`).toBeUndefined());
  e.destroy();
}

test('144 MiB, strided chunks: row blocks in several windows', async () => {
  expect(device.limits.maxStorageBufferBindingSize).toBe(128 << 20);
  await checkLarge([36, 1 << 20], 1, [(1 << 19) + 3, (1 << 19) - 3], (n) => n > 2);
}, 300_000);

test('144 MiB, one row longer than a window: column blocks', async () => {
  await checkLarge([2, 18 << 20], 1, [(18 << 20) - 5, 5], (n) => n >= 3);
}, 300_000);

test('outputs that cannot fit one buffer of maxBufferSize are refused as TOO_LARGE, nothing allocated', async () => {
  const e = await createSplitEngine({ device });
  const max = device.limits.maxBufferSize;
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  const buffer = device.createBuffer({ size: max, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const x = { dtype: 'uint8', shape: [2, max / 2], buffer, byteOffset: 0, byteLength: max } as GpuTensor<'uint8'>;
  // Output 1 starts at the next aligned offset after 2 * (max/2 - 1) bytes: past maxBufferSize.
  await expect(e.split(x, { axis: 1, sizes: [max / 2 - 1, 1] })).rejects.toThrow(/above this device's maxBufferSize/);
  expect(e.stats.liveBuffers).toBe(0);
  expect((await device.popErrorScope())?.message ?? null).toBeNull();
  expect((await device.popErrorScope())?.message ?? null).toBeNull();
  buffer.destroy();
  e.destroy();
});
