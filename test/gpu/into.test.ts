// `into`: outputs written at the caller's destinations, strided views in larger tensors included
// (a KV cache's slot). The oracle is the tests' own: the reference split's output bits scattered
// element by element to offset + Σ index·stride over a buffer of random bytes, so every byte a
// destination does not own must come back unchanged (row gaps, word tails, neighbours).
import { describe, expect } from 'vitest';
import type { DType, GpuTensor, HostTensor, Into, SplitEngine } from '../../src/index.js';
import { ParamsBuilder, hashParams, randomSplit, randomTensor, rng } from '../helpers/cases.js';
import { FIXED_REF_DTYPES } from '../helpers/dtypes.js';
import { bufferOf, noise, randomDestinations, rowMajor, scatter, widthOf } from '../helpers/destinations.js';
import { gpuTest } from '../helpers/gpu.js';
import type { Program } from '../../src/engine/program.js';
import type { PlanCache } from '../../src/engine/plans.js';
import { readBuffer } from '../helpers/download.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';

/** Splits `x` with destinations and checks every destination buffer and every engine-placed output. */
async function expectInto(
  e: SplitEngine,
  device: GPUDevice,
  x: HostTensor,
  axis: number,
  sizes: readonly number[],
  into: readonly (Into | undefined)[],
  images: Map<GPUBuffer, Uint8Array>,
): Promise<GpuTensor[]> {
  const gx = e.upload(x as HostTensor<'float32'>);
  const outs = await e.split(gx, { axis, sizes, into: into as readonly (Into<'float32'> | undefined)[] });
  expect(e.stats.strategy, 'GPU work, no views').not.toBe('alias');
  expect(['copy', 'gather']).toContain(e.stats.strategy);
  const ref = referenceSplit(x, axis, sizes) as Uint8Array[];
  const want = new Map(images);
  into.forEach((d, i) => {
    if (!d) return;
    const strides = d.strides ?? rowMajor(d.shape);
    want.set(d.buffer, scatter(want.get(d.buffer)!, ref[i]!, x.dtype, d.shape, d.byteOffset ?? 0, strides));
    // The output describes its destination.
    expect([outs[i]!.buffer === d.buffer, outs[i]!.byteOffset, outs[i]!.strides]).toEqual([
      true,
      d.byteOffset ?? 0,
      d.strides,
    ]);
  });
  for (const [b, bytes] of want) {
    const got = await readBuffer(device, b);
    expect(firstMismatch(got, bytes), `destination buffer of ${b.size} bytes`).toBeUndefined();
    images.set(b, got);
  }
  for (const [i, o] of outs.entries()) {
    if (into[i]) continue;
    const got = await e.download(o);
    expect(firstMismatch(bitsOf(got) as Uint8Array, ref[i]!), `output ${i}`).toBeUndefined();
  }
  for (const o of outs) e.release(o);
  e.release(gx);
  return outs;
}

describe('into: a KV cache', () => {
  for (const dtype of ['float32', 'float16', 'uint8', 'int4'] as const) {
    gpuTest(
      `${dtype}: q placed by the engine, K and V written into slot t of [1, H, T, d] caches, 5 steps`,
      async (g) => {
        const e = await g.engine();
        const [H, T, d] = [3, 8, dtype === 'int4' ? 8 : 4];
        const bytes = Math.ceil((H * T * d * widthOf(dtype)) / 8);
        const next = rng(7);
        const images = new Map<GPUBuffer, Uint8Array>();
        const [k, v] = [noise(bytes, next), noise(bytes, next)];
        const [kc, vc] = [bufferOf(g.device, k), bufferOf(g.device, v)];
        images.set(kc, k).set(vc, v);
        for (const t of [0, 1, 2, 5, 7]) {
          const x = randomTensor(dtype, [1, 3 * H, 1, d], next);
          const slot = (buffer: GPUBuffer): Into => ({
            dtype,
            shape: [1, H, 1, d],
            buffer,
            byteOffset: (t * d * widthOf(dtype)) / 8,
            strides: [H * T * d, T * d, d, 1],
          });
          await expectInto(e, g.device, x, 1, [H, H, H], [undefined, slot(kc), slot(vc)], images);
          // Three target buffers (the engine's for q, each cache): one dispatch binds them all.
          expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
        }
        kc.destroy();
        vc.destroy();
      },
    );
  }

  gpuTest('K and V in one cache buffer [2, H, T, d]: one target, one dispatch, 5 steps', async (g) => {
    const e = await g.engine();
    const [H, T, d] = [3, 8, 4];
    const next = rng(9);
    const image = noise(2 * H * T * d * 4, next);
    const kv = bufferOf(g.device, image);
    const images = new Map<GPUBuffer, Uint8Array>([[kv, image]]);
    for (const t of [0, 1, 2, 5, 7]) {
      const x = randomTensor('float32', [1, 3 * H, 1, d], next);
      const slot = (c: number): Into => ({
        dtype: 'float32',
        shape: [1, H, 1, d],
        buffer: kv,
        byteOffset: (c * H * T * d + t * d) * 4,
        strides: [H * T * d, T * d, d, 1],
      });
      await expectInto(e, g.device, x, 1, [H, H, H], [undefined, slot(0), slot(1)], images);
      expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
      // The plan's targets (src/planner/types.ts Target, through the engine's plan cache): the cache buffer once.
      const plans = (e as unknown as { plans: PlanCache<Program> }).plans;
      expect(plans.find(() => true)!.gp!.targets.map((k) => k.kind)).toEqual(['into', 'shared']);
    }
    kv.destroy();
  });

  gpuTest(
    'prefill: S tokens of [1, S, 3, H, d] into slots t0.. of the caches (a transposed destination)',
    async (g) => {
      const e = await g.engine();
      const [S, H, T, d] = [6, 2, 16, 4];
      const next = rng(8);
      const bytes = H * T * d * 4;
      const images = new Map<GPUBuffer, Uint8Array>();
      const [k, v] = [noise(bytes, next), noise(bytes, next)];
      const [kc, vc] = [bufferOf(g.device, k), bufferOf(g.device, v)];
      images.set(kc, k).set(vc, v);
      const x = randomTensor('float32', [1, S, 3, H, d], next);
      const slot = (buffer: GPUBuffer): Into => ({
        dtype: 'float32',
        shape: [1, S, 1, H, d],
        buffer,
        byteOffset: 3 * d * 4,
        strides: [H * T * d, d, 0, T * d, 1],
      });
      await expectInto(e, g.device, x, 2, [1, 1, 1], [undefined, slot(kc), slot(vc)], images);
      kc.destroy();
      vc.destroy();
    },
  );
});

describe('into: generated destinations', () => {
  // Each destination is a window of a larger tensor (padding on every dimension), its dimensions
  // in a random order in memory for word types; byte and packed types keep the innermost
  // dimension contiguous and rows on 4-byte boundaries, as the bit path requires.
  const cases = ParamsBuilder.start()
    .combine(
      'dtype',
      FIXED_REF_DTYPES.filter((d) => !d.startsWith('complex')),
    )
    .combine('seed', [1, 2, 3]).cases;
  for (const p of cases) {
    gpuTest(`${p.dtype} #${p.seed}`, async (g) => {
      const next = rng(hashParams(p));
      const e = await g.engine({ strategy: p.seed === 3 ? 'copy' : 'auto' });
      const { shape, axis, sizes } = randomSplit(next);
      const x = randomTensor(p.dtype as DType, shape, next);
      const { dests, bytes } = randomDestinations(next, p.dtype, shape, axis, sizes);
      const images = new Map<GPUBuffer, Uint8Array>();
      const gpuBuffers = bytes.map((used) => {
        const before = noise(used + 8, next);
        const buf = bufferOf(g.device, before);
        images.set(buf, before);
        return buf;
      });
      const placed = dests.map(
        (d) => d && ({ ...d, dtype: d.dtype as 'float32', shape: [...d.shape], buffer: gpuBuffers[d.target]! } as Into),
      );
      await expectInto(e, g.device, x, axis, sizes, placed, images);
      for (const b of gpuBuffers) b.destroy();
    });
  }
});

describe('into: other calls', () => {
  gpuTest('encodeSplit writes the destinations when the caller submits', async (g) => {
    const e = await g.engine();
    const x = randomTensor('int32', [4, 6], rng(3)) as HostTensor<'int32'>;
    const gx = e.upload(x);
    const before = noise(256, rng(4));
    const dst = bufferOf(g.device, before);
    const enc = g.device.createCommandEncoder();
    const into: Into<'int32'> = { dtype: 'int32', shape: [4, 2], buffer: dst, byteOffset: 16, strides: [5, 1] };
    const outs = e.encodeSplit(enc, gx, { axis: 1, sizes: [4, 2], into: [undefined, into] });
    g.device.queue.submit([enc.finish()]);
    const ref = referenceSplit(x, 1, [4, 2]) as Uint8Array[];
    expect(
      firstMismatch(await readBuffer(g.device, dst), scatter(before, ref[1]!, 'int32', [4, 2], 16, [5, 1])),
    ).toBeUndefined();
    expect(firstMismatch(bitsOf(await e.download(outs[0]!)) as Uint8Array, ref[0]!)).toBeUndefined();
    for (const o of outs) e.release(o);
    e.release(gx);
    dst.destroy();
  });

  gpuTest(
    'run: SplitToSequence without keepdims writes its outputs, the axis dropped, strided in one buffer',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [3, 4], rng(5)) as HostTensor<'float32'>;
      const gx = e.upload(x);
      const before = noise(64, rng(6));
      const dst = bufferOf(g.device, before);
      // Three columns of x, every other element of 20-byte spans of `dst`.
      const into = [0, 1, 2].map((c): Into<'float32'> => ({
        dtype: 'float32',
        shape: [3],
        buffer: dst,
        byteOffset: 20 * c,
        strides: [2],
      }));
      const outs = await e.run(
        {
          op: 'SplitToSequence',
          opset: 11,
          inputs: [gx],
          attrs: { axis: 1, keepdims: 0 },
        },
        { into: [...into, undefined] },
      );
      expect(outs.map((o) => o.shape)).toEqual([[3], [3], [3], [3]]);
      const ref = referenceSplit(x, 1, [1, 1, 1, 1]) as Uint8Array[];
      let want: Uint8Array = before;
      for (const c of [0, 1, 2]) want = scatter(want, ref[c]!, 'float32', [3], 20 * c, [2]);
      expect(firstMismatch(await readBuffer(g.device, dst), want)).toBeUndefined();
      for (const o of outs) e.release(o);
      e.release(gx);
      dst.destroy();
    },
  );
});

describe('into: with the other output options', () => {
  gpuTest("layout 'separate': engine-placed outputs get buffers of their own, destinations are written", async (g) => {
    const e = await g.engine();
    const x = randomTensor('uint16', [3, 10], rng(11)) as HostTensor<'uint16'>;
    const gx = e.upload(x);
    const before = noise(64, rng(12));
    const dst = bufferOf(g.device, before);
    const into: Into<'uint16'> = { dtype: 'uint16', shape: [3, 4], buffer: dst, byteOffset: 4, strides: [6, 1] };
    const outs = await e.split(gx, {
      axis: 1,
      sizes: [3, 4, 3],
      layout: 'separate',
      into: [undefined, into, undefined],
    });
    const ref = referenceSplit(x, 1, [3, 4, 3]) as Uint8Array[];
    expect(outs[0]!.buffer).not.toBe(outs[2]!.buffer);
    expect([outs[0]!.byteOffset, outs[2]!.byteOffset]).toEqual([0, 0]);
    for (const i of [0, 2])
      expect(firstMismatch(bitsOf(await e.download(outs[i]!)) as Uint8Array, ref[i]!)).toBeUndefined();
    expect(
      firstMismatch(await readBuffer(g.device, dst), scatter(before, ref[1]!, 'uint16', [3, 4], 4, [6, 1])),
    ).toBeUndefined();
    for (const o of outs) e.release(o);
    e.release(gx);
    dst.destroy();
  });

  gpuTest(
    "a destination in a buffer Cleave made: the output holds that buffer's lease until released too",
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [2, 8], rng(13)) as HostTensor<'float32'>;
      const gx = e.upload(x);
      const holder = e.upload(randomTensor('float32', [16], rng(14)) as HostTensor<'float32'>);
      const into: Into<'float32'> = { dtype: 'float32', shape: [2, 4], buffer: holder.buffer, byteOffset: 0 };
      const outs = await e.split(gx, { axis: 1, sizes: [4, 4], into: [into, undefined] });
      e.release(holder);
      // The holder's buffer is still leased by outs[0]: it reads the split's bytes, not a reused buffer's.
      const other = e.upload(randomTensor('float32', [16], rng(15)) as HostTensor<'float32'>);
      expect(other.buffer).not.toBe(holder.buffer);
      const ref = referenceSplit(x, 1, [4, 4]) as Uint8Array[];
      expect(firstMismatch(bitsOf(await e.download(outs[0]!)) as Uint8Array, ref[0]!)).toBeUndefined();
      for (const o of [...outs, other, gx]) e.release(o);
    },
  );
});
