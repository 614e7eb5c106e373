// Tier 2: the engine's promises on a real adapter: one dispatch whatever the output count,
// aligned outputs in one buffer, cached pipelines, bit-exact values, no buffers left behind,
// errors before any GPU work, tensors past one binding window, and the costs it plans with (its
// adapter's table, the caller's, or what calibrate() measured when called: never a measurement of its own).
import { describe, expect, test } from 'vitest';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  SplitError,
  createSplitEngine,
  equalParts,
  planSplit,
  tensor,
} from '../../src/index.js';
import * as core from '../../src/core.js';
import { COST_TABLES, type CostModel, copyCheaper } from '../../src/planner/costs.js';
import { planGpu } from '../../src/planner/gpu.js';
import type { GpuPlan } from '../../src/planner/types.js';
import type { Program } from '../../src/engine/program.js';
import type { PlanCache } from '../../src/engine/plans.js';
import { TARGETS_PER_DISPATCH } from '../../src/gpu/shader.js';
import { gpuEntry } from '../../src/gpu/device.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectSplitOf } from '../helpers/check.js';
import { downloadAll } from '../helpers/download.js';
import { gpuTest } from '../helpers/gpu.js';

/** The table an adapter chooses, by the rule the brief states: 'software' for a CPU adapter (SwiftShader), else 'gpu'. */
function tableOf(device: GPUDevice): CostModel {
  const info = device.adapterInfo;
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  const software = info.isFallbackAdapter || /swiftshader|llvmpipe|lavapipe|softpipe|\bwarp\b/i.test(text);
  return software ? COST_TABLES.software : COST_TABLES.gpu;
}

/**
 * Submits and query sets made on every device while `fn` runs: the prototypes wrapped, so that a device made inside
 * `fn` is counted too. A count, never a timing.
 */
async function workDuring(fn: () => Promise<void>): Promise<{ submits: number; querySets: number }> {
  const made = { submits: 0, querySets: 0 };
  const [queue, device] = [GPUQueue.prototype, GPUDevice.prototype];
  const [submit, createQuerySet] = [queue.submit, device.createQuerySet];
  queue.submit = function (this: GPUQueue, buffers: Iterable<GPUCommandBuffer>) {
    made.submits++;
    return submit.call(this, buffers);
  };
  device.createQuerySet = function (this: GPUDevice, d: GPUQuerySetDescriptor) {
    made.querySets++;
    return createQuerySet.call(this, d);
  };
  try {
    await fn();
  } finally {
    [queue.submit, device.createQuerySet] = [submit, createQuerySet];
  }
  return made;
}

/** 200 ms with no call, then a few round trips of the queue: time for anything started on its own to show. */
async function idle(device: GPUDevice): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < 3; i++) await device.queue.onSubmittedWorkDone();
}

/** The engine's plan cache (src/engine/program.ts PlanCache<Program>), reached past the public type. */
const plansOf = (e: SplitEngine) => (e as unknown as { plans: PlanCache<Program> }).plans;

/** The key of the program the engine used last (the newest in its plan cache). */
const newestKey = (e: SplitEngine) => plansOf(e).find(() => true)!.gp!.key;

describe('one dispatch per split', () => {
  for (const n of [1, 2, 7, 8, 9, 10, 64, 4096]) {
    gpuTest(`${n} outputs: one dispatch, one buffer, aligned offsets`, async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      const x = randomTensor('float32', [3, 4096, 2], rng(n)) as HostTensor<'float32'>;
      const sizes = equalParts(4096, n);
      const outs = await e.split(e.upload(x), { axis: 1, sizes });
      expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1, copies: 0 });
      expect(new Set(outs.map((o) => o.buffer)).size).toBe(1);
      for (const o of outs) expect(o.byteOffset % g.device.limits.minStorageBufferOffsetAlignment).toBe(0);
      expectSplitOf(await downloadAll(e, outs), x, 1, sizes);
    });
  }

  gpuTest('host in, host out: one upload, one dispatch, outputs as host arrays', async (g) => {
    const e = await g.engine();
    const x = randomTensor('int16', [5, 9, 3], rng(3)) as HostTensor<'int16'>;
    const outs = await e.split(x, { axis: 1, parts: 4 });
    expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
    expect(outs.every((o) => o.data instanceof Int16Array)).toBe(true);
    expectSplitOf(outs, x, 1, [3, 3, 3, 0]);
  });

  gpuTest(
    'grids beyond 65535 workgroups fold into 2-D (537 MB, 65.6K tiles, one dispatch)',
    async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      const n = 67_200_001;
      const sizes = [33_600_001, 33_600_000]; // odd lengths: 4-byte words
      const data = new Float32Array(2 * n);
      for (let i = 0; i < data.length; i += 997) data[i] = i;
      const plan = planGpu(
        planSplit('float32', [2, n], 1, sizes),
        {
          alignment: 256,
          maxBindingBytes: g.device.limits.maxStorageBufferBindingSize,
          maxBufferBytes: g.device.limits.maxBufferSize,
          targetsPerDispatch: TARGETS_PER_DISPATCH,
        },
        {
          srcByteOffset: 0,
          allowAlias: false,
          separate: false,
          strategy: 'gather',
          costs: COST_TABLES.software,
          into: undefined,
        },
      );
      if (plan.strategy !== 'gather') throw new Error('expected the gather strategy');
      expect(plan.dispatches[0]!.tiles.length).toBeGreaterThan(g.device.limits.maxComputeWorkgroupsPerDimension);
      const outs = await e.split({ dtype: 'float32', shape: [2, n], data }, { axis: 1, sizes });
      expect(e.stats).toMatchObject({ strategy: 'gather', unitBits: 32, dispatches: 1 });
      for (const [i, o] of outs.entries()) {
        const want = new Float32Array(2 * sizes[i]!);
        want.set(data.subarray(i * sizes[0]!, i * sizes[0]! + sizes[i]!));
        want.set(data.subarray(n + i * sizes[0]!, n + i * sizes[0]! + sizes[i]!), sizes[i]!);
        expect(Buffer.compare(new Uint8Array(o.data.buffer), new Uint8Array(want.buffer)), `output ${i}`).toBe(0);
      }
      e.destroy();
    },
    300_000,
  );

  gpuTest('the bit-level variant at scale: 20 MB of uint8 with chunk boundaries inside words', async (g) => {
    const e = await g.engine();
    const x = randomTensor('uint8', [2, 10_000_001], rng(7)) as HostTensor<'uint8'>;
    const sizes = [5_000_001, 5_000_000];
    const outs = await e.split(x, { axis: 1, sizes });
    expect(e.stats).toMatchObject({ strategy: 'gather', unitBits: 1, dispatches: 1 });
    for (const [i, o] of outs.entries()) {
      const want = new Uint8Array(2 * sizes[i]!);
      want.set(x.data.subarray(i * 5_000_001, i * 5_000_001 + sizes[i]!));
      want.set(x.data.subarray(10_000_001 + i * 5_000_001, 10_000_001 + i * 5_000_001 + sizes[i]!), sizes[i]!);
      expect(Buffer.compare(o.data, want), `output ${i}`).toBe(0);
    }
  });
});

describe('strategies', () => {
  gpuTest('contiguous aligned chunks of a GPU tensor alias its buffer; few contiguous chunks copy', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [1024, 64], rng(1)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const aliased = await e.split(gx, { axis: 0, parts: 4 });
    expect(e.stats).toMatchObject({ strategy: 'alias', dispatches: 0, copies: 0 });
    expect(aliased.every((o) => o.buffer === gx.buffer)).toBe(true);
    expectSplitOf(await downloadAll(e, aliased), x, 0, [256, 256, 256, 256]);
    const copied = await e.split(x, { axis: 0, sizes: [1, 1023] });
    // Two copy commands or one dispatch, as the engine's costs choose (SwiftShader's table: copies; a GPU's may gather).
    const copies = copyCheaper(e.stats.costs!, 2, 1024 * 64 * 4, 1);
    expect(e.stats).toMatchObject(
      copies ? { strategy: 'copy', dispatches: 0, copies: 2 } : { strategy: 'gather', dispatches: 1, copies: 0 },
    );
    expectSplitOf(copied, x, 0, [1, 1023]);
    // The input's buffer lives on until its aliases are released too.
    e.release(gx);
    expectSplitOf(await downloadAll(e, aliased), x, 0, [256, 256, 256, 256]);
  });
});

describe('pipelines', () => {
  gpuTest('compiled once per device and variant; after warm-up a split compiles nothing', async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const variants: [FixedDType, number[], number[]][] = [
      ['float32', [4, 8], [4, 4]],
      ['float32', [4, 6], [4, 2]],
      ['float32', [4, 5], [2, 3]],
      ['uint8', [4, 5], [2, 3]],
    ];
    for (const [dtype, shape, sizes] of variants) await e.split(randomTensor(dtype, shape, rng(1)), { axis: 1, sizes });
    const warm = e.stats.pipelinesCreated;
    expect(warm).toBeLessThanOrEqual(4);
    for (let i = 0; i < 40; i++) {
      const dtype = (['float32', 'int64', 'uint8', 'float16', 'complex128', 'bool'] as const)[i % 6];
      const dim = 3 + i;
      const x = randomTensor(dtype, [2, dim, 1 + (i % 3)], rng(i));
      const gx = e.upload(x as HostTensor<typeof dtype>);
      await e.split(gx, { axis: 1, parts: 1 + (i % 7) });
    }
    expect(e.stats.pipelinesCreated).toBe(warm);
    const other = await g.engine({ strategy: 'gather' });
    await other.split(randomTensor('float32', [4, 8], rng(1)), { axis: 1, sizes: [4, 4] });
    expect(other.stats.pipelinesCreated, 'the cache is per device, shared by engines').toBe(warm);
  });
});

describe('bit exactness', () => {
  gpuTest('NaN payloads, signalling NaNs, -0, Inf and 64-bit integers come out with the same bits', async (g) => {
    const e = await g.engine();
    const f32 = new Uint32Array([
      0x7fc00001, 0x7f800001, 0xffbfffff, 0x80000000, 0x7f800000, 0xff800000, 0x00000001, 0x7fffffff,
    ]);
    const f64 = new BigUint64Array([
      0x7ff0000000000001n,
      0x7ff8deadbeef0001n,
      0x8000000000000000n,
      0xfff0000000000000n,
    ]);
    const f16 = new Uint16Array([0x7c01, 0x7e01, 0x8000, 0xfc00, 0x7bff, 0x0001]);
    const i64 = new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -1n]);
    const tensors: HostTensor[] = [
      { dtype: 'float32', shape: [2, 4], data: new Float32Array(f32.buffer) },
      { dtype: 'float64', shape: [2, 2], data: new Float64Array(f64.buffer) },
      { dtype: 'complex64', shape: [2, 2], data: new Float32Array(f32.buffer) },
      { dtype: 'complex128', shape: [2, 1], data: new Float64Array(f64.buffer) },
      { dtype: 'float16', shape: [2, 3], data: f16 },
      { dtype: 'bfloat16', shape: [2, 3], data: f16 },
      { dtype: 'int64', shape: [2, 2], data: i64 },
      { dtype: 'uint64', shape: [2, 2], data: new BigUint64Array(i64.buffer) },
    ];
    for (const x of tensors) {
      const sizes = [1, x.shape[1]! - 1];
      expectSplitOf(await e.split(x, { axis: 1, sizes }), x, 1, sizes);
      const outs = await e.split(e.upload(x as HostTensor<FixedDType>), { axis: 1, sizes });
      expect(e.stats.strategy).not.toBe('cpu');
      expectSplitOf(await downloadAll(e, outs), x, 1, sizes);
    }
  });
});

describe('edge shapes', () => {
  gpuTest('rank 0: upload and download work; splitting names the rule', async (g) => {
    const e = await g.engine();
    const s: HostTensor<'float32'> = { dtype: 'float32', shape: [], data: new Float32Array([2.5]) };
    expect([...(await e.download(e.upload(s))).data]).toEqual([2.5]);
    await expect(e.split(s, { parts: 1 })).rejects.toMatchObject({ code: 'RANK' });
  });

  gpuTest('stats describe the split that finished last, an empty one included', async (g) => {
    const e = await g.engine();
    await e.split(randomTensor('float32', [4, 6], rng(1)), { axis: 1, sizes: [1, 5] });
    expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
    const empty = e.upload({ dtype: 'float32', shape: [2, 0], data: new Float32Array(0) });
    expect(await e.split(empty, { axis: 1, sizes: [] })).toEqual([]);
    expect(e.stats).toMatchObject({ dispatches: 0, copies: 0 });
    await e.split({ dtype: 'string', shape: [2], data: ['a', 'b'] }, { parts: 2 });
    expect(e.stats.strategy).toBe('cpu');
  });

  gpuTest('0-length dimensions and all-empty outputs bind nothing of size zero', async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const x: HostTensor<'int32'> = { dtype: 'int32', shape: [3, 0, 4], data: new Int32Array(0) };
    for (const axis of [0, 1, 2]) {
      const outs = await e.split(e.upload(x), { axis, parts: 2 });
      expect(outs.map((o) => o.byteLength)).toEqual([0, 0]);
      expect((await e.download(outs[1]!)).data).toEqual(new Int32Array(0));
    }
    const y: HostTensor<'uint8'> = { dtype: 'uint8', shape: [5], data: new Uint8Array([1, 2, 3, 4, 5]) };
    expectSplitOf(await e.split(y, { sizes: [0, 5, 0] }), y, 0, [0, 5, 0]);
  });
});

describe('buffers', () => {
  gpuTest('release and destroy leave no live buffers', async (g) => {
    const before = g.live.size;
    const e = await g.engine();
    const x = randomTensor('float32', [6, 10], rng(2)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const outs = await e.split(gx, { axis: 1, parts: 3 });
    await e.split(x, { axis: 1, parts: 3 });
    expect(g.live.size).toBeGreaterThan(before);
    for (const o of outs) e.release(o);
    e.release(gx);
    expect(e.stats.liveBuffers).toBeGreaterThan(0); // scratch pools remain until destroy
    e.destroy();
    expect(e.stats.liveBuffers).toBe(0);
    expect(g.live.size).toBe(before);
  });

  gpuTest(
    'outputs share a buffer that returns to the pool with the last of them and is reused; released tensors are refused',
    async (g) => {
      const e = await g.engine();
      const x = e.upload(randomTensor('int32', [4, 6], rng(5)) as HostTensor<'int32'>);
      const outs = await e.split(x, { axis: 1, parts: 2 });
      await e.download(outs[1]!);
      const live = g.live.size;
      e.release(outs[0]!);
      e.release(outs[0]!); // twice is harmless: it cannot free the buffer under outs[1]
      await expect(e.download(outs[0]!)).rejects.toMatchObject({ code: 'RELEASED' });
      expect([...(await e.download(outs[1]!)).data]).toHaveLength(12);
      e.release(outs[1]!);
      await expect(e.split(outs[1]!, { parts: 1 })).rejects.toMatchObject({ code: 'RELEASED' });
      const again = await e.split(x, { axis: 1, parts: 2 });
      expect(again[0]!.buffer, 'the pooled buffer is reused').toBe(outs[0]!.buffer);
      expect(g.live.size, 'no buffer created').toBe(live);
    },
  );

  gpuTest('a released tensor stays refused after its buffer is reused, by an output or as scratch', async (g) => {
    const e = await g.engine();
    const x = e.upload(randomTensor('float32', [64], rng(8)) as HostTensor<'float32'>);
    const first = await e.split(x, { parts: 4 });
    for (const t of first) e.release(t);
    const second = await e.split(x, { parts: 4 });
    expect(second[0]!.buffer, 'reused').toBe(first[0]!.buffer);
    await expect(e.download(first[0]!)).rejects.toMatchObject({ code: 'RELEASED' });
    await expect(e.split(first[1]!, { parts: 1 })).rejects.toMatchObject({ code: 'RELEASED' });
    // A released upload whose buffer then serves as the host path's scratch.
    const up = e.upload(randomTensor('float32', [64], rng(9)) as HostTensor<'float32'>);
    e.release(up);
    await e.split(randomTensor('float32', [64], rng(10)) as HostTensor<'float32'>, { parts: 3 });
    await expect(e.download(up)).rejects.toMatchObject({ code: 'RELEASED' });
    await expect(e.split(up, { sizes: [64] })).rejects.toMatchObject({ code: 'RELEASED' });
  });

  gpuTest('destroy while a split is in flight: the split is refused, nothing is left', async (g) => {
    const e = await g.engine();
    const x = e.upload(randomTensor('float64', [2, 4], rng(11)) as HostTensor<'float64'>);
    const pending = e.split(x, { axis: 1, sizes: [1, 3] });
    e.destroy();
    await expect(pending).rejects.toMatchObject({ code: 'RELEASED' });
    expect(e.stats.liveBuffers).toBe(0);
  });

  gpuTest('a caller buffer without the usage a split needs is refused before any GPU work', async (g) => {
    const e = await g.engine();
    const buffer = g.device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const x = { dtype: 'float32', shape: [64], buffer, byteOffset: 0, byteLength: 256 } as GpuTensor<'float32'>;
    await expect(e.split(x, { sizes: [32, 32] })).rejects.toThrow(/needs usage COPY_SRC/);
    await expect(e.download(x)).rejects.toThrow(/needs usage COPY_SRC/);
    const ok = await e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array([1, 2, 3, 4]) }, { parts: 2 });
    expect([...ok[0]!.data]).toEqual([1, 2]); // and the engine is not left with a pending GPU error
    buffer.destroy();
  });

  gpuTest('a reshaped copy of an output is usable while its lease lives, and cannot release it', async (g) => {
    const e = await g.engine();
    const outs = await e.split(e.upload(randomTensor('float32', [2, 8], rng(6)) as HostTensor<'float32'>), {
      axis: 1,
      parts: 2,
    });
    const reshaped = { ...outs[0]!, shape: [8] };
    expect(() => e.release(reshaped)).toThrow(
      expect.objectContaining({ code: 'BAD_INPUT', message: expect.stringMatching(/not a copy of one/) }),
    );
    expect([...(await e.download(reshaped)).data]).toHaveLength(8);
    e.release(outs[0]!);
    e.release(outs[1]!);
    await expect(e.download(reshaped)).rejects.toMatchObject({ code: 'RELEASED' });
  });
});

describe('errors come before any GPU work', () => {
  const bad: [
    string,
    (e: Awaited<ReturnType<typeof createSplitEngine>>) => Promise<unknown> | unknown,
    string,
    RegExp,
  ][] = [
    [
      'data length',
      (e) => e.split({ dtype: 'float32', shape: [2, 3], data: new Float32Array(5) }, { parts: 2 }),
      'DATA_LENGTH',
      /shape \[2, 3\] of float32 needs 6 data entries, got 5/,
    ],
    [
      'data class',
      (e) => e.split({ dtype: 'int64', shape: [2], data: new Int32Array(2) } as never, { parts: 2 }),
      'DATA_TYPE',
      /dtype int64 needs data as BigInt64Array, got Int32Array/,
    ],
    [
      'float16 data as floats: the message names the conversion',
      (e) => e.split({ dtype: 'float16', shape: [2], data: new Float32Array(2) } as never, { parts: 2 }),
      'DATA_TYPE',
      /dtype float16 needs data as Uint16Array or Float16Array, got Float32Array: halvesFrom\(numbers\) makes the bits/,
    ],
    [
      'float8 data as floats: the fix is in the README',
      (e) => e.split({ dtype: 'float8e4m3fn', shape: [2], data: new Float32Array(2) } as never, { parts: 2 }),
      'DATA_TYPE',
      /dtype float8e4m3fn needs data as Uint8Array, got Float32Array: the README's "Host data" paragraph says what float8e4m3fn/,
    ],
    [
      'complex length',
      (e) => e.split({ dtype: 'complex64', shape: [2], data: new Float32Array(2) }, { parts: 2 }),
      'DATA_LENGTH',
      /of complex64 needs 4 data entries, got 2/,
    ],
    [
      'unknown dtype',
      (e) => e.split({ dtype: 'float8', shape: [1], data: new Uint8Array(1) } as never, { parts: 1 }),
      'BAD_DTYPE',
      /unknown dtype 'float8'/,
    ],
    [
      'bad shape',
      (e) => e.split({ dtype: 'uint8', shape: [2, -1], data: new Uint8Array(0) }, { parts: 1 }),
      'BAD_SHAPE',
      /dimension 1 of the shape must be a non-negative integer, got -1/,
    ],
    [
      'axis',
      (e) => e.split({ dtype: 'uint8', shape: [2, 2], data: new Uint8Array(4) }, { axis: 2, parts: 1 }),
      'AXIS_RANGE',
      /axis 2 is outside \[-2, 1\]/,
    ],
    [
      'negative size',
      (e) => e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array(4) }, { sizes: [5, -1] }),
      'BAD_SIZE',
      /split length 1 must be an integer >= 0, got -1/,
    ],
    [
      'fractional size',
      (e) => e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array(4) }, { sizes: [1.5, 2.5] }),
      'BAD_SIZE',
      /got 1.5/,
    ],
    [
      'sum',
      (e) => e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array(4) }, { sizes: [1, 2] }),
      'SIZE_SUM',
      /sum to 3 but dimension 0 of the input has length 4/,
    ],
    [
      'parts',
      (e) => e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array(4) }, { parts: 0 }),
      'BAD_PARTS',
      /'parts' must be an integer >= 1, got 0/,
    ],
    [
      'both',
      (e) => e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array(4) }, { sizes: [4], parts: 1 } as never),
      'BAD_OPTIONS',
      /exactly one of sizes and parts/,
    ],
    [
      'string upload',
      (e) => e.upload({ dtype: 'string', shape: [1], data: ['a'] } as never),
      'WRONG_BACKEND',
      /string tensors cannot live on the GPU/,
    ],
    [
      'too large',
      (e) => e.split({ dtype: 'float32', shape: [2 ** 40, 2 ** 20], data: new Float32Array(0) }, { parts: 1 }),
      'TOO_LARGE',
      /has more than 2\^53 elements/,
    ],
  ];
  for (const [name, call, code, message] of bad) {
    gpuTest(name, async (g) => {
      const e = await g.engine();
      const live = g.live.size;
      let err: unknown;
      try {
        await call(e);
      } catch (x) {
        err = x;
      }
      expect(err).toBeInstanceOf(SplitError);
      expect(err).toMatchObject({ code, name: 'SplitError' });
      expect((err as Error).message).toMatch(message);
      expect(g.live.size, 'no buffer created').toBe(live);
      const ok = await e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array([1, 2, 3, 4]) }, { parts: 2 });
      expect([...ok[1]!.data]).toEqual([3, 4]);
    });
  }

  gpuTest('a GPU tensor claiming bytes beyond its buffer is refused', async (g) => {
    const e = await g.engine();
    const buffer = g.device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
    const lying = { dtype: 'float32', shape: [2, 4], buffer, byteOffset: 8, byteLength: 32 } as GpuTensor<'float32'>;
    const live = g.live.size;
    await expect(e.split(lying, { axis: 1, parts: 2 })).rejects.toThrow(
      /it runs 24 bytes past the end of its 16-byte buffer \(32 bytes from byteOffset 8\)/,
    );
    expect(g.live.size).toBe(live);
    buffer.destroy();
  });
});

describe('device and backends', () => {
  test("backend 'cpu' runs without a device and refuses GPU-only calls", async () => {
    const e = await createSplitEngine({ backend: 'cpu' });
    expect(e.backend).toBe('cpu');
    expect(e.device).toBeUndefined();
    expect(() => e.upload({ dtype: 'float32', shape: [1], data: new Float32Array(1) })).toThrow(/CPU backend/);
    const outs = await e.split({ dtype: 'bool', shape: [3], data: new Uint8Array([1, 0, 1]) }, { parts: 2 });
    expect(outs.map((o) => [...o.data])).toEqual([[1, 0], [1]]);
  });

  gpuTest('creation measures nothing, ever: no query set and no submit at creation or while idle', async () => {
    let e: SplitEngine | undefined;
    const created = await workDuring(async () => {
      e = await createSplitEngine(); // a device of its own: its most used pipelines compiled, nothing measured
      await idle(e.device!);
    });
    expect(created, 'GPU work at creation and while idle').toEqual({ submits: 0, querySets: 0 });
    const x = randomTensor('float32', [16, 8], rng(5)) as HostTensor<'float32'>;
    expectSplitOf(await e!.split(x, { axis: 1, sizes: [3, 5] }), x, 1, [3, 5]);
    const after = await workDuring(() => idle(e!.device!));
    expect(after, 'GPU work while idle after a split').toEqual({ submits: 0, querySets: 0 });
    expect(e!.stats.costs, "its adapter's table").toBe(tableOf(e!.device!));
    e!.destroy();
  });

  gpuTest("a caller's device plans with its adapter's table (SwiftShader's: 'software')", async (g) => {
    const e = await g.engine();
    expect(e.stats.costs).toBe(tableOf(g.device));
    expect(tableOf(g.device), 'these tests run on SwiftShader (vitest.config.ts)').toBe(COST_TABLES.software);
    const other = await createSplitEngine({ device: g.device, strategy: 'copy' });
    expect(other.stats.costs, 'every engine on the device alike').toBe(COST_TABLES.software);
    other.destroy();
  });

  gpuTest(
    'calibrate() measures when called and returns the costs; the engine plans with them from then on',
    async (g) => {
      const e = await g.engine();
      const table = e.stats.costs;
      const x = randomTensor('float32', [16, 8], rng(5)) as HostTensor<'float32'>;
      const gx = e.upload(x);
      const options = { axis: 1, sizes: [3, 5] };
      const p = e.prepare(gx, options);
      await p.ready;
      const before = await e.split(gx, options);
      expect(newestKey(e).costs, 'planned with the table before').toBe(table);
      let costs: CostModel | undefined;
      const work = await workDuring(async () => {
        costs = await e.calibrate();
      });
      expect(work.submits, 'measured at the call').toBeGreaterThan(0);
      expect(Object.keys(costs!).sort()).toEqual(Object.keys(COST_TABLES.software).sort());
      for (const [k, v] of Object.entries(costs!)) expect(Number.isFinite(v) && v >= 0, `${k}: ${v}`).toBe(true);
      expect(costs, 'a measurement, not the table').not.toBe(table);
      expect(e.stats.costs, 'the stats show the costs splits plan with').toBe(costs);
      // The same split again is planned with the measured costs; the prepared one keeps the costs it was prepared with.
      const after = await e.split(gx, options);
      expect(newestKey(e).costs, 'planned with the measurement after').toBe(costs);
      const prepared = await p.split(gx);
      expect((p as unknown as { gp: GpuPlan }).gp.key.costs, 'the prepared split keeps its costs').toBe(table);
      for (const outs of [before, after, prepared]) expectSplitOf(await downloadAll(e, outs), x, 1, [3, 5]);
      // Another engine on the device has its own costs: a measurement is the engine's, not the device's.
      const other = await createSplitEngine({ device: g.device });
      expect(other.stats.costs).toBe(table);
      other.destroy();
    },
  );

  test("a CPU engine's calibrate() rejects WRONG_BACKEND; a destroyed engine's, RELEASED", async () => {
    const cpu = await createSplitEngine({ backend: 'cpu' });
    await expect(cpu.calibrate()).rejects.toMatchObject({ code: 'WRONG_BACKEND', name: 'SplitError' });
    expect(cpu.stats.costs).toBeUndefined();
    const e = await createSplitEngine();
    e.destroy();
    await expect(e.calibrate()).rejects.toMatchObject({ code: 'RELEASED' });
  });

  gpuTest('a device without timestamp queries is measured by the wall clock', async () => {
    const gpu = await gpuEntry();
    if (typeof gpu === 'string') throw new Error(gpu);
    const adapter = await gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter');
    const device = await adapter.requestDevice();
    expect(device.features.has('timestamp-query')).toBe(false);
    const e = await createSplitEngine({ device });
    device.pushErrorScope('validation');
    const costs = await e.calibrate();
    expect(await device.popErrorScope(), 'no GPU error').toBeNull();
    expect(costs, 'measured').not.toBe(tableOf(device));
    expect(e.stats.costs).toBe(costs);
    for (const v of Object.values(costs)) expect(Number.isFinite(v) && v >= 0).toBe(true);
    e.destroy();
    device.destroy();
  });

  gpuTest('createSplitEngine({ costs }): the engine plans with them, and keeps its own copy', async (g) => {
    // Tables that leave no doubt: copies free and dispatches dear, or the other way round.
    const copies = { copyCommandNs: 0, dispatchNs: 1e9, copyByteNs: 0, gatherByteNs: 1 };
    const gather = { copyCommandNs: 1e9, dispatchNs: 0, copyByteNs: 1, gatherByteNs: 0 };
    const x = randomTensor('float32', [8, 16], rng(12)) as HostTensor<'float32'>;
    for (const [costs, strategy] of [
      [copies, 'copy'],
      [gather, 'gather'],
    ] as const) {
      const given = { ...costs };
      const e = await createSplitEngine({ device: g.device, costs: given });
      expect(e.stats.costs).toEqual(costs);
      given.dispatchNs = 7; // the caller's object, changed later, changes nothing
      expect(e.stats.costs).toEqual(costs);
      const gx = e.upload(x);
      // Contiguous chunks (never views: alias 'none') and strided rows, each way as the costs say.
      for (const [axis, sizes] of [
        [0, [2, 6]],
        [1, [4, 12]],
      ] as const) {
        const outs = await e.split(gx, { axis, sizes: [...sizes], alias: 'none' });
        expect(e.stats.strategy, `axis ${axis} with ${strategy}'s costs`).toBe(strategy);
        expectSplitOf(await downloadAll(e, outs), x, axis, [...sizes]);
      }
      e.destroy();
    }
  });

  describe('malformed costs: BAD_OPTIONS, naming the field', () => {
    const good = { copyCommandNs: 2000, dispatchNs: 33000, copyByteNs: 0.01, gatherByteNs: 0.01 };
    const missing: Partial<typeof good> = { ...good };
    delete missing.gatherByteNs;
    const bad: [string, unknown, RegExp][] = [
      ['a missing field', missing, /costs\.gatherByteNs/],
      ['a negative field', { ...good, dispatchNs: -1 }, /costs\.dispatchNs/],
      ['NaN', { ...good, copyByteNs: NaN }, /costs\.copyByteNs/],
      ['Infinity', { ...good, copyCommandNs: Infinity }, /costs\.copyCommandNs/],
      ['a string', { ...good, copyCommandNs: '2000' }, /costs\.copyCommandNs/],
      ['an unknown key', { ...good, dispatchMs: 3 }, /dispatchMs/],
      ['not an object', 5, /costs/],
    ];
    for (const [name, costs, message] of bad)
      gpuTest(name, async (g) => {
        const live = g.live.size;
        const err = await createSplitEngine({ device: g.device, costs: costs as CostModel }).then(
          (e) => (e.destroy(), undefined),
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SplitError);
        expect(err).toMatchObject({ code: 'BAD_OPTIONS', subject: { kind: 'engine', name: 'costs' } });
        expect((err as Error).message).toMatch(message);
        expect(g.live.size, 'no buffer created').toBe(live);
      });
  });

  test("'auto' finds the adapter by itself and asks for its largest bindings; a lost device is reported", async () => {
    const e = await createSplitEngine();
    expect(e.backend).toBe('webgpu');
    expect(e.adapterInfo?.architecture).toBeTypeOf('string');
    expect(e.device!.limits.maxStorageBufferBindingSize).toBeGreaterThan(128 << 20);
    e.device!.destroy();
    await e.device!.lost;
    await expect(e.split({ dtype: 'uint8', shape: [2], data: new Uint8Array(2) }, { parts: 2 })).rejects.toMatchObject({
      code: 'DEVICE_LOST',
    });
    e.destroy();
  });

  gpuTest("cleave-gpu/core's engine: the same calls and outputs on the GPU and the CPU, but no run", async (g) => {
    const [full, lean, cpu] = [
      await g.engine(),
      await core.createSplitEngine({ device: g.device }),
      await core.createSplitEngine({ backend: 'cpu' }),
    ];
    expect(typeof full.run).toBe('function');
    expect('run' in lean).toBe(false);
    const x = randomTensor('uint8', [4, 6], rng(5)) as HostTensor<'uint8'>;
    const { split, download } = lean; // the methods work when taken off the engine
    const gx = lean.upload(x);
    const outs = await split(gx, { axis: 1, sizes: [1, 5] });
    expectSplitOf(await Promise.all(outs.map((o) => download(o))), x, 1, [1, 5]);
    expectSplitOf(await cpu.split(x, { axis: 1, sizes: [1, 5] }), x, 1, [1, 5]);
    expect(cpu.stats.strategy).toBe('cpu');
    for (const t of [...outs, gx]) lean.release(t);
    lean.destroy();
    cpu.destroy();
  });
});

describe("download with array 'Float16Array'", () => {
  gpuTest('Node 20 has no Float16Array: refused with what to do instead', async (g) => {
    const e = await g.engine();
    const gx = e.upload({ dtype: 'float16', shape: [1], data: new Uint16Array([0x3c00]) } as const);
    await expect(e.download(gx, { array: 'Float16Array' })).rejects.toMatchObject({
      code: 'BAD_OPTIONS',
      message:
        "download: this runtime has no Float16Array (Node before 24): download without 'array' gives the bits, " +
        'and halfToNumber reads each',
    });
    expect([...(await e.download(gx)).data]).toEqual([0x3c00]);
    e.release(gx);
  });
});

describe('one shape for every call', () => {
  gpuTest('a GPU tensor and a destination without byteOffset or byteLength: 0 and the shape’s', async (g) => {
    const e = await g.engine();
    const x = tensor('float32', new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
    const buffer = g.device.createBuffer({ size: 24, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | 0x8 });
    g.device.queue.writeBuffer(buffer, 0, x.data);
    const out = g.device.createBuffer({ size: 8, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | 0x4 });
    const into = { dtype: 'float32', shape: [2, 1], buffer: out } as const;
    const outs = await e.split({ dtype: 'float32', shape: [2, 3], buffer } as const, {
      axis: 1,
      sizes: [2, 1],
      into: [undefined, into],
    });
    expect([outs[1]!.buffer === out, outs[1]!.byteOffset, outs[1]!.byteLength]).toEqual([true, 0, 8]);
    const got = await downloadAll(e, outs);
    expect(got.map((t) => [...t.data])).toEqual([
      [1, 2, 4, 5],
      [3, 6],
    ]);
    for (const t of outs) e.release(t);
    buffer.destroy();
    out.destroy();
  });

  gpuTest('encodeSplit of a host tensor is refused and keeps no program', async (g) => {
    const e = await g.engine();
    const x = tensor('float32', Float32Array.of(1, 2, 3, 4), [4]);
    expect(() => e.encodeSplit(g.device.createCommandEncoder(), x as never, { parts: 2 })).toThrow(
      'encodeSplit: the input must be a GPU tensor',
    );
    expect(plansOf(e).size, 'programs in the plan cache after the refusal').toBe(0);
    // Control: the same split of a GPU tensor goes through, and its program is kept.
    const gx = e.upload(x);
    const enc = g.device.createCommandEncoder();
    const outs = e.encodeSplit(enc, gx, { parts: 2 });
    g.device.queue.submit([enc.finish()]);
    expect(plansOf(e).size, 'programs in the plan cache after a split went through').toBe(1);
    expectSplitOf(await downloadAll(e, outs), x, 0, [2, 2]);
  });
});
