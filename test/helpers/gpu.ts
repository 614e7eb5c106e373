// GPU test harness: one real adapter per test file (Dawn, SwiftShader here), every test inside a
// validation error scope, and every buffer counted. No adapter is a failure, never a skip.

import { afterAll, expect, test } from 'vitest';
import { createSplitEngine, type SplitEngine, type SplitEngineOptions } from '../../src/index.js';
import { acquireDevice, gpuEntry } from '../../src/gpu/device.js';

export interface GpuFixture {
  readonly device: GPUDevice;
  /** Buffers created on the device and not yet destroyed. */
  readonly live: Set<GPUBuffer>;
  engine(options?: Omit<SplitEngineOptions, 'device'>): Promise<SplitEngine>;
}

let fixture: Promise<GpuFixture> | undefined;

export function gpu(): Promise<GpuFixture> {
  return (fixture ??= (async () => {
    // Cleave leaves globalThis alone; the tests name GPUBufferUsage and friends as a browser does.
    Object.assign(globalThis, (await import('webgpu')).globals);
    const found = await acquireDevice();
    if ('reason' in found) throw new Error(`No WebGPU adapter: GPU tests need one (${found.reason})`);
    const device = found.device;
    const live = countBuffers(device);
    const engines: SplitEngine[] = [];
    afterAll(() => {
      for (const e of engines) e.destroy();
      device.destroy();
    });
    return {
      device,
      live,
      async engine(options = {}) {
        const e = await createSplitEngine({ ...options, device });
        engines.push(e);
        return e;
      },
    };
  })());
}

function countBuffers(device: GPUDevice): Set<GPUBuffer> {
  const live = new Set<GPUBuffer>();
  const create = device.createBuffer.bind(device);
  device.createBuffer = (desc: GPUBufferDescriptor) => {
    const b = create(desc);
    live.add(b);
    const destroy = b.destroy.bind(b);
    b.destroy = () => {
      live.delete(b);
      destroy();
    };
    return b;
  };
  return live;
}

/** A test whose GPU work runs inside validation and out-of-memory error scopes. */
export function gpuTest(name: string, fn: (g: GpuFixture) => Promise<void>, timeout?: number): void {
  test(
    name,
    async () => {
      const g = await gpu();
      g.device.pushErrorScope('validation');
      g.device.pushErrorScope('out-of-memory');
      let failure: unknown;
      try {
        await fn(g);
      } catch (e) {
        failure = e;
      }
      const oom = await g.device.popErrorScope();
      const validation = await g.device.popErrorScope();
      if (failure) throw failure;
      expect(validation?.message ?? null, 'GPU validation error').toBeNull();
      expect(oom?.message ?? null, 'GPU out-of-memory error').toBeNull();
    },
    timeout,
  );
}

/**
 * A device with WebGPU's default limits (128 MiB bindings, 256 MiB buffers) on its own adapter, for
 * tests of tensors past one binding window; destroyed after the file's tests.
 */
export async function defaultLimitsDevice(): Promise<GPUDevice> {
  Object.assign(globalThis, (await import('webgpu')).globals);
  const gpu = await gpuEntry(); // the library's Dawn loader: one create() for the process, kept alive
  if (typeof gpu === 'string') throw new Error(gpu);
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error(`No WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'})`);
  const device = await adapter.requestDevice();
  afterAll(() => device.destroy());
  return device;
}
