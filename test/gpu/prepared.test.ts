// Prepared splits on Dawn: `engine.prepare(x, options)` once, then `split` and `encode` call after call, on new tensors
// of the prepared dtype and shape, at other offsets (a whole alignment apart, sharing a plan, or not, planned again),
// and into destinations that move every step (a KV cache). The oracle is the tests' own reference split, scattered
// to each destination over its buffer's previous bytes; every refusal is checked to have written nothing.
import { describe, expect } from 'vitest';
import {
  type DType,
  type GpuTensor,
  type HostTensor,
  type Into,
  SplitError,
  createSplitEngine,
  tensor,
} from '../../src/index.js';
import { randomSplit, randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, noise, scatter } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';

/** The outputs' bits against the reference split of `x`. */
async function expectSplitOf(
  e: Parameters<typeof downloadAll>[0],
  outs: GpuTensor[],
  x: HostTensor,
  axis: number,
  sizes: number[],
) {
  const ref = referenceSplit(x, axis, sizes);
  const got = await downloadAll(e, outs);
  got.forEach((t, i) =>
    expect(firstMismatch(bitsOf(t) as Uint8Array, ref[i] as Uint8Array), `output ${i}`).toBeUndefined(),
  );
}

/** `x`'s bytes at `byteOffset` of a caller's buffer of random bytes, as a GPU tensor there. */
function placed(device: GPUDevice, x: HostTensor, byteOffset: number, next: () => number): GpuTensor {
  const bytes = bitsOf(x) as Uint8Array;
  const all = noise(byteOffset + bytes.length + 8, next);
  all.set(bytes, byteOffset);
  const buffer = bufferOf(device, all);
  return { dtype: x.dtype, shape: x.shape, buffer, byteOffset, byteLength: bytes.length } as GpuTensor;
}

describe('prepared splits', () => {
  for (const dtype of ['float32', 'uint8', 'float16', 'int4', 'uint1'] as const)
    gpuTest(`${dtype}: prepared once, split and encoded on new tensors, as engine.split splits them`, async (g) => {
      const e = await g.engine();
      const next = rng(dtype.length * 31);
      const { shape, axis, sizes } = randomSplit(next);
      const first = randomTensor(dtype, shape, next);
      const gx = e.upload(first as HostTensor<'float32'>);
      const p = e.prepare(gx, { axis, sizes, alias: 'none' });
      for (let call = 0; call < 3; call++) {
        const x = randomTensor(dtype, shape, next);
        const gy = e.upload(x as HostTensor<'float32'>);
        const outs = await p.split(gy);
        expect(['copy', 'gather']).toContain(e.stats.strategy);
        await expectSplitOf(e, outs, x, axis, sizes);
        const enc = g.device.createCommandEncoder();
        const encoded = p.encode(enc, gy);
        g.device.queue.submit([enc.finish()]);
        await expectSplitOf(e, encoded, x, axis, sizes);
        for (const t of [...outs, ...encoded, gy]) e.release(t);
      }
      e.release(gx);
    });

  gpuTest("a caller's buffer at other offsets: a whole alignment apart, or not (planned again)", async (g) => {
    const e = await g.engine();
    const next = rng(5);
    const x0 = randomTensor('float32', [3, 40], next);
    const p = e.prepare(placed(g.device, x0, 0, next), { axis: 1, sizes: [8, 31, 1] });
    for (const at of [0, 256, 512, 4, 260, 12, 0]) {
      const x = randomTensor('float32', [3, 40], next);
      const gx = placed(g.device, x, at, next);
      const outs = await p.split(gx);
      await expectSplitOf(e, outs, x, 1, [8, 31, 1]);
      for (const t of outs) e.release(t);
      gx.buffer.destroy();
    }
  });

  gpuTest('views of an engine upload: each call views its own input', async (g) => {
    const e = await g.engine();
    const x = tensor(
      'uint8',
      Uint8Array.from({ length: 1024 }, (_, i) => i),
      [1024],
    );
    const p = e.prepare(e.upload(x), { sizes: [256, 768] });
    const gy = e.upload(x);
    const outs = await p.split(gy);
    expect(e.stats.strategy).toBe('alias');
    expect(outs.map((t) => [t.buffer === gy.buffer, t.byteOffset])).toEqual([
      [true, 0],
      [true, 256],
    ]);
    await expectSplitOf(e, outs, x, 0, [256, 768]);
    for (const t of [...outs, gy]) e.release(t);
  });

  for (const d of [4, 64])
    gpuTest(`a KV cache: prepared with slot 0, each step's slot given at the call (d = ${d})`, async (g) => {
      const e = await g.engine();
      const [H, T] = [3, 8];
      const next = rng(d);
      const bytes = H * T * d * 4;
      const images = new Map<GPUBuffer, Uint8Array>();
      const [kc, vc] = [noise(bytes, next), noise(bytes, next)].map((b) => {
        const buffer = bufferOf(g.device, b);
        images.set(buffer, b);
        return buffer;
      }) as [GPUBuffer, GPUBuffer];
      const slot = (buffer: GPUBuffer, t: number): Into<'float32'> => ({
        dtype: 'float32',
        shape: [1, H, 1, d],
        buffer,
        byteOffset: t * d * 4,
        strides: [H * T * d, T * d, d, 1],
      });
      const x0 = tensor('float32', new Float32Array(3 * H * d), [1, 3 * H, 1, d]);
      const gx0 = e.upload(x0);
      const p = e.prepare(gx0, { axis: 1, parts: 3, into: [undefined, slot(kc, 0), slot(vc, 0)] });
      for (const t of [0, 1, 2, 5, 7]) {
        const x = randomTensor('float32', [1, 3 * H, 1, d], next);
        const gx = e.upload(x as HostTensor<'float32'>);
        const enc = g.device.createCommandEncoder();
        const outs = t % 2 ? p.encode(enc, gx, [undefined, slot(kc, t), slot(vc, t)]) : [];
        g.device.queue.submit([enc.finish()]);
        const done = t % 2 ? outs : await p.split(gx, [undefined, slot(kc, t), slot(vc, t)]);
        const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
        for (const [i, buffer] of [kc, vc].entries()) {
          const want = scatter(
            images.get(buffer)!,
            ref[i + 1]!,
            'float32',
            [1, H, 1, d],
            t * d * 4,
            slot(buffer, t).strides!,
          );
          const got = await readBuffer(g.device, buffer);
          expect(firstMismatch(got, want), `step ${t}, cache ${i}`).toBeUndefined();
          images.set(buffer, got);
        }
        expect([done[1]!.byteOffset, done[1]!.strides]).toEqual([t * d * 4, slot(kc, t).strides]);
        await expectSplitOf(e, [done[0]!], x, 1, [H]);
        for (const o of [...done, gx]) e.release(o);
      }
      // The prepared destinations, when a call gives none: slot 0.
      const outs = await p.split(gx0);
      expect(outs[2]!.byteOffset).toBe(0);
      for (const o of [...outs, gx0]) e.release(o);
      kc.destroy();
      vc.destroy();
    });

  gpuTest('host tensors: prepared on a WebGPU engine and on a CPU engine', async (g) => {
    for (const e of [await g.engine(), await createSplitEngine({ backend: 'cpu' })]) {
      const x = tensor('int32', new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
      const p = e.prepare(x, { axis: 1, sizes: [1, 2] });
      for (const data of [
        [1, 2, 3, 4, 5, 6],
        [7, 8, 9, 10, 11, 12],
      ]) {
        const [a, b] = await p.split(tensor('int32', new Int32Array(data), [2, 3]));
        expect([[...a!.data], [...b!.data]]).toEqual([
          [data[0], data[3]],
          [data[1], data[2], data[4], data[5]],
        ]);
        expect(e.stats.strategy).toBe(e.backend === 'cpu' ? 'cpu' : e.stats.strategy);
      }
    }
  });
});

describe('what a prepared call refuses, writing nothing', () => {
  gpuTest('another dtype, shape or kind of tensor: the prepared one and the given one, named', async (g) => {
    const e = await g.engine();
    const gx = e.upload(tensor('float32', new Float32Array(12), [1, 12]));
    const p = e.prepare(gx, { axis: -1, parts: 3 });
    const other = e.upload(tensor('int32', new Int32Array(12), [1, 12]));
    const longer = e.upload(tensor('float32', new Float32Array(15), [1, 15]));
    await expect(p.split(other as unknown as typeof gx)).rejects.toMatchObject({
      code: 'BAD_DTYPE',
      message: 'prepared split: prepared for a GPU tensor of float32 [1, 12], got a GPU tensor of int32 [1, 12]',
    });
    await expect(p.split(longer)).rejects.toMatchObject({
      code: 'BAD_SHAPE',
      message: 'prepared split: prepared for a GPU tensor of float32 [1, 12], got a GPU tensor of float32 [1, 15]',
    });
    const host = tensor('float32', new Float32Array(12), [1, 12]);
    expect(() => p.encode(g.device.createCommandEncoder(), host as unknown as typeof gx)).toThrow(
      'prepared encode: prepared for a GPU tensor of float32 [1, 12], got a host tensor of float32 [1, 12]',
    );
    for (const t of [gx, other, longer]) e.release(t);
  });

  gpuTest(
    'a destination not placed as prepared, too small, or without its usage: BAD_OPTIONS and the like',
    async (g) => {
      const e = await g.engine();
      const cache = bufferOf(g.device, new Uint8Array(256).fill(7));
      const small = bufferOf(g.device, new Uint8Array(8).fill(7));
      const readOnly = g.device.createBuffer({ size: 256, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.STORAGE });
      const dest = (buffer: GPUBuffer, strides?: number[]): Into<'float32'> => ({
        dtype: 'float32',
        shape: [2, 2],
        buffer,
        byteOffset: 0,
        ...(strides && { strides }),
      });
      const gx = e.upload(tensor('float32', new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]), [2, 4]));
      const p = e.prepare(gx, { axis: 1, parts: 2, into: [dest(cache, [4, 1]), undefined] });
      await expect(p.split(gx, [dest(cache, [8, 1]), undefined])).rejects.toMatchObject({
        code: 'BAD_OPTIONS',
        message: 'prepared split: into[0] must be placed as prepared: a destination with strides [4, 1]',
      });
      await expect(p.split(gx, [undefined, dest(cache)])).rejects.toMatchObject({ code: 'BAD_OPTIONS' });
      await expect(p.split(gx, [dest(small, [4, 1]), undefined])).rejects.toMatchObject({ code: 'DATA_LENGTH' });
      await expect(p.split(gx, [dest(readOnly, [4, 1]), undefined])).rejects.toMatchObject({ code: 'BAD_INPUT' });
      expect(firstMismatch(await readBuffer(g.device, cache), new Uint8Array(256).fill(7))).toBeUndefined();
      for (const b of [cache, small, readOnly]) b.destroy();
      e.release(gx);
    },
  );

  gpuTest('a released input or destination, a destroyed engine: RELEASED', async (g) => {
    const e = await g.engine();
    const gx = e.upload(tensor('float32', new Float32Array(8), [8]));
    const p = e.prepare(gx, { parts: 2 });
    const [a, b] = await p.split(gx);
    const q = e.prepare(gx, { parts: 2, into: [a, undefined] });
    e.release(a);
    await expect(q.split(gx)).rejects.toMatchObject({ code: 'RELEASED' });
    e.release(b);
    e.release(gx);
    await expect(p.split(gx)).rejects.toMatchObject({ code: 'RELEASED' });
    const f = await g.engine();
    const gy = f.upload(tensor('float32', new Float32Array(8), [8]));
    const r = f.prepare(gy, { parts: 2 });
    f.destroy();
    await expect(r.split(gy)).rejects.toMatchObject({
      code: 'RELEASED',
      message: 'prepared split: this engine was destroyed',
    });
    expect(() => r.encode(g.device.createCommandEncoder(), gy)).toThrow(SplitError);
    expect(f.stats.liveBuffers).toBe(0);
  });

  gpuTest('the options object changed after prepare: nothing changes', async (g) => {
    const e = await g.engine();
    const x = tensor(
      'uint8',
      Uint8Array.from({ length: 8 }, (_, i) => i),
      [8],
    );
    const gx = e.upload(x);
    const options: { sizes: number[]; alias: 'none' | 'any' } = { sizes: [2, 6], alias: 'none' };
    const p = e.prepare(gx, options);
    options.sizes[0] = 6;
    options.sizes[1] = 2;
    options.alias = 'any';
    const outs = await p.split(gx);
    expect(outs.map((t) => t.shape)).toEqual([[2], [6]]);
    expect(e.stats.strategy).not.toBe('alias');
    await expectSplitOf(e, outs, x, 0, [2, 6]);
    for (const t of [...outs, gx]) e.release(t);
  });

  gpuTest('the split of a prepared call is what engine.stats reports, and what prepare planned for', async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    const x = randomTensor('float32' as DType, [4, 6], rng(9));
    const gx = e.upload(x as HostTensor<'float32'>);
    const p = e.prepare(gx, { axis: 1, sizes: [1, 5] });
    const outs = await p.split(gx);
    expect([e.stats.strategy, e.stats.dispatches]).toEqual(['gather', 1]);
    await expectSplitOf(e, outs, x, 1, [1, 5]);
    for (const t of [...outs, gx]) e.release(t);
  });
});
