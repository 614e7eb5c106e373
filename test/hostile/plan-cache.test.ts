// The engine's one plan cache (engine.plans, bound KEPT_PROGRAMS): a failed call keeps nothing of itself. A call
// refused before any GPU work (bad sizes, a bad destination) adds no program and creates nothing; a call the GPU
// refuses (a destination buffer destroyed before the call: GPU_ERROR from its scopes) adds no program and drops the
// bind groups it made, so the next identical good call makes them all again; a call that resolved early (a caller's
// buffer split before, then destroyed) leaves the cache when its late error arrives, so the next call makes its
// program's table again. And the bound: 40 distinct splits keep exactly KEPT_PROGRAMS programs, the least recently
// used dropped, a dropped program's table destroyed once the queue is done; a prepared split's own program is its
// caller's, never the cache's, and its program for another alignment class is the cache's. The failing calls provoke
// GPU errors on purpose, so they run on a device of their own, as blame.test.ts does; the good calls' outputs are
// checked against the tests' reference split.

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { type GpuTensor, type HostTensor, type SplitEngine, SplitError, createSplitEngine } from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import type { Program } from '../../src/engine/program.js';
import { KEPT_PROGRAMS, type PlanCache } from '../../src/engine/plans.js';
import { compile } from '../../src/gpu/pipelines.js';
import { USAGE } from '../../src/usage.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, cacheSlot, noise, scatter } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { TENSOR_USAGE } from '../helpers/dtypes.js';
import { gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { splitProblem } from './controls.js';
import { describeOutcome, outcomeOf } from './harness.js';

/** The engine's one plan cache (the Engine class's `plans`, which the public interface leaves out). */
const plansOf = (e: SplitEngine) => (e as unknown as { plans: PlanCache<Program> }).plans;

/** What the device creates while `fn` runs: bind groups, tile tables (UNIFORM buffers), other buffers. */
interface Made {
  bindGroups: number;
  tables: number;
  buffers: number;
}

/** Counts what `device` creates while `fn` runs (sync or async), through its own methods. */
async function made(device: GPUDevice, fn: () => unknown): Promise<Made> {
  const m: Made = { bindGroups: 0, tables: 0, buffers: 0 };
  const [bind, create] = [device.createBindGroup, device.createBuffer];
  device.createBindGroup = (d) => (m.bindGroups++, bind.call(device, d));
  device.createBuffer = (d) => (d.usage & USAGE.UNIFORM ? m.tables++ : m.buffers++, create.call(device, d));
  try {
    await fn();
  } finally {
    [device.createBindGroup, device.createBuffer] = [bind, create];
  }
  return m;
}

const x = randomTensor('float32', [4, 64], rng(5)) as HostTensor<'float32'>;
const SIZES = [24, 40];

/** `x` in a buffer of the caller's, at byte 0. */
function callerTensor(device: GPUDevice): GpuTensor<'float32'> {
  const bytes = new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength);
  return { dtype: 'float32', shape: [4, 64], buffer: bufferOf(device, bytes), byteOffset: 0, byteLength: bytes.length };
}

/** A destination for output 1 ([4, 40]) at byte 4 of a new buffer of noise; its bytes before the split. */
function destination(device: GPUDevice, seed: number) {
  const before = noise(4 + 4 * 40 * 4 + 8, rng(seed));
  const buffer = bufferOf(device, before);
  return { into: [undefined, { dtype: 'float32', shape: [4, 40], buffer, byteOffset: 4 }] as const, before };
}

/** Output 0 is exact, and the destination's buffer holds output 1 at byte 4 over its noise. */
async function expectExact(e: SplitEngine, outs: GpuTensor[], d: ReturnType<typeof destination>): Promise<void> {
  const ref = referenceSplit(x, 1, SIZES) as Uint8Array[];
  const [first] = await downloadAll(e, [outs[0]!]);
  expect(firstMismatch(bitsOf(first!) as Uint8Array, ref[0]!), 'output 0').toBeUndefined();
  const want = scatter(d.before, ref[1]!, 'float32', [4, 40], 4, [40, 1]);
  expect(firstMismatch(await readBuffer(e.device!, d.into[1].buffer), want), 'the destination').toBeUndefined();
}

let device: GPUDevice;

/** An engine on the test's device that forces the gather. */
const engine = (options: { onLateError?: (e: SplitError) => void } = {}) =>
  createSplitEngine({ ...options, device, strategy: 'gather' });

beforeAll(async () => {
  Object.assign(globalThis, (await import('webgpu')).globals);
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(`No WebGPU adapter: ${found.reason}`);
  device = found.device;
  // Every shader variant compiled first: a split before its variant's compile copies its input and binds the copy,
  // which would move the bind groups counted here onto a buffer of the pool.
  const kinds = [
    [32, false],
    [64, false],
    [128, false],
    [1, false],
    [1, true],
  ] as const;
  const all = kinds.flatMap(([unitBits, msbFirst]) =>
    [[0], [0, 1]].map((targets) => ({ unitBits, msbFirst, targets })),
  );
  await Promise.all(all.map((g) => compile(device, g)));
});

afterAll(() => device?.destroy());

describe('a failed call keeps nothing', () => {
  test('refused before any GPU work (bad sizes, a bad destination): no program kept, nothing created', async () => {
    const e = await engine();
    const gx = e.upload(x);
    const outs = await e.split(gx, { axis: 1, sizes: SIZES });
    expect(splitProblem(await downloadAll(e, outs), x, 1, SIZES)).toBeUndefined();
    for (const o of outs) e.release(o);
    const kept = plansOf(e).size;
    const small = device.createBuffer({ size: 16, usage: TENSOR_USAGE });
    const refused = [
      ['sizes that do not sum to the axis', () => e.split(gx, { axis: 1, sizes: [24, 41] }), 'SIZE_SUM'],
      [
        'a destination buffer too small (a split planned, then refused)',
        () =>
          e.split(gx, {
            axis: 1,
            sizes: [8, 56],
            into: [undefined, { dtype: 'float32', shape: [4, 56], buffer: small }],
          }),
        'DATA_LENGTH',
      ],
    ] as const;
    for (const [what, call, code] of refused) {
      let outcome = '';
      const m = await made(device, async () => {
        outcome = describeOutcome(await outcomeOf(call, 10_000));
      });
      expect(outcome, what).toBe(code);
      expect(m, `${what}: created`).toEqual({ bindGroups: 0, tables: 0, buffers: 0 });
      expect(plansOf(e).size, `${what}: programs`).toBe(kept);
    }
    // The good call's program is still there: its next call makes nothing.
    const again = await made(device, async () => {
      for (const o of await e.split(gx, { axis: 1, sizes: SIZES })) e.release(o);
    });
    expect(again, 'the good call again').toEqual({ bindGroups: 0, tables: 0, buffers: 0 });
    small.destroy();
    e.release(gx);
    e.destroy();
  });

  test('refused by the GPU (a destination destroyed before the call): no program kept, its bind groups dropped', async () => {
    const e = await engine();
    const kept = plansOf(e).size;
    const gx = e.upload(x);
    const gone = destination(device, 1);
    gone.into[1].buffer.destroy();
    let outcome = '';
    const failed = await made(device, async () => {
      outcome = describeOutcome(await outcomeOf(() => e.split(gx, { axis: 1, sizes: SIZES, into: gone.into }), 10_000));
    });
    expect(outcome, 'the call').toBe('GPU_ERROR');
    expect(failed.bindGroups, 'bind groups the failed call made').toBeGreaterThan(0);
    expect(plansOf(e).size, 'programs after the failed call').toBe(kept);
    // The same call into a live buffer: nothing of the failed one is found, so it makes its table and every bind
    // group again (the input's among them: the failed call's were dropped, not kept for its buffer).
    const d = destination(device, 2);
    let outs: GpuTensor[] = [];
    const next = await made(device, async () => {
      outs = await e.split(gx, { axis: 1, sizes: SIZES, into: d.into });
    });
    expect({ ...next, buffers: 0 }, 'the next identical call makes what the failed one made').toEqual({
      ...failed,
      buffers: 0,
    });
    expect(plansOf(e).size, 'programs after the good call').toBe(kept + 1);
    await expectExact(e, outs, d);
    for (const o of [...outs, gx]) e.release(o);
    d.into[1].buffer.destroy();
    e.destroy();
  });

  test('resolved early, then its late error: the program leaves the cache, the next call makes its table again', async () => {
    const late: SplitError[] = [];
    const e = await engine({ onLateError: (err) => late.push(err) });
    const options = { axis: 1, sizes: SIZES };
    const exact = async (t: GpuTensor) => {
      const outs = await e.split(t, options);
      expect(splitProblem(await downloadAll(e, outs), x, 1, options.sizes)).toBeUndefined();
      for (const o of outs) e.release(o);
    };
    const kept = plansOf(e).size;
    const t = callerTensor(device);
    await exact(t); // its first split waits for its scopes: seen from then on
    expect(plansOf(e).size, 'programs after its first call').toBe(kept + 1);
    // A warm call of a fresh buffer of the caller's: what the program's next call makes while it is kept.
    const fresh = callerTensor(device);
    const warm = await made(device, () => exact(fresh));
    t.buffer.destroy();
    const outs = await e.split(t, options); // seen, outputs pooled: resolves before its error is known
    await vi.waitFor(() => expect(late).toHaveLength(1), { timeout: 10_000, interval: 2 });
    expect(late[0]!.code).toBe('GPU_ERROR');
    await expect(e.download(outs[0]!), 'an output of the failed call').rejects.toMatchObject({ code: 'GPU_ERROR' });
    for (const o of outs) e.release(o);
    expect(plansOf(e).size, 'programs after the late error').toBe(kept);
    const another = callerTensor(device);
    const again = await made(device, () => exact(another));
    expect(again, 'the next call of a fresh buffer: its table and the table bind group made again').toEqual({
      bindGroups: warm.bindGroups + 1,
      tables: warm.tables + 1,
      buffers: warm.buffers,
    });
    expect(plansOf(e).size, 'programs after the next call').toBe(kept + 1);
    for (const b of [fresh.buffer, another.buffer]) b.destroy();
    e.destroy();
  });
});

describe('the bound', () => {
  gpuTest(
    `40 distinct splits keep ${KEPT_PROGRAMS} programs, the least recently used dropped, its table destroyed`,
    async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      const gx = e.upload(x);
      const tables: GPUBuffer[] = [];
      const create = g.device.createBuffer;
      g.device.createBuffer = (d) => {
        const b = create.call(g.device, d);
        if (d.usage & USAGE.UNIFORM) tables.push(b);
        return b;
      };
      const split = async (k: number) => {
        const outs = await e.split(gx, { axis: 1, sizes: [k, 64 - k] });
        if (k % 13 === 1)
          expect(splitProblem(await downloadAll(e, outs), x, 1, [k, 64 - k]), `split ${k}`).toBeUndefined();
        for (const o of outs) e.release(o);
      };
      // Splits 1 to 40 in turn: the first `dropped` are the least recently used when the cache passes its bound.
      const dropped = 40 - KEPT_PROGRAMS;
      const live = (from: number, to: number) => tables.slice(from, to).filter((b) => g.live.has(b)).length;
      try {
        for (let k = 1; k <= 40; k++) await split(k);
        expect(tables.length, 'a table per split').toBe(40);
        expect(plansOf(e).size, 'programs kept').toBe(KEPT_PROGRAMS);
        // The dropped programs' tables (g.live holds the device's buffers not destroyed) go once the queue is done;
        // the kept ones' stay.
        await g.device.queue.onSubmittedWorkDone();
        await vi.waitFor(() => expect(live(0, dropped), 'tables of the dropped programs').toBe(0), {
          timeout: 10_000,
          interval: 2,
        });
        expect(live(dropped, 40), 'tables of the kept programs').toBe(KEPT_PROGRAMS);
        // The least recently used one kept is found; the last one dropped is planned again, with a new table.
        await split(dropped + 1);
        expect(tables.length, `split ${dropped + 1} again`).toBe(40);
        await split(dropped);
        expect(tables.length, `split ${dropped} again`).toBe(41);
        expect(plansOf(e).size, 'programs kept').toBe(KEPT_PROGRAMS);
      } finally {
        g.device.createBuffer = create;
      }
      e.release(gx);
    },
  );
});

describe('a prepared split and the cache', () => {
  gpuTest(
    "the caller holds the prepared program; its program for another alignment class is the cache's",
    async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      const [H, T, D] = [2, 8, 64];
      const cache = g.device.createBuffer({ size: H * T * D * 2, usage: TENSOR_USAGE });
      const slot = (t: number) => cacheSlot(cache, [H, T, D], t);
      const qk = randomTensor('float16', [1, 2 * H, 1, D], rng(9)) as HostTensor<'float16'>;
      const gx = e.upload(qk);
      const p = e.prepare(gx, { axis: 1, parts: 2, into: [undefined, slot(0)] });
      await p.ready;
      const step = async (t: number) => {
        for (const o of await p.split(gx, [undefined, slot(t)])) e.release(o);
      };
      // Slot 2 lies 256 bytes on, in the prepared slot's alignment class: the prepared program serves it.
      await step(0);
      await step(2);
      expect(plansOf(e).size, 'programs kept after the prepared class').toBe(0);
      // Slot 1 lies 128 bytes on: another class, another program, kept in the engine's cache and found again.
      await step(1);
      expect(plansOf(e).size, 'programs kept after the other class').toBe(1);
      await step(3);
      expect(plansOf(e).size, 'programs kept after the other class again').toBe(1);
      const ref = referenceSplit(qk, 1, [H, H]) as Uint8Array[];
      const outs = await p.split(gx, [undefined, slot(5)]);
      const [q] = await downloadAll(e, outs.slice(0, 1));
      expect(firstMismatch(bitsOf(q!) as Uint8Array, ref[0]!), 'the first output').toBeUndefined();
      for (const o of [...outs, gx]) e.release(o);
      cache.destroy();
    },
  );
});
