// The buffer pool under sizes that never repeat: a tensor that grows an element a step (the loop: a float32
// [t + 1] uploaded and split into [1] and [t], everything released) creates a buffer only when a size passes into a
// new size class, not every step, and the pool holds no more free lists than free buffers however many sizes went
// through it; forced to gather, the tile tables of the shapes' programs stay within the plan cache's bound. Counts,
// never timings; outputs are checked against the tests' reference split along the way, so a step that creates nothing
// because it does nothing fails.
import { describe, expect, vi } from 'vitest';
import type { GpuTensor, HostTensor, SplitEngine } from '../../src/index.js';
import { BufferPool } from '../../src/gpu/pool.js';
import type { Program } from '../../src/engine/program.js';
import { KEPT_PROGRAMS, type PlanCache } from '../../src/engine/plans.js';
import { STAGING_USAGE, TENSOR_USAGE, USAGE } from '../../src/usage.js';
import { downloadAll } from '../helpers/download.js';
import { expectSplitOf } from '../helpers/check.js';
import { gpuTest } from '../helpers/gpu.js';

/** Steps of the loop: the second half's are counted. */
const N = 4000;

/** The engine's pool (the Engine class's `gpu`, which the public interface leaves out). */
const poolOf = (e: SplitEngine) => (e as unknown as { gpu: { pool: BufferPool } }).gpu.pool;

/** The engine's one plan cache (the Engine class's `plans`). */
const plansOf = (e: SplitEngine) => (e as unknown as { plans: PlanCache<Program> }).plans;

const grown = (t: number): HostTensor<'float32'> => ({
  dtype: 'float32',
  shape: [t + 1],
  data: Float32Array.from({ length: t + 1 }, (_, i) => i * 0.5 - t),
});

/** The buffers `device` creates while `fn` runs: from the pool, and the gather's tile tables (uniform), kept. */
async function created(device: GPUDevice, fn: () => Promise<void>) {
  const made = { pooled: 0, tables: [] as GPUBuffer[] };
  const create = device.createBuffer;
  device.createBuffer = (d) => {
    const b = create.call(device, d);
    if (d.usage & USAGE.UNIFORM) made.tables.push(b);
    else made.pooled++;
    return b;
  };
  try {
    await fn();
  } finally {
    device.createBuffer = create;
  }
  return made;
}

describe('a split whose input grows an element a step', () => {
  // The default engine copies. Forced to gather, each new shape is a new plan with a tile
  // table of its own (made at creation, never pooled): those are counted apart, and the pool's buffers alone bounded.
  for (const strategy of [undefined, 'gather'] as const)
    gpuTest(
      `${strategy ?? 'default'}: ${N} steps create at most a buffer per 16 steps in the second half; lists <= buffers`,
      async (g) => {
        const e = await g.engine(strategy && { strategy });
        const step = async (t: number, check = false) => {
          const x = grown(t);
          const gx = e.upload(x);
          const outs: GpuTensor[] = await e.split(gx, { sizes: [1, t] });
          if (check) expectSplitOf(await downloadAll(e, outs), x, 0, [1, t]);
          for (const o of [...outs, gx]) e.release(o);
        };
        for (let t = 1; t <= N / 2; t++) await step(t, t % 500 === 7);
        const made = await created(g.device, async () => {
          for (let t = N / 2 + 1; t <= N; t++) await step(t, t % 500 === 7 || t === N);
        });
        expect(e.stats.strategy).toBe(strategy ?? 'copy');
        expect(made.pooled, `buffers created in steps ${N / 2 + 1} to ${N}`).toBeLessThanOrEqual(N / 2 / 16);
        expect(made.tables.length, 'tile tables').toBe(strategy ? N / 2 : 0);
        // Each new shape is a program of the engine's one plan cache: past its bound the oldest goes, and its table
        // with it once the queue is done (g.live holds the device's buffers not destroyed).
        expect(plansOf(e).size, 'programs kept').toBeLessThanOrEqual(KEPT_PROGRAMS);
        await g.device.queue.onSubmittedWorkDone();
        const alive = () => made.tables.filter((b) => g.live.has(b)).length;
        await vi.waitFor(() => expect(alive(), 'tables alive').toBeLessThanOrEqual(KEPT_PROGRAMS), {
          timeout: 10_000,
          interval: 5,
        });
        const held = poolOf(e).held;
        expect(held.buffers, 'free buffers').toBeGreaterThan(0);
        expect(held.lists, `free lists, with ${held.buffers} free buffers`).toBeLessThanOrEqual(held.buffers);
      },
    );

  gpuTest('uploads of 600 sizes, none twice, each released: never more free lists than free buffers', async (g) => {
    const e = await g.engine();
    const pool = poolOf(e);
    let most = 0;
    for (let i = 0; i < 600; i++) {
      const n = 4 * (1 + ((i * 7919) % 16_384)); // sizes all over 4 bytes to 64 KiB, none twice
      e.release(e.upload({ dtype: 'uint8', shape: [n], data: new Uint8Array(n).fill(i) }));
      expect(pool.held.lists, `after ${i + 1} uploads`).toBeLessThanOrEqual(pool.held.buffers);
      most = Math.max(most, pool.held.lists);
    }
    // Classes merge the 600 sizes into fewer lists, and eviction at the count bound drops lists as they empty.
    expect(most, 'free lists at most').toBeLessThan(600);
    expect(pool.held.buffers, 'free buffers').toBeLessThanOrEqual(pool.maxCount);
    const x = grown(40);
    expectSplitOf(await e.split(x, { sizes: [1, 40] }), x, 0, [1, 40]);
  });
});

describe('exact and classed buffers', () => {
  gpuTest(
    'share a free list where their sizes are equal; a classed take is never smaller, an exact one never other',
    async (g) => {
      const pool = new BufferPool(g.device, () => undefined);
      const classed = pool.take(148, TENSOR_USAGE); // 148 bytes: class 160
      const exact = pool.take(148, TENSOR_USAGE, true);
      expect([classed.size, exact.size]).toEqual([160, 148]);
      pool.give(classed);
      pool.give(exact);
      expect(pool.take(148, TENSOR_USAGE, true), 'the exact one, not the larger').toBe(exact);
      expect(pool.take(160, TENSOR_USAGE, true), 'a classed buffer of the size asked serves an exact take').toBe(
        classed,
      );
      pool.give(exact);
      expect(pool.has([148], TENSOR_USAGE), 'a classed take of 148 wants 160').toBe(false);
      expect(pool.has([148], TENSOR_USAGE, true)).toBe(true);
      const other = pool.take(150, TENSOR_USAGE);
      expect(other, 'a new buffer, not the 148-byte one').not.toBe(exact);
      expect(other.size).toBe(160);
      pool.give(classed);
      expect(pool.has([145], STAGING_USAGE), 'another usage').toBe(false);
      expect(pool.take(145, TENSOR_USAGE), 'one last taken exact serves a classed take of its class').toBe(classed);
      expect(pool.held).toEqual({ buffers: 1, lists: 1 });
      pool.destroy();
    },
  );

  gpuTest("layout 'separate': each output's buffer its exact bytes, a size no class has", async (g) => {
    const e = await g.engine();
    const x = grown(76);
    const outs = await e.split(e.upload(x), { sizes: [37, 40], layout: 'separate' });
    expect(outs.map((o) => [o.byteLength, o.buffer.size])).toEqual([
      [148, 148],
      [160, 160],
    ]);
    expectSplitOf(await downloadAll(e, outs), x, 0, [37, 40]);
  });
});
