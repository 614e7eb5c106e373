// Where GPU outputs go: the alias policy (views of an input only when the engine owns it, unless
// asked), layout 'separate' (a buffer per output at offset 0), and encodeSplit (recorded into the
// caller's encoder: several per encoder, caller passes between them, late and missing submits).
import { describe, expect } from 'vitest';
import { type GpuTensor, type HostTensor, type SplitEngine } from '../../src/index.js';
import { copyCheaper } from '../../src/planner/costs.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectSplitOf } from '../helpers/check.js';
import { downloadAll } from '../helpers/download.js';
import { TENSOR_USAGE } from '../helpers/dtypes.js';
import { gatherDispatches } from '../helpers/gpu-work.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';

/** A buffer the caller made and filled, holding `x`. */
function callerTensor(g: GpuFixture, x: HostTensor<'float32'>): GpuTensor<'float32'> {
  const buffer = g.device.createBuffer({ size: Math.max(4, x.data.byteLength), usage: TENSOR_USAGE });
  g.device.queue.writeBuffer(buffer, 0, x.data);
  return { dtype: 'float32', shape: x.shape, buffer, byteOffset: 0, byteLength: x.data.byteLength };
}

const read = async (e: SplitEngine, outs: readonly GpuTensor[]) => downloadAll(e, outs);

describe('alias policy', () => {
  // 1024 x 64 float32 along axis 0 into 4: every chunk is one contiguous, 256-byte aligned run. Not viewed, it is
  // written: by copies, or by the gather where the engine's costs make it cheaper (a real GPU's may).
  const WRITTEN = ['copy', 'gather'];
  const x = randomTensor('float32', [1024, 64], rng(3)) as HostTensor<'float32'>;

  gpuTest("default: an engine's own input is viewed, a caller's buffer is copied", async (g) => {
    const e = await g.engine();
    const own = e.upload(x);
    const views = await e.split(own, { axis: 0, parts: 4 });
    expect(e.stats.strategy).toBe('alias');
    expect(views.every((o) => o.buffer === own.buffer)).toBe(true);
    const theirs = callerTensor(g, x);
    const copies = await e.split(theirs, { axis: 0, parts: 4 });
    expect(WRITTEN).toContain(e.stats.strategy);
    expect(copies.every((o) => o.buffer !== theirs.buffer)).toBe(true);
    // The caller rewrites its buffer: the copies keep the split of what was there.
    g.device.queue.writeBuffer(theirs.buffer, 0, new Float32Array(1024 * 64));
    expectSplitOf(await read(e, copies), x, 0, [256, 256, 256, 256]);
    expectSplitOf(await read(e, views), x, 0, [256, 256, 256, 256]);
    theirs.buffer.destroy();
  });

  gpuTest("alias 'any' views a caller's buffer; alias 'none' always copies", async (g) => {
    const e = await g.engine();
    const theirs = callerTensor(g, x);
    const views = await e.split(theirs, { axis: 0, parts: 4, alias: 'any' });
    expect(e.stats.strategy).toBe('alias');
    expect(views.map((o) => o.byteOffset)).toEqual([0, 65536, 131072, 196608]);
    const copies = await e.split(e.upload(x), { axis: 0, parts: 4, alias: 'none' });
    expect(WRITTEN).toContain(e.stats.strategy);
    expectSplitOf(await read(e, copies), x, 0, [256, 256, 256, 256]);
    for (const v of views) e.release(v); // views of a caller's buffer are released like any output
    await expect(e.download(views[0]!)).rejects.toMatchObject({ code: 'RELEASED' });
    theirs.buffer.destroy();
  });
});

describe("layout 'separate'", () => {
  gpuTest(
    'each output its own buffer at offset 0, sized to its bytes rounded up to 4 (4 when empty), tail zeroed',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('uint8', [3, 10], rng(4)) as HostTensor<'uint8'>;
      const outs = await e.split(e.upload(x), { axis: 1, sizes: [3, 0, 7], layout: 'separate' });
      // Each output written once, straight into its own buffer: three buffers, one dispatch binds them all (it binds
      // six), no copy after the gather.
      expect(e.stats).toMatchObject({ strategy: 'gather', dispatches: 1, copies: 0 });
      expect(outs.map((o) => [o.byteOffset, o.byteLength, o.buffer.size])).toEqual([
        [0, 9, 12],
        [0, 0, 4],
        [0, 21, 24],
      ]);
      expect(new Set(outs.map((o) => o.buffer)).size).toBe(3);
      for (const o of outs) expect(o.buffer.usage & TENSOR_USAGE).toBe(TENSOR_USAGE);
      expectSplitOf(await Promise.all(outs.map((o) => e.download(o))), x, 1, [3, 0, 7]);
      // The padding past an output's bytes is zero, never a pooled buffer's old contents.
      const whole = await e.download({
        dtype: 'uint8',
        shape: [12],
        buffer: outs[0]!.buffer,
        byteOffset: 0,
        byteLength: 12,
      });
      expect([...whole.data.subarray(9)]).toEqual([0, 0, 0]);
    },
  );

  gpuTest("a pooled buffer's old bytes never show: tails zeroed again, words and bits, strided and not", async (g) => {
    const e = await g.engine({ strategy: 'gather' });
    for (const [dtype, shape, sizes] of [
      ['uint8', [5, 13], [3, 1, 9]],
      ['uint4', [3, 11], [3, 5, 3]],
      ['float32', [4, 8], [3, 5]],
    ] as const) {
      const x = randomTensor(dtype, [...shape], rng(shape[1])) as HostTensor<typeof dtype>;
      const gx = e.upload(x);
      const first = await e.split(gx, { axis: 1, sizes: [...sizes], layout: 'separate' });
      // Dirty the buffers, then give them back: the next split of the same sizes takes them again.
      for (const o of first) g.device.queue.writeBuffer(o.buffer, 0, new Uint8Array(o.buffer.size).fill(0xff));
      for (const o of first) e.release(o);
      const outs = await e.split(gx, { axis: 1, sizes: [...sizes], layout: 'separate' });
      // Two or three buffers: one dispatch writes them all.
      expect(e.stats, dtype).toMatchObject({ strategy: 'gather', dispatches: 1, copies: 0 });
      expect(new Set(outs.map((o) => o.buffer)), `${dtype}: the pool's buffers came back`).toEqual(
        new Set(first.map((o) => o.buffer)),
      );
      const got = await downloadAll(e, outs);
      expectSplitOf(got, x, 1, [...sizes]);
      for (const o of outs) {
        const n = o.buffer.size;
        const bytes = await e.download({ dtype: 'uint8', shape: [n], buffer: o.buffer, byteOffset: 0, byteLength: n });
        const tail = [...bytes.data.subarray(o.byteLength)];
        expect(tail, `${dtype}: bytes past an output`).toEqual(tail.map(() => 0));
      }
      for (const o of [...outs, gx]) e.release(o);
    }
  });

  gpuTest('4096 outputs of one element: a buffer each, none created again once they come back', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [4096, 1], rng(6)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const split = async () => {
      const outs = await e.split(gx, { axis: 0, parts: 4096, layout: 'separate' });
      expect(new Set(outs.map((o) => o.buffer)).size).toBe(4096);
      return outs;
    };
    const first = await split();
    expectSplitOf(await downloadAll(e, first), x, 0, Array<number>(4096).fill(1));
    for (const o of first) e.release(o);
    const live = g.live.size;
    for (let i = 0; i < 3; i++) {
      const outs = await split();
      // 4096 copies straight from the input, or the gather's 683 dispatches (six buffers each), as the engine's costs
      // choose (SwiftShader's table: copies); never a copy after a gather.
      const dispatches = gatherDispatches(Array<boolean>(4096).fill(true));
      expect(e.stats).toMatchObject(
        copyCheaper(e.stats.costs!, 4096, 4096 * 4, dispatches)
          ? { strategy: 'copy', dispatches: 0, copies: 4096 }
          : { strategy: 'gather', dispatches, copies: 0 },
      );
      expect(g.live.size, 'buffers created in steady state').toBe(live);
      for (const o of outs) e.release(o);
    }
    e.release(gx);
  });

  gpuTest('contiguous chunks are copied straight into their buffers; each output is released on its own', async (g) => {
    // Copies forced: whether two small copies beat a dispatch is the engine's costs' call.
    const e = await g.engine({ strategy: 'copy' });
    const x = randomTensor('float32', [8, 16], rng(5)) as HostTensor<'float32'>;
    const outs = await e.split(e.upload(x), { axis: 0, sizes: [2, 6], layout: 'separate' });
    expect(e.stats).toMatchObject({ strategy: 'copy', dispatches: 0, copies: 2 });
    e.release(outs[0]!);
    await expect(e.download(outs[0]!)).rejects.toMatchObject({ code: 'RELEASED' });
    expectSplitOf([await e.download(outs[1]!)], { ...x, data: x.data.subarray(32) }, 0, [6]);
    // Outputs of the released buffer's size come back from the pool: no new buffer.
    const live = g.live.size;
    const again = await e.split(e.upload(x), { axis: 0, sizes: [2, 6], layout: 'separate' });
    expect(again[0]!.buffer).toBe(outs[0]!.buffer);
    expect(g.live.size).toBe(live + 2); // the new upload and the second output's buffer
  });
});

describe('encodeSplit', () => {
  gpuTest("records into the caller's encoder: nothing is submitted until the caller submits", async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [4, 6], rng(6)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const submit = g.device.queue.submit.bind(g.device.queue);
    let submits = 0;
    g.device.queue.submit = (b) => {
      submits++;
      submit(b);
    };
    const enc = g.device.createCommandEncoder();
    const outs = e.encodeSplit(enc, gx, { axis: 1, sizes: [1, 5] });
    expect(submits).toBe(0);
    expect(outs.map((o) => o.shape)).toEqual([
      [4, 1],
      [4, 5],
    ]);
    g.device.queue.submit([enc.finish()]);
    g.device.queue.submit = submit;
    expect(submits).toBe(1);
    expectSplitOf(await read(e, outs), x, 1, [1, 5]);
  });

  gpuTest(
    "several splits in one encoder, the caller's passes rewriting the input between them, submitted late",
    async (g) => {
      const e = await g.engine();
      const a = randomTensor('float32', [4, 6], rng(7)) as HostTensor<'float32'>;
      const b = randomTensor('float32', [4, 6], rng(8)) as HostTensor<'float32'>;
      const input = callerTensor(g, a);
      const bBuffer = callerTensor(g, b).buffer;
      const enc = g.device.createCommandEncoder();
      const first = e.encodeSplit(enc, input, { axis: 1, sizes: [2, 4] });
      enc.copyBufferToBuffer(bBuffer, 0, input.buffer, 0, b.data.byteLength); // the caller's pass
      const second = e.encodeSplit(enc, input, { axis: 0, parts: 2 }); // contiguous: still copied, never a view
      // The engine runs splits of its own before the caller submits: buffers it recorded into are not reused.
      for (let i = 0; i < 4; i++) await e.split(e.upload(b), { axis: 1, sizes: [3, 3] });
      g.device.queue.submit([enc.finish()]);
      expectSplitOf(await read(e, first), a, 1, [2, 4]);
      expectSplitOf(await read(e, second), b, 0, [2, 2]);
      input.buffer.destroy();
      bBuffer.destroy();
    },
  );

  gpuTest('an encoder never submitted leaks nothing beyond the pool once its outputs are released', async (g) => {
    const e = await g.engine();
    const gx = e.upload(randomTensor('uint8', [8, 37], rng(9)) as HostTensor<'uint8'>);
    const counts: number[] = [];
    for (let i = 0; i < 300; i++) {
      const outs = e.encodeSplit(g.device.createCommandEncoder(), gx, {
        axis: 1,
        sizes: [5, 32],
        layout: i % 2 ? 'separate' : 'shared',
      });
      for (const o of outs) e.release(o);
      counts.push(e.stats.liveBuffers);
    }
    expect(counts[299]).toBe(counts[10]);
    expect(counts[299]).toBeLessThan(20);
  });

  gpuTest(
    "errors of the recorded commands surface where the caller submits, in the caller's error scopes",
    async (g) => {
      const e = await g.engine();
      const x = callerTensor(g, randomTensor('float32', [4, 6], rng(10)) as HostTensor<'float32'>);
      x.buffer.destroy();
      const enc = g.device.createCommandEncoder();
      const outs = e.encodeSplit(enc, x, { axis: 1, sizes: [1, 5] }); // records: no error here
      expect(outs).toHaveLength(2);
      g.device.pushErrorScope('validation');
      g.device.queue.submit([enc.finish()]);
      expect((await g.device.popErrorScope())?.message).toMatch(/destroyed|invalid/i);
      const ok = await e.split({ dtype: 'uint8', shape: [4], data: new Uint8Array([1, 2, 3, 4]) }, { parts: 2 });
      expect([...ok[1]!.data]).toEqual([3, 4]); // and Cleave's next call is not blamed for it
    },
  );

  gpuTest('refuses host tensors and non-encoders', async (g) => {
    const e = await g.engine();
    const x = { dtype: 'float32', shape: [2], data: new Float32Array(2) } as const;
    expect(() => e.encodeSplit(g.device.createCommandEncoder(), x as never, { parts: 2 })).toThrow(
      expect.objectContaining({ code: 'BAD_INPUT' }),
    );
    expect(() => e.encodeSplit({} as never, e.upload(x), { parts: 2 })).toThrow(
      expect.objectContaining({ code: 'BAD_INPUT' }),
    );
  });
});
