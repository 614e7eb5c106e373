// GPU objects in steady state, counted: what a decode step (a prepared split whose K and V destinations move one
// slot per step) and a pipelined batch (64 splits whose outputs stay alive, then one wait) create on the device once
// warm: bind groups, buffers and queue writes, by wrapping the device's own methods around the calls. The decode step
// of the issue is counted command by command too (passes, dispatches, bind groups set, copies: the encoders' and
// passes' methods wrapped), and the gather's one dispatch for several targets: three destinations in one buffer, K
// and V in one cache buffer, 64 'separate' outputs. Counts, not timings; every output is checked against the tests'
// reference split too, so a step that creates nothing because it does nothing fails.
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

/** What a call recorded and made: compute passes, pipelines set, dispatches, bind groups set, copy commands. */
interface Recorded extends Made {
  passes: number;
  pipelines: number;
  dispatches: number;
  setBindGroup: number;
  copies: number;
}

/** Replaces the method `o[k]` with one that calls `tick`, then the method itself (on `o`, with every argument). */
function tap<T extends object, K extends keyof T>(o: T, k: K, tick: () => void): void {
  const method = o[k] as (...a: unknown[]) => unknown;
  o[k] = ((...a: unknown[]) => (tick(), method.apply(o, a))) as T[K];
}

/**
 * Counts what `fn` records into every encoder the device creates while it runs (Cleave's and the test's own): the
 * device's createCommandEncoder returns the real encoder, its beginComputePass and copyBufferToBuffer wrapped, and
 * the pass it begins with its setPipeline, setBindGroup and dispatchWorkgroups wrapped; and what `counted` counts.
 */
async function recorded(device: GPUDevice, fn: () => Promise<void>): Promise<Recorded> {
  const r = { passes: 0, pipelines: 0, dispatches: 0, setBindGroup: 0, copies: 0 };
  const createEncoder = device.createCommandEncoder;
  device.createCommandEncoder = (d) => {
    const enc = createEncoder.call(device, d);
    tap(enc, 'copyBufferToBuffer', () => r.copies++);
    const begin = enc.beginComputePass;
    enc.beginComputePass = (pd) => {
      r.passes++;
      const pass = begin.call(enc, pd);
      tap(pass, 'setPipeline', () => r.pipelines++);
      tap(pass, 'setBindGroup', () => r.setBindGroup++);
      tap(pass, 'dispatchWorkgroups', () => r.dispatches++);
      return pass;
    };
    return enc;
  };
  try {
    return { ...(await counted(device, fn)), ...r };
  } finally {
    device.createCommandEncoder = createEncoder;
  }
}
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

/** The heads-major cache's slot strides, and a [1, H, 1, D] destination's bytes. */
const cacheOf = ([H, T, D]: readonly [number, number, number]) => ({
  bytes: H * T * D * 2,
  slotBytes: H * D * 2,
  strides: [H * T * D, T * D, D, 1],
});

describe("the issue's decode step, command by command: Q into a caller's buffer, K and V at a slot that moves", () => {
  // A fused float16 QKV [1, 3H, 1, D] prepared once; Q into a buffer of the caller's, K and V into heads-major caches
  // [1, H, T, D] at slot t. Slot t lies t·D·2 bytes on: odd and even slots are two alignment classes, both met in the
  // 8 warm steps.
  const [H, T, D] = [12, 64, 64];
  const { bytes, slotBytes, strides } = cacheOf([H, T, D]);
  const rowMajor = [H * D, D, D, 1];
  for (const strategy of ['gather', 'auto'] as const)
    for (const call of ['split', 'encode'] as const)
      gpuTest(
        `${strategy}, prepared ${call}: each of 32 warm steps records one pass and one dispatch (or copies), makes nothing`,
        async (g) => {
          const e = await g.engine(strategy === 'gather' ? { strategy } : {});
          const next = rng(17);
          const images = [noise(slotBytes, next), noise(bytes, next), noise(bytes, next)];
          const [qBuf, kCache, vCache] = images.map((b) => bufferOf(g.device, b)) as [GPUBuffer, GPUBuffer, GPUBuffer];
          const q: Into<'float16'> = { dtype: 'float16', shape: [1, H, 1, D], buffer: qBuf, byteOffset: 0 };
          const into = (t: number) => [q, cacheSlot(kCache, [H, T, D], t), cacheSlot(vCache, [H, T, D], t)];
          const x = randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>;
          const gx = e.upload(x);
          const p = e.prepare(gx, { axis: 1, parts: 3, into: into(0) });
          await p.ready;
          const step = async (t: number) => {
            let outs: GpuTensor<'float16'>[];
            if (call === 'split') outs = await p.split(gx, into(t));
            else {
              const enc = g.device.createCommandEncoder();
              outs = p.encode(enc, gx, into(t));
              g.device.queue.submit([enc.finish()]);
            }
            for (const o of outs) e.release(o);
          };
          const pipelines = e.stats.pipelinesCreated;
          // Once ready, a call at the prepared placement makes nothing: its table and bind groups were made ahead.
          const first = await recorded(g.device, () => step(0));
          expect({ buffers: first.buffers, bindGroups: first.bindGroups, writes: first.writes }, 'step 0').toEqual(
            NONE,
          );
          for (let t = 1; t < 8; t++) await step(t);
          for (let t = 8; t < 40; t++) {
            const r = await recorded(g.device, () => step(t % T));
            const at = `step ${t} (strategy ${e.stats.strategy})`;
            expect({ buffers: r.buffers, bindGroups: r.bindGroups, writes: r.writes }, `${at}: made`).toEqual(NONE);
            if (strategy === 'auto' && e.stats.strategy === 'copy') {
              expect(r.passes, `${at}: passes`).toBe(0);
              expect(r.copies, `${at}: copies`).toBeGreaterThan(0);
              continue;
            }
            expect(e.stats.strategy, at).toBe('gather');
            expect([r.passes, r.dispatches, r.copies], `${at}: passes, dispatches, copies`).toEqual([1, 1, 0]);
            expect(r.setBindGroup, `${at}: bind groups set`).toBeLessThanOrEqual(4);
          }
          expect(e.stats.pipelinesCreated, 'pipelines compiled after ready').toBe(pipelines);
          // Q holds the reference's Q over the noise; each cache every step's K or V at its slot.
          const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
          const wantQ = scatter(images[0]!, ref[0]!, 'float16', [1, H, 1, D], 0, rowMajor);
          expect(firstMismatch(await readBuffer(g.device, qBuf), wantQ), 'Q').toBeUndefined();
          for (const c of [1, 2]) {
            let want: Uint8Array = images[c]!;
            for (let t = 0; t < 40; t++)
              want = scatter(want, ref[c]!, 'float16', [1, H, 1, D], (t % T) * D * 2, strides);
            const cache = c === 1 ? kCache : vCache;
            expect(firstMismatch(await readBuffer(g.device, cache), want), `cache ${c}`).toBeUndefined();
          }
          e.release(gx);
          for (const b of [qBuf, kCache, vCache]) b.destroy();
        },
      );
});

describe("the gather's one dispatch: several destinations in one buffer are one target", () => {
  const [H, T, D] = [12, 64, 64];
  const { bytes, slotBytes, strides } = cacheOf([H, T, D]);
  const rowMajor = [H * D, D, D, 1];

  gpuTest('Q, K and V into one buffer, a word apart: one dispatch, exact, every other byte kept', async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const next = rng(19);
    const x = randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>;
    const gx = e.upload(x);
    // Each destination one word after the previous one's last: disjoint words, and a word of noise between them.
    const at = [4, 4 + slotBytes + 4, 4 + 2 * (slotBytes + 4)];
    const image = noise(at[2]! + slotBytes + 4, next);
    const buffer = bufferOf(g.device, image);
    const into = at.map((byteOffset) => ({ dtype: 'float16', shape: [1, H, 1, D], buffer, byteOffset }) as const);
    let outs: GpuTensor[] = [];
    const r = await recorded(g.device, async () => {
      outs = await e.split(gx, { axis: 1, parts: 3, into });
    });
    expect([e.stats.strategy, e.stats.dispatches], 'strategy, dispatches').toEqual(['gather', 1]);
    expect([r.passes, r.dispatches], 'passes, dispatches recorded').toEqual([1, 1]);
    const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
    let want: Uint8Array = image;
    for (let i = 0; i < 3; i++) want = scatter(want, ref[i]!, 'float16', [1, H, 1, D], at[i]!, rowMajor);
    expect(firstMismatch(await readBuffer(g.device, buffer), want)).toBeUndefined();
    for (const o of [...outs, gx]) e.release(o);
    buffer.destroy();
  });

  gpuTest('K and V in the two halves of one cache buffer, at a moving slot: one dispatch a step, exact', async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const next = rng(23);
    const image = noise(2 * bytes, next);
    const buffer = bufferOf(g.device, image);
    const half = (h: number, t: number) => ({ ...cacheSlot(buffer, [H, T, D], t), byteOffset: h * bytes + t * D * 2 });
    const into = (t: number) => [undefined, half(0, t), half(1, t)];
    const x = randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>;
    const gx = e.upload(x);
    const p = e.prepare(gx, { axis: 1, parts: 3, into: into(0) });
    await p.ready;
    const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
    let want: Uint8Array = image;
    for (let t = 0; t < 24; t++) {
      let outs: GpuTensor[] = [];
      const r = await recorded(g.device, async () => {
        outs = await p.split(gx, into(t));
      });
      expect([r.passes, r.dispatches, e.stats.dispatches], `step ${t}: passes, dispatches`).toEqual([1, 1, 1]);
      // Q, in the engine's buffer, is exact too.
      const [q] = await downloadAll(e, [outs[0]!]);
      expect(firstMismatch(bitsOf(q!) as Uint8Array, ref[0]!), `step ${t}: Q`).toBeUndefined();
      for (const h of [0, 1])
        want = scatter(want, ref[h + 1]!, 'float16', [1, H, 1, D], h * bytes + t * D * 2, strides);
      for (const o of outs) e.release(o);
    }
    expect(firstMismatch(await readBuffer(g.device, buffer), want), 'the cache buffer').toBeUndefined();
    e.release(gx);
    buffer.destroy();
  });

  gpuTest("64 'separate' outputs: at most 11 dispatches (six targets each), every output exact", async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const x = randomTensor('float32', [3, 64 * 5], rng(29)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    let outs: GpuTensor[] = [];
    const r = await recorded(g.device, async () => {
      outs = await e.split(gx, { axis: 1, parts: 64, layout: 'separate' });
    });
    expect(e.stats.strategy).toBe('gather');
    expect(e.stats.dispatches, 'dispatches').toBeLessThanOrEqual(11);
    expect([r.passes, r.dispatches], 'passes, dispatches recorded').toEqual([1, e.stats.dispatches]);
    expect(new Set(outs.map((o) => o.buffer)).size, 'a buffer per output').toBe(64);
    const ref = referenceSplit(x, 1, Array<number>(64).fill(5)) as Uint8Array[];
    (await downloadAll(e, outs)).forEach((t, i) =>
      expect(firstMismatch(bitsOf(t) as Uint8Array, ref[i]!), `output ${i}`).toBeUndefined(),
    );
    for (const o of [...outs, gx]) e.release(o);
  });
});
