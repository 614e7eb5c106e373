// GPU objects in steady state, counted: what a decode step (a prepared split whose K and V destinations move one
// slot per step) and a pipelined batch (64 splits whose outputs stay alive, then one wait) create on the device once
// warm: bind groups, buffers and queue writes, by wrapping the device's own methods around the calls. A count, not a
// timing; every output is checked against the tests' reference split too, so a step that creates nothing because it
// does nothing fails.
import { describe, expect } from 'vitest';
import type { GpuTensor, HostTensor, Into, SplitEngine, Strategy } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { bufferOf, cacheSlot, noise, scatter } from '../helpers/destinations.js';
import { gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';

interface Made {
  bindGroups: number;
  buffers: number;
  writes: number;
}

/** Counts what `device` creates and writes while `fn` runs (calls made through it only). */
async function counted(device: GPUDevice, fn: () => Promise<void>): Promise<Made> {
  const made: Made = { bindGroups: 0, buffers: 0, writes: 0 };
  const [bind, create, write] = [device.createBindGroup, device.createBuffer, device.queue.writeBuffer];
  device.createBindGroup = (d) => (made.bindGroups++, bind.call(device, d));
  device.createBuffer = (d) => (made.buffers++, create.call(device, d));
  device.queue.writeBuffer = (...a: Parameters<GPUQueue['writeBuffer']>) => (
    made.writes++,
    write.apply(device.queue, a)
  );
  try {
    await fn();
  } finally {
    [device.createBindGroup, device.createBuffer, device.queue.writeBuffer] = [bind, create, write];
  }
  return made;
}

const NONE: Made = { bindGroups: 0, buffers: 0, writes: 0 };
const STRATEGIES = ['gather', 'copy', 'auto'] as const satisfies readonly (Strategy | 'auto')[];

describe('a decode step: K and V into heads-major caches at a slot that moves every step', () => {
  // The step: a fused float16 QKV [1, 3H, 1, D] split into Q, K and V; K and V into caches [1, H, T, D].
  const [H, T, D] = [12, 64, 64];
  for (const strategy of STRATEGIES)
    for (const call of ['encode', 'split'] as const)
      gpuTest(`${strategy}, prepared ${call}: 32 steps after 8 create nothing and write nothing`, async (g) => {
        const e = await g.engine({ strategy });
        const next = rng(7);
        const bytes = H * T * D * 2;
        const images = [noise(bytes, next), noise(bytes, next)];
        const caches = images.map((b) => bufferOf(g.device, b));
        const slot = (c: number, t: number): Into<'float16'> => cacheSlot(caches[c]!, [H, T, D], t);
        const x = randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>;
        const gx = e.upload(x);
        const p = e.prepare(gx, { axis: 1, parts: 3, into: [undefined, slot(0, 0), slot(1, 0)] });
        const step = async (t: number) => {
          const into = [undefined, slot(0, t), slot(1, t)];
          let outs: GpuTensor<'float16'>[];
          if (call === 'split') outs = await p.split(gx, into);
          else {
            const enc = g.device.createCommandEncoder();
            outs = p.encode(enc, gx, into);
            g.device.queue.submit([enc.finish()]);
          }
          for (const o of outs) e.release(o);
        };
        await step(0);
        // Slot 1 lies 128 bytes on: another offset within the 256-byte alignment, so another program. The gather's
        // costs its tile table and the table's bind group, and one bind group of the targets (both caches, one
        // dispatch) at the new window sizes.
        const second = await counted(g.device, () => step(1));
        if (e.stats.strategy === 'gather')
          expect(second, 'a new alignment class').toEqual({ ...NONE, bindGroups: 2, buffers: 1 });
        else expect(second, 'a new alignment class, copies').toEqual(NONE);
        for (let t = 2; t < 8; t++) await step(t);
        const made = await counted(g.device, async () => {
          for (let t = 8; t < 40; t++) await step(t % T);
        });
        expect(made, `GPU objects made in 32 steps (strategy ${e.stats.strategy})`).toEqual(NONE);
        if (strategy !== 'auto') expect(e.stats.strategy).toBe(strategy);
        // The caches hold every step's K and V: the reference scattered at each slot, over the noise.
        const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
        for (const c of [0, 1]) {
          let want: Uint8Array = images[c]!;
          for (let t = 0; t < 40; t++)
            want = scatter(want, ref[c + 1]!, 'float16', [1, H, 1, D], (t % T) * D * 2, slot(c, 0).strides!);
          expect(firstMismatch(await readBuffer(g.device, caches[c]!), want), `cache ${c}`).toBeUndefined();
        }
        e.release(gx);
        for (const b of caches) b.destroy();
      });
});

describe('a pipelined batch: 64 splits with their outputs alive, then one wait', () => {
  const batch = async (e: SplitEngine, split: () => Promise<GpuTensor[]>) => {
    const all: GpuTensor[][] = [];
    for (let k = 0; k < 64; k++) all.push(await split());
    await e.device!.queue.onSubmittedWorkDone();
    return all;
  };
  for (const strategy of STRATEGIES)
    for (const layout of ['shared', 'separate'] as const)
      gpuTest(`${strategy}, layout ${layout}: a second batch creates nothing`, async (g) => {
        const e = await g.engine({ strategy });
        const x = randomTensor('float32', [6, 40], rng(3)) as HostTensor<'float32'>;
        const gx = e.upload(x);
        const options = { axis: 1, sizes: [8, 12, 20], layout, alias: 'none' } as const;
        const p = e.prepare(gx, options);
        for (const split of [() => e.split(gx, options), () => p.split(gx)]) {
          for (const o of (await batch(e, split)).flat()) e.release(o);
          let last: GpuTensor[][] = [];
          const made = await counted(g.device, async () => {
            last = await batch(e, split);
          });
          expect(made, `GPU objects made by a warm batch of 64 (strategy ${e.stats.strategy})`).toEqual(NONE);
          const ref = referenceSplit(x, 1, [8, 12, 20]) as Uint8Array[];
          for (const outs of [last[0]!, last[63]!])
            (await downloadAll(e, outs)).forEach((t, i) =>
              expect(firstMismatch(bitsOf(t) as Uint8Array, ref[i]!), `output ${i}`).toBeUndefined(),
            );
          for (const o of last.flat()) e.release(o);
        }
        e.release(gx);
      });
});
