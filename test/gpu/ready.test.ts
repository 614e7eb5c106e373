// Ready ahead, and nothing uninvited, counted on devices of their own (nothing compiled on them before): an engine
// on the caller's device compiles nothing and creates no buffer; a prepared split's `ready` compiles the one variant
// it needs, asynchronously, and after it its calls compile, create and write nothing; a split that must wait for a
// compile copies its input at the call (it splits what was there then), an encode compiles at once; a failed compile
// or a lost device fails `ready` and every later call; and no GPU work is submitted while no call of Cleave runs.
// Every count comes from wrapping the device's own methods; nothing is timed. Outputs are checked against the tests'
// reference split, so a call that makes nothing because it does nothing fails.
import { describe, expect, test } from 'vitest';
import { type GpuTensor, type HostTensor, SplitError, createSplitEngine } from '../../src/index.js';
import { gpuEntry } from '../../src/gpu/device.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectSplitOf } from '../helpers/check.js';
import { downloadAll } from '../helpers/download.js';
import { TENSOR_USAGE } from '../helpers/dtypes.js';

interface Counts {
  /** createComputePipeline: compiled synchronously. */
  compiles: number;
  /** createComputePipelineAsync. */
  asyncCompiles: number;
  buffers: number;
  bindGroups: number;
  writes: number;
  submits: number;
  commandBuffers: number;
}

const ZERO: Counts = {
  compiles: 0,
  asyncCompiles: 0,
  buffers: 0,
  bindGroups: 0,
  writes: 0,
  submits: 0,
  commandBuffers: 0,
};

/** What `device` made from `from` to now. */
const since = (now: Counts, from: Counts): Counts =>
  Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - from[k as keyof Counts]])) as unknown as Counts;

/** Only the named counts. */
const pick = <K extends keyof Counts>(c: Counts, ...keys: K[]) =>
  Object.fromEntries(keys.map((k) => [k, c[k]])) as Pick<Counts, K>;

/** Wraps the device's methods to count every call of them, from now on; the running totals. */
function count(device: GPUDevice): Counts {
  const c = { ...ZERO };
  const [pipeline, pipelineAsync, buffer, bindGroup] = [
    device.createComputePipeline,
    device.createComputePipelineAsync,
    device.createBuffer,
    device.createBindGroup,
  ];
  const [write, submit] = [device.queue.writeBuffer, device.queue.submit];
  device.createComputePipeline = (d) => (c.compiles++, pipeline.call(device, d));
  device.createComputePipelineAsync = (d) => (c.asyncCompiles++, pipelineAsync.call(device, d));
  device.createBuffer = (d) => (c.buffers++, buffer.call(device, d));
  device.createBindGroup = (d) => (c.bindGroups++, bindGroup.call(device, d));
  device.queue.writeBuffer = (...a: Parameters<GPUQueue['writeBuffer']>) => (c.writes++, write.apply(device.queue, a));
  device.queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
    const list = [...buffers];
    c.submits++;
    c.commandBuffers += list.length;
    return submit.call(device.queue, list);
  };
  return c;
}

/**
 * A test on a device of its own, on which nothing was compiled before (the library's Dawn loader, a new adapter and
 * device, as helpers/gpu.ts's defaultLimitsDevice makes one), inside validation and out-of-memory error scopes
 * (`scoped`: not for a device the test destroys), destroyed after it.
 */
function freshTest(name: string, fn: (device: GPUDevice) => Promise<void>, scoped = true): void {
  test(name, async () => {
    Object.assign(globalThis, (await import('webgpu')).globals);
    const gpu = await gpuEntry();
    if (typeof gpu === 'string') throw new Error(gpu);
    const adapter = await gpu.requestAdapter();
    if (!adapter) throw new Error(`No WebGPU adapter (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'})`);
    const device = await adapter.requestDevice();
    try {
      if (!scoped) return await fn(device);
      device.pushErrorScope('validation');
      device.pushErrorScope('out-of-memory');
      let failure: unknown;
      try {
        await fn(device);
      } catch (e) {
        failure = e;
      }
      const oom = await device.popErrorScope();
      const validation = await device.popErrorScope();
      if (failure) throw failure;
      expect(validation?.message ?? null, 'GPU validation error').toBeNull();
      expect(oom?.message ?? null, 'GPU out-of-memory error').toBeNull();
    } finally {
      device.destroy();
    }
  });
}

/** `x`'s bytes in a buffer of the caller's, as a GPU tensor. */
function callerTensor(device: GPUDevice, x: HostTensor<'float32'>): GpuTensor<'float32'> {
  const buffer = device.createBuffer({ size: x.data.byteLength, usage: TENSOR_USAGE });
  device.queue.writeBuffer(buffer, 0, x.data);
  return { dtype: 'float32', shape: x.shape, buffer, byteOffset: 0, byteLength: x.data.byteLength };
}

describe('ready ahead: compiles and objects counted', () => {
  freshTest("an engine on the caller's device compiles nothing and creates nothing", async (device) => {
    const c = count(device);
    const e = await createSplitEngine({ device });
    expect(c, 'made by createSplitEngine({ device })').toEqual(ZERO);
    expect(e.stats.pipelinesCreated).toBe(0);
    e.destroy();
  });

  // alias as by default ('owned': a split may view the engine's input, an encode never does), and 'none'.
  for (const alias of [undefined, 'none'] as const)
    freshTest(
      `alias ${alias ?? 'by default'}: prepare compiles nothing at once; ready compiles its one variant ` +
        'asynchronously; after it, prepared splits and encodes make nothing',
      async (device) => {
        const c = count(device);
        const e = await createSplitEngine({ device, strategy: 'gather' });
        const x = randomTensor('float32', [4, 6], rng(1)) as HostTensor<'float32'>;
        const gx = e.upload(x);
        const start = { ...c };
        const p = e.prepare(gx, { axis: 1, sizes: [1, 5], alias });
        expect(since(c, start).compiles, 'compiled synchronously by prepare').toBe(0);
        await p.ready;
        expect(pick(since(c, start), 'compiles', 'asyncCompiles'), 'compiled by prepare and ready').toEqual({
          compiles: 0,
          asyncCompiles: 1,
        });
        expect(e.stats.pipelinesCreated, 'variants on the device').toBe(1);
        // Each call counted alone; its outputs checked and released between calls, as a decode loop releases them.
        const made = { ...ZERO };
        const counted = async <T>(fn: () => T | Promise<T>): Promise<T> => {
          const from = { ...c };
          const r = await fn();
          for (const [k, v] of Object.entries(since(c, from))) made[k as keyof Counts] += v;
          return r;
        };
        for (let i = 0; i < 8; i++) {
          const split = await counted(() => p.split(gx));
          expectSplitOf(await downloadAll(e, split), x, 1, [1, 5]);
          for (const o of split) e.release(o);
          const encoded = await counted(() => {
            const enc = device.createCommandEncoder();
            const outs = p.encode(enc, gx);
            device.queue.submit([enc.finish()]);
            return outs;
          });
          expectSplitOf(await downloadAll(e, encoded), x, 1, [1, 5]);
          for (const o of encoded) e.release(o);
        }
        expect(
          pick(made, 'compiles', 'asyncCompiles', 'buffers', 'bindGroups', 'writes'),
          '8 prepared splits and 8 prepared encodes after ready',
        ).toEqual({ compiles: 0, asyncCompiles: 0, buffers: 0, bindGroups: 0, writes: 0 });
        expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
        e.destroy();
      },
    );

  freshTest(
    'a split of a variant not compiled yet compiles it asynchronously and splits the input as it was at the call',
    async (device) => {
      const c = count(device);
      const e = await createSplitEngine({ device, strategy: 'gather' });
      // A GPU tensor of the caller's, rewritten right after the call, before the split is awaited.
      const x = randomTensor('float32', [4, 6], rng(2)) as HostTensor<'float32'>;
      const gx = callerTensor(device, x);
      let start = { ...c };
      const pending = e.split(gx, { axis: 1, sizes: [1, 5] });
      device.queue.writeBuffer(gx.buffer, 0, new Float32Array(24).fill(-1));
      const outs = await pending;
      expect(pick(since(c, start), 'compiles', 'asyncCompiles'), 'a GPU tensor').toEqual({
        compiles: 0,
        asyncCompiles: 1,
      });
      expect(e.stats.strategy).toBe('gather');
      expectSplitOf(await downloadAll(e, outs), x, 1, [1, 5]);
      // A host tensor of another variant (bytes: the bit-level gather), its array rewritten after the call.
      const h = randomTensor('uint8', [4, 5], rng(3)) as HostTensor<'uint8'>;
      const kept = { ...h, data: h.data.slice() };
      start = { ...c };
      const hostPending = e.split(h, { axis: 1, sizes: [2, 3] });
      h.data.fill(0xee);
      const hostOuts = await hostPending;
      expect(pick(since(c, start), 'compiles', 'asyncCompiles'), 'a host tensor').toEqual({
        compiles: 0,
        asyncCompiles: 1,
      });
      expect(e.stats).toMatchObject({ strategy: 'gather', unitBits: 1 });
      expectSplitOf(hostOuts, kept, 1, [2, 3]);
      expect(e.stats.pipelinesCreated, 'variants on the device').toBe(2);
      e.destroy();
      gx.buffer.destroy();
    },
  );

  freshTest('encodeSplit, and a prepared encode before ready, compile synchronously', async (device) => {
    const c = count(device);
    const e = await createSplitEngine({ device, strategy: 'gather' });
    const x = randomTensor('float32', [4, 6], rng(4)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    let start = { ...c };
    let enc = device.createCommandEncoder();
    const outs = e.encodeSplit(enc, gx, { axis: 1, sizes: [1, 5] });
    expect(pick(since(c, start), 'compiles', 'asyncCompiles'), 'encodeSplit').toEqual({
      compiles: 1,
      asyncCompiles: 0,
    });
    device.queue.submit([enc.finish()]);
    expectSplitOf(await downloadAll(e, outs), x, 1, [1, 5]);
    // Another variant (vec4<u32> words), prepared and encoded before its asynchronous compile has finished.
    const y = randomTensor('float32', [4, 8], rng(5)) as HostTensor<'float32'>;
    const gy = e.upload(y);
    const p = e.prepare(gy, { axis: 1, sizes: [4, 4] });
    start = { ...c };
    enc = device.createCommandEncoder();
    const encoded = p.encode(enc, gy);
    expect(since(c, start).compiles, 'a prepared encode before ready').toBe(1);
    expect(e.stats).toMatchObject({ strategy: 'gather', unitBits: 128 });
    device.queue.submit([enc.finish()]);
    expectSplitOf(await downloadAll(e, encoded), y, 1, [4, 4]);
    await p.ready;
    e.destroy();
  });
});

describe('ready failing', () => {
  freshTest(
    'a compile that fails: ready rejects GPU_ERROR with the cause, and so does every later call',
    async (device) => {
      const why = new GPUPipelineError('refused by the test', { reason: 'internal' });
      device.createComputePipelineAsync = () => Promise.reject(why);
      const e = await createSplitEngine({ device, strategy: 'gather' });
      const gx = e.upload(randomTensor('float32', [4, 6], rng(6)) as HostTensor<'float32'>);
      const p = e.prepare(gx, { axis: 1, sizes: [1, 5] });
      const failed: unknown = await p.ready.then(
        () => 'ready resolved',
        (x: unknown) => x,
      );
      expect(failed).toBeInstanceOf(SplitError);
      expect(failed).toMatchObject({ code: 'GPU_ERROR' });
      expect((failed as Error).cause, "the device's error").toBe(why);
      await expect(p.split(gx)).rejects.toMatchObject({ code: 'GPU_ERROR' });
      expect(() => p.encode(device.createCommandEncoder(), gx)).toThrow(expect.objectContaining({ code: 'GPU_ERROR' }));
      await expect(p.split(gx)).rejects.toMatchObject({ code: 'GPU_ERROR' });
      e.destroy();
    },
  );

  freshTest(
    'a device destroyed before ready settles: ready rejects DEVICE_LOST, and so does every later call',
    async (device) => {
      const e = await createSplitEngine({ device, strategy: 'gather' });
      const gx = e.upload(randomTensor('float32', [4, 6], rng(7)) as HostTensor<'float32'>);
      const p = e.prepare(gx, { axis: 1, sizes: [1, 5] });
      device.destroy();
      await expect(p.ready).rejects.toMatchObject({ code: 'DEVICE_LOST' });
      await expect(p.split(gx)).rejects.toMatchObject({ code: 'DEVICE_LOST' });
      expect(() => p.encode(device.createCommandEncoder(), gx)).toThrow(
        expect.objectContaining({ code: 'DEVICE_LOST' }),
      );
      e.destroy();
    },
    false,
  );
});

describe('nothing uninvited', () => {
  freshTest(
    'no GPU work is submitted while no call of Cleave runs; a prepared encode submits nothing',
    async (device) => {
      const c = count(device);
      // Submits made while a call of Cleave runs (from its start until it returns or settles), or the test's own.
      let [calls, own] = [0, 0];
      const outside = { ...ZERO };
      const submit = device.queue.submit;
      device.queue.submit = (buffers: Iterable<GPUCommandBuffer>) => {
        const list = [...buffers];
        if (calls === 0 && own === 0) {
          outside.submits++;
          outside.commandBuffers += list.length;
        }
        return submit.call(device.queue, list);
      };
      const call = async <T>(fn: () => T | Promise<T>): Promise<T> => {
        calls++;
        try {
          return await fn();
        } finally {
          calls--;
        }
      };
      const idle = async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        for (let i = 0; i < 3; i++) await device.queue.onSubmittedWorkDone();
      };
      const e = await call(() => createSplitEngine({ device }));
      const x = randomTensor('float32', [6, 10], rng(8)) as HostTensor<'float32'>;
      const gx = await call(() => e.upload(x));
      // Splits of every kind: host and GPU tensors, shared and separate, a variant compiled at the call, a prepared one.
      for (const [axis, sizes, layout] of [
        [1, [3, 7], 'shared'],
        [1, [3, 7], 'separate'],
        [0, [1, 5], 'shared'],
        [1, [1, 1, 8], 'shared'],
      ] as const) {
        const outs = await call(() => e.split(gx, { axis, sizes: [...sizes], layout }));
        expectSplitOf(await call(() => downloadAll(e, outs)), x, axis, [...sizes]);
        for (const o of outs) await call(() => e.release(o));
      }
      const u = randomTensor('uint8', [3, 7], rng(9)) as HostTensor<'uint8'>;
      expectSplitOf(await call(() => e.split(u, { axis: 1, sizes: [2, 5] })), u, 1, [2, 5]);
      const p = await call(() => e.prepare(gx, { axis: 1, sizes: [4, 6] }));
      await call(() => p.ready);
      expectSplitOf(await call(async () => downloadAll(e, await p.split(gx))), x, 1, [4, 6]);
      await idle();
      expect(pick(outside, 'submits', 'commandBuffers'), 'submitted outside any call, idle 200 ms included').toEqual({
        submits: 0,
        commandBuffers: 0,
      });
      // Inside a prepared encode: recorded into the caller's encoder, never submitted by Cleave.
      const enc = device.createCommandEncoder();
      const before = { ...c };
      const encoded = await call(() => p.encode(enc, gx));
      expect(since(c, before).submits, 'submits inside a prepared encode').toBe(0);
      own++;
      device.queue.submit([enc.finish()]);
      own--;
      expectSplitOf(await call(() => downloadAll(e, encoded)), x, 1, [4, 6]);
      await idle();
      expect(pick(outside, 'submits', 'commandBuffers'), 'submitted outside any call, at the end').toEqual({
        submits: 0,
        commandBuffers: 0,
      });
      await call(() => e.destroy());
    },
  );
});
