// Targeted tests of what the issue found: host data replaced, mutated or detached right after the
// call (the split is of the bytes at call time, never a pooled buffer's old contents), getters
// that change value, copies of released tensors refused by every engine, a tensor released by
// another engine going home to its own pool, the pool bounded by count, unknown keys refused in
// every options object, and the policies of item 9 (sparse strings, -0, Node Buffers, bool bytes).

import { describe, expect } from 'vitest';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  SplitError,
  createSplitEngine,
  inferShapes,
  resolveNode,
} from '../../src/index.js';
import { toOrtTensor } from '../../src/ort.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectSplitOf } from '../helpers/check.js';
import { gpuTest } from '../helpers/gpu.js';
import { splitProblem } from './controls.js';
import { downloadAll } from '../helpers/download.js';
import { changingGetter } from './values.js';

/** The SplitError a call gives (sync or async), or a failure naming what it did instead. */
async function refusal(call: () => unknown, what = ''): Promise<SplitError> {
  let value: unknown;
  try {
    value = await call();
  } catch (e) {
    if (e instanceof SplitError) return e;
    throw new Error(
      `${what}: expected a SplitError, got ${String((e as Error)?.name)}: ${String((e as Error)?.message)}`,
      { cause: e },
    );
  }
  throw new Error(
    `${what}: expected a SplitError, but the call resolved with ${Array.isArray(value) ? `${value.length} outputs` : typeof value}`,
  );
}

const fill = (t: HostTensor, byte: number): HostTensor => {
  const d = t.data as Uint8Array;
  return {
    ...t,
    data: new (d.constructor as new (b: ArrayBuffer) => Uint8Array)(new Uint8Array(d.byteLength).fill(byte).buffer),
  } as HostTensor;
};

describe('host data is read once, at the call', () => {
  const paths: [string, HostTensor, { axis: number; sizes: number[] }, 'gpu' | 'cpu'][] = [
    ['float32 (GPU gather)', randomTensor('float32', [3, 8], rng(1)), { axis: 1, sizes: [3, 5] }, 'gpu'],
    ['uint8 (bit-level gather)', randomTensor('uint8', [3, 9], rng(2)), { axis: 1, sizes: [4, 5] }, 'gpu'],
    ['int64 (copies)', randomTensor('int64', [4, 3], rng(3)), { axis: 0, sizes: [1, 3] }, 'gpu'],
    ['int4 (packed)', randomTensor('int4', [3, 5], rng(4)), { axis: 1, sizes: [2, 3] }, 'gpu'],
    [
      'complex64 (CPU path of a GPU engine)',
      randomTensor('complex64', [2, 4], rng(5)),
      { axis: 1, sizes: [1, 3] },
      'gpu',
    ],
    ['float32 (CPU backend)', randomTensor('float32', [3, 8], rng(6)), { axis: 1, sizes: [3, 5] }, 'cpu'],
  ];
  for (const [name, x, options, where] of paths) {
    gpuTest(
      `${name}: data replaced, filled, or detached right after the call; the pool's old bytes never show`,
      async (g) => {
        const e = where === 'gpu' ? await g.engine() : await createSplitEngine({ backend: 'cpu' });
        const stale = fill(x, 0xab);
        for (const change of ['replace', 'fill', 'detach'] as const) {
          await e.split(stale, options); // leaves pooled buffers of this size holding 0xab
          const original = { ...x, data: (x.data as Uint8Array).slice() } as HostTensor;
          const mine = { ...original, data: (original.data as Uint8Array).slice() } as {
            -readonly [K in keyof HostTensor]: HostTensor[K];
          };
          const p = e.split(mine as HostTensor, options);
          const data = mine.data as Uint8Array;
          if (change === 'replace') mine.data = new (data.constructor as new (n: number) => Uint8Array)(2);
          if (change === 'fill') new Uint8Array(data.buffer).fill(0x5a);
          if (change === 'detach') structuredClone(data.buffer, { transfer: [data.buffer as ArrayBuffer] });
          expectSplitOf(await p, original, options.axis, options.sizes);
        }
      },
    );
  }

  gpuTest('strings: the array replaced or its entries changed right after the call', async (g) => {
    const e = await g.engine();
    const x: HostTensor<'string'> = { dtype: 'string', shape: [2, 3], data: ['a', 'b', 'c', 'd', 'e', 'f'] };
    const mine = { ...x, data: [...x.data] };
    const p = e.split(mine, { axis: 1, sizes: [1, 2] });
    mine.data[0] = 'zzz';
    mine.data = [];
    expectSplitOf(await p, x, 1, [1, 2]);
  });

  gpuTest('run: the node, its inputs and attributes changed right after the call', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [2, 6], rng(7)) as HostTensor<'float32'>;
    const node = {
      op: 'Split',
      opset: 18,
      inputs: [{ ...x, data: x.data.slice() }],
      attrs: { axis: 1, num_outputs: 3 },
    };
    const p = e.run(node as never);
    (node.inputs[0]!.data as Float32Array).fill(0);
    node.inputs[0] = { ...x, shape: [12], data: new Float32Array(12) };
    node.attrs.num_outputs = 2;
    node.attrs.axis = 0;
    expectSplitOf((await p) as unknown as HostTensor[], x, 1, [2, 2, 2]);
  });

  gpuTest('upload: data changed right after the call; a GPU input overwritten right after split()', async (g) => {
    const e = await g.engine();
    const x = randomTensor('uint16', [4, 8], rng(8)) as HostTensor<'uint16'>;
    const data = x.data.slice();
    const gx = e.upload({ ...x, data });
    data.fill(7);
    expect([...(await e.download(gx)).data]).toEqual([...x.data]);
    const p = e.split(gx, { axis: 1, sizes: [3, 5] });
    g.device.queue.writeBuffer(gx.buffer, 0, new Uint8Array(gx.byteLength).fill(9)); // after the split's commands
    expectSplitOf(await downloadAll(e, await p), x, 1, [3, 5]);
  });
});

describe('GPU inputs let go of right after the call', () => {
  gpuTest(
    'released, or its caller buffer destroyed, right after split(): the split is exact (its commands were submitted at the call)',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [4, 40], rng(23)) as HostTensor<'float32'>;
      for (const layout of ['shared', 'separate'] as const) {
        const gx = e.upload(x);
        const p = e.split(gx, { axis: 1, sizes: [7, 33], layout });
        e.release(gx);
        expectSplitOf(await downloadAll(e, await p), x, 1, [7, 33]);
        const buffer = g.device.createBuffer({ size: x.data.byteLength, usage: 0x80 | 0x4 | 0x8 });
        g.device.queue.writeBuffer(buffer, 0, x.data);
        const q = e.split(
          { dtype: 'float32', shape: [4, 40], buffer, byteOffset: 0, byteLength: x.data.byteLength },
          { axis: 1, sizes: [7, 33], layout },
        );
        buffer.destroy();
        expectSplitOf(await downloadAll(e, await q), x, 1, [7, 33]);
      }
      const gx = e.upload(x);
      const d = e.download(gx);
      e.release(gx);
      expect([...(await d).data]).toEqual([...x.data]);
    },
  );
});

describe('getters that change value', () => {
  gpuTest('a shape getter ([2, 6], then [3, 4], then [12]): the split is of [2, 6], on every path', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [2, 6], rng(9)) as HostTensor<'float32'>;
    const hostile = () => changingGetter({ dtype: x.dtype, data: x.data }, 'shape', [[2, 6], [3, 4], [12]]);
    expectSplitOf(await e.split(hostile() as typeof x, { axis: 1, sizes: [1, 5] }), x, 1, [1, 5]);
    expectSplitOf(
      (await e.run({
        op: 'Split',
        opset: 18,
        inputs: [hostile() as never],
        attrs: { axis: 1, num_outputs: 2 },
      })) as unknown as HostTensor[],
      x,
      1,
      [3, 3],
    );
    expect(
      inferShapes({ op: 'Split', opset: 18, inputs: [hostile() as never], attrs: { axis: 1, num_outputs: 2 } }).map(
        (s) => s.shape,
      ),
    ).toEqual([
      [2, 3],
      [2, 3],
    ]);
    const gx = e.upload(hostile() as never) as GpuTensor;
    expect(gx.shape).toEqual([2, 6]);
    const onGpu = changingGetter(
      { dtype: gx.dtype, buffer: gx.buffer, byteOffset: 0, byteLength: gx.byteLength },
      'shape',
      [
        [2, 6],
        [4, 3],
      ],
    );
    expectSplitOf(
      await downloadAll(e, (await e.split(onGpu as never, { axis: 1, sizes: [2, 4] })) as unknown as GpuTensor[]),
      x,
      1,
      [2, 4],
    );
  });

  gpuTest(
    "the caller's shape array mutated after the call changes neither the split nor its outputs' shapes",
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('int32', [3, 4], rng(10)) as HostTensor<'int32'>;
      const shape = [3, 4];
      const p = e.split({ ...x, shape }, { axis: 0, sizes: [1, 2] });
      shape[0] = 1;
      shape.push(9);
      const outs = await p;
      expectSplitOf(outs, x, 0, [1, 2]);
      expect(shape).toEqual([1, 4, 9]);
    },
  );

  gpuTest('options and byteOffset getters: read once, as first read', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [4, 4], rng(11)) as HostTensor<'float32'>;
    const options = changingGetter(changingGetter({}, 'axis', [1, 0, 'x']), 'sizes', [[1, 3], [4], null]);
    expectSplitOf(await e.split(x, options as never), x, 1, [1, 3]);
    const gx = e.upload(x);
    const moving = changingGetter(
      { dtype: gx.dtype, shape: gx.shape, buffer: gx.buffer, byteLength: gx.byteLength },
      'byteOffset',
      [0, 4, -1],
    );
    expectSplitOf(
      await downloadAll(e, (await e.split(moving as never, { axis: 0, sizes: [2, 2] })) as unknown as GpuTensor[]),
      x,
      0,
      [2, 2],
    );
  });
});

describe('released tensors and their copies are refused by every engine', () => {
  gpuTest(
    'spread, reshaped and assigned copies, and the originals: RELEASED on three engines, after the buffer is reused too',
    async (g) => {
      const [A, B, C] = [await g.engine(), await g.engine(), await g.engine()];
      const x = randomTensor('float32', [2, 64], rng(12)) as HostTensor<'float32'>;
      const gx = A.upload(x);
      const outs = await A.split(gx, { axis: 1, parts: 2 });
      const copies: [string, GpuTensor][] = [
        ['the released output', outs[0]!],
        ['a spread copy', { ...outs[0]! }],
        ['a reshaped copy', { ...outs[0]!, shape: [64] } as GpuTensor],
        ['an Object.assign copy', Object.assign({}, outs[0]!)],
        [
          'a fresh object naming its buffer',
          { dtype: 'float32', shape: [64], buffer: outs[0]!.buffer, byteOffset: 0, byteLength: 256 },
        ],
      ];
      for (const t of [...outs, gx]) A.release(t);
      const refuseAll = async (when: string, reused: boolean) => {
        // A fresh object naming a buffer that a new lease holds is a tensor of that lease: only the free buffer is
        // refused.
        for (const [name, t] of copies.filter(([n]) => !(reused && n.startsWith('a fresh object')))) {
          for (const [en, e] of [
            ['A', A],
            ['B', B],
            ['C', C],
          ] as const) {
            const what = `${name}, engine ${en}, ${when}`;
            expect((await refusal(() => e.download(t), `download: ${what}`)).code, `download: ${what}`).toBe(
              'RELEASED',
            );
            expect((await refusal(() => e.split(t, { parts: 1 }), `split: ${what}`)).code, `split: ${what}`).toBe(
              'RELEASED',
            );
            expect(
              (
                await refusal(
                  () => e.run({ op: 'Split', opset: 18, inputs: [t], attrs: { num_outputs: 1 } }),
                  `run: ${what}`,
                )
              ).code,
              `run: ${what}`,
            ).toBe('RELEASED');
            expect(
              (
                await refusal(
                  () => e.encodeSplit(g.device.createCommandEncoder(), t, { parts: 1 }),
                  `encodeSplit: ${what}`,
                )
              ).code,
              `encodeSplit: ${what}`,
            ).toBe('RELEASED');
          }
        }
      };
      await refuseAll('while the buffer is free in the pool', false);
      const gy = A.upload(x);
      const again = await A.split(gy, { axis: 1, parts: 2 }); // same sizes: the pooled buffers come back
      expect([gy.buffer, ...again.map((t) => t.buffer)], 'the released buffer is reused').toContain(outs[0]!.buffer);
      await refuseAll('after the buffer was reused', true);
      expectSplitOf(await downloadAll(A, again), x, 1, [32, 32]);
    },
  );

  gpuTest(
    'cleave-gpu/ort: toOrtTensor refuses a released tensor and its copies (RELEASED), before and after the buffer is reused',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [4, 64], rng(21)) as HostTensor<'float32'>;
      const outs = await e.split(e.upload(x), { axis: 1, parts: 2, layout: 'separate' });
      const copies: [string, GpuTensor][] = [
        ['the released output', outs[0]!],
        ['a spread copy', { ...outs[0]! }],
      ];
      for (const t of outs) e.release(t);
      const ort = { Tensor: { fromGpuBuffer: (b: GPUBuffer) => ({ gpuBuffer: b }) } };
      const problems: string[] = [];
      for (const when of ['while the buffer is free', 'after the buffer was reused']) {
        for (const [name, t] of copies) {
          try {
            toOrtTensor(ort, t);
            problems.push(`${name}, ${when}: accepted`);
          } catch (err) {
            if (!(err instanceof SplitError) || err.code !== 'RELEASED')
              problems.push(`${name}, ${when}: ${String(err)}`);
          }
        }
        await e.split(e.upload(x), { axis: 1, parts: 2, layout: 'separate' });
      }
      expect(problems).toEqual([]);
    },
  );

  gpuTest("a destroyed engine's tensors and their copies: RELEASED on the other engines", async (g) => {
    const [A, C] = [await g.engine(), await g.engine()];
    const x = randomTensor('uint8', [8, 8], rng(13)) as HostTensor<'uint8'>;
    const outs = await C.split(C.upload(x), { axis: 1, sizes: [3, 5] });
    const copy = { ...outs[1]! };
    C.destroy();
    for (const t of [outs[0]!, copy]) {
      expect((await refusal(() => A.download(t))).code).toBe('RELEASED');
      expect((await refusal(() => A.split(t, { parts: 1 }))).code).toBe('RELEASED');
    }
  });
});

describe('outputs used before their split is known to have failed on the GPU', () => {
  gpuTest(
    "a caller's buffer split before, destroyed, split again: its outputs used at once (download, split on either engine, a view, encodeSplit) are refused or share the failure",
    async (g) => {
      const late: SplitError[] = [];
      const e = await g.engine({ onLateError: (error) => late.push(error) });
      const e2 = await g.engine();
      const x = randomTensor('float32', [4, 64], rng(31)) as HostTensor<'float32'>;
      const buffer = g.device.createBuffer({ size: x.data.byteLength, usage: 0x80 | 0x4 | 0x8 });
      g.device.queue.writeBuffer(buffer, 0, x.data);
      const t = { dtype: 'float32', shape: [4, 64], buffer, byteOffset: 0, byteLength: x.data.byteLength } as const;
      const options = { axis: 1, sizes: [1, 63] };
      const first = await e.split(t, options); // waits for its scopes: the engine has now seen the buffer
      expect(splitProblem(await downloadAll(e, first), x, 1, [1, 63])).toBeUndefined();
      for (const o of first) e.release(o);
      buffer.destroy();
      const outs = await e.split(t, options); // resolves before its GPU error is known
      // Used at once, before the error is known:
      const download = e.download(outs[1]!);
      const derived = [
        e.split(outs[1]!, { axis: 0, parts: 2 }), // the engine's own buffer: no scopes
        e2.split(outs[1]!, { axis: 0, parts: 2 }), // another engine's buffer: waits for its scopes, which pass
        e.split(outs[1]!, { axis: 0, parts: 1 }), // a view, on the same lease
      ];
      const enc = g.device.createCommandEncoder();
      const encoded = e.encodeSplit(enc, outs[1]!, { axis: 0, parts: 2 });
      g.device.queue.submit([enc.finish()]);
      const stale = {
        code: 'GPU_ERROR',
        message: expect.stringMatching(
          /^\w+: this tensor's split failed on the GPU after it resolved: split: after it resolved, /,
        ),
      };
      await expect(download, 'the download waits for the split it reads').rejects.toMatchObject(stale);
      expect(late.map((l) => l.code)).toEqual(['GPU_ERROR']);
      const all = [...(await Promise.all(derived)).flat(), ...encoded];
      expect(all).toHaveLength(7);
      for (const o of all) await expect(e2.download(o)).rejects.toMatchObject(stale);
      expect(late).toHaveLength(1); // reported once, by the engine whose split failed
      expect([e.lateErrors, e2.lateErrors]).toEqual([[], []]);
      for (const o of [...all, ...outs]) e.release(o);
      const control = await e2.split(e2.upload(x), { axis: 1, sizes: [1, 63] });
      expect(splitProblem(await downloadAll(e2, control), x, 1, [1, 63])).toBeUndefined();
    },
  );
});

describe("a tensor released by another engine goes home to its own engine's pool", () => {
  gpuTest(
    "B.release(A.upload(x)): A's live buffers stay, A reuses the buffer, B keeps nothing; A and B refuse it after",
    async (g) => {
      const [A, B] = [await g.engine(), await g.engine()];
      const x = randomTensor('float32', [16, 4], rng(14)) as HostTensor<'float32'>;
      const y = randomTensor('int32', [64], rng(15)) as HostTensor<'int32'>; // the same byte size
      const gx = A.upload(x);
      const [liveA, liveB] = [A.stats.liveBuffers, B.stats.liveBuffers];
      B.release(gx);
      expect(A.stats.liveBuffers, 'pooled by A, not destroyed').toBe(liveA);
      expect(B.stats.liveBuffers).toBe(liveB);
      const gy = A.upload(y);
      expect(gy.buffer, 'A reuses the buffer B released').toBe(gx.buffer);
      expect(A.stats.liveBuffers).toBe(liveA);
      expect([...(await A.download(gy)).data]).toEqual([...y.data]);
      for (const e of [A, B]) expect((await refusal(() => e.download(gx))).code).toBe('RELEASED');
    },
  );

  gpuTest(
    "a shared output buffer released half by A, half by B, returns to A; B's destroy does not touch it",
    async (g) => {
      const [A, B] = [await g.engine(), await g.engine()];
      const x = randomTensor('float32', [4, 64], rng(16)) as HostTensor<'float32'>;
      const gx = A.upload(x);
      const outs = await A.split(gx, { axis: 1, sizes: [10, 54] });
      const live = A.stats.liveBuffers;
      B.release(outs[0]!);
      A.release(outs[1]!);
      B.destroy();
      expect(A.stats.liveBuffers).toBe(live);
      const again = await A.split(gx, { axis: 1, sizes: [10, 54] });
      expect(again[0]!.buffer, "reused from A's pool").toBe(outs[0]!.buffer);
      expectSplitOf(await downloadAll(A, again), x, 1, [10, 54]);
    },
  );
});

describe('the pool is bounded by count', () => {
  gpuTest(
    '2,000 fixed-shape upload / split / release loops leave a handful of live buffers, not 2,000',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [8, 16], rng(17)) as HostTensor<'float32'>;
      const start = g.live.size;
      let most = 0;
      for (let i = 0; i < 2000; i++) {
        const gx = e.upload(x);
        const outs = await e.split(gx, { axis: 1, sizes: [5, 11] });
        for (const t of [...outs, gx]) e.release(t);
        if (i % 100 === 99) await e.split(x, { axis: 1, parts: 3 });
        most = Math.max(most, e.stats.liveBuffers);
      }
      expect(most, 'live buffers at most, during the loops').toBeLessThanOrEqual(16);
      expect(g.live.size - start, 'buffers alive on the device').toBeLessThanOrEqual(16);
      const outs = await e.split(e.upload(x), { axis: 1, sizes: [5, 11] });
      expectSplitOf(await downloadAll(e, outs), x, 1, [5, 11]);
    },
    120_000,
  );

  gpuTest('600 uploads of distinct sizes, each released: the free list stops at its count bound', async (g) => {
    const e = await g.engine();
    for (let i = 0; i < 600; i++)
      e.release(e.upload({ dtype: 'uint8', shape: [4 * (i + 1)], data: new Uint8Array(4 * (i + 1)).fill(i) }));
    expect(e.stats.liveBuffers).toBeLessThanOrEqual(256 + 8);
    const x = randomTensor('uint8', [4, 30], rng(18)) as HostTensor<'uint8'>;
    expectSplitOf(await e.split(x, { axis: 1, sizes: [7, 23] }), x, 1, [7, 23]);
  });
});

describe('unknown keys are refused by name in every options object', () => {
  const x: HostTensor<'float32'> = {
    dtype: 'float32',
    shape: [2, 6],
    data: Float32Array.from({ length: 12 }, (_, i) => i),
  };
  const named = (e: SplitError, key: string, code = 'BAD_OPTIONS') => {
    expect(e.code).toBe(code);
    expect(e.message).toContain(`'${key}'`);
    expect(e.subject?.name).toBe(key);
  };

  gpuTest(
    "{ axsi: 1, parts: 2 } is BAD_OPTIONS naming 'axsi' (never a split of axis 0), and so in every options object",
    async (g) => {
      const e = await g.engine();
      const gx = e.upload(x);
      named(await refusal(() => e.split(x, { axsi: 1, parts: 2 } as never)), 'axsi');
      expect((await refusal(() => e.split(x, { axsi: 1, parts: 2 } as never))).message).toMatch(/did you mean 'axis'/);
      named(await refusal(() => e.split(gx, { parts: 2, layot: 'separate' } as never)), 'layot');
      named(await refusal(() => e.split(x, { parts: 2, axsi: undefined } as never)), 'axsi');
      named(
        await refusal(() => e.encodeSplit(g.device.createCommandEncoder(), gx, { parts: 2, alais: 'none' } as never)),
        'alais',
      );
      named(
        await refusal(() =>
          e.run({ op: 'Split', opset: 18, inputs: [gx], attrs: { num_outputs: 2 } }, { layuot: 'shared' } as never),
        ),
        'layuot',
      );
      named(await refusal(() => createSplitEngine({ backnd: 'cpu' } as never)), 'backnd');
      named(await refusal(() => createSplitEngine({ device: g.device, stratgy: 'gather' } as never)), 'stratgy');
      const node = { op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } };
      for (const call of [
        (n: unknown) => e.run(n as never),
        (n: unknown) => inferShapes(n as never),
        (n: unknown) => resolveNode(n as never),
      ]) {
        named(await refusal(() => call({ ...node, opst: 18 })), 'opst');
        named(await refusal(() => call({ ...node, attrs: { num_outputs: 2, axsi: 1 } })), 'axsi', 'BAD_ATTRIBUTE');
      }
      e.release(gx);
    },
  );
});

describe('policies (item 9)', () => {
  gpuTest('sparse string arrays are refused (DATA_TYPE) on every path', async (g) => {
    const e = await g.engine();
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const holey = ['a', 'b', 'c'];
    delete holey[1];
    const x = { dtype: 'string', shape: [3], data: holey } as unknown as HostTensor<'string'>;
    for (const call of [
      () => e.split(x, { parts: 3 }),
      () => cpu.split(x, { parts: 3 }),
      () => e.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 3 } }),
      () => inferShapes({ op: 'SplitToSequence', inputs: [x] }),
    ]) {
      expect((await refusal(call)).code).toBe('DATA_TYPE');
    }
  });

  gpuTest(
    '-0 in sizes, in a shape, in a float split input, or as the axis never reaches an output shape',
    async (g) => {
      const e = await g.engine();
      const cpu = await createSplitEngine({ backend: 'cpu' });
      const x = randomTensor('float32', [2, 3], rng(19)) as HostTensor<'float32'>;
      const noNegZero = (shapes: readonly (readonly number[])[], what: string) => {
        for (const s of shapes)
          expect(
            s.some((d) => Object.is(d, -0)),
            `${what}: [${s.map((d) => (Object.is(d, -0) ? '-0' : d)).join(', ')}]`,
          ).toBe(false);
      };
      const gx = e.upload(x);
      for (const [what, outs] of [
        ['host, GPU engine', await e.split(x, { axis: 1, sizes: [-0, 3, -0] })],
        ['GPU-resident', await e.split(gx, { axis: 1, sizes: [-0, 3] })],
        ['CPU backend', await cpu.split(x, { axis: -0, sizes: [2, -0] })],
        ['strings', await e.split({ dtype: 'string', shape: [2, 1], data: ['a', 'b'] }, { axis: 1, sizes: [1, -0] })],
        [
          'Split-11 split attribute',
          await e.run({ op: 'Split', opset: 11, inputs: [x], attrs: { axis: 1, split: [-0, 3] } }),
        ],
        [
          'Split-1 float split input',
          await e.run({
            op: 'Split',
            opset: 1,
            inputs: [x, { dtype: 'float32', shape: [2], data: Float32Array.of(-0, 3) }],
            attrs: { axis: 1 },
          } as never),
        ],
        [
          'a -0 dimension',
          await e.split({ dtype: 'float32', shape: [2, -0], data: new Float32Array(0) }, { axis: 0, sizes: [1, 1] }),
        ],
      ] as const) {
        noNegZero(
          (outs as { shape: readonly number[] }[]).map((o) => o.shape),
          what,
        );
      }
      noNegZero(
        inferShapes({ op: 'Split', opset: 11, inputs: [x], attrs: { axis: 1, split: [-0, 3] } }).map((s) => s.shape),
        'inferShapes',
      );
      const plan = resolveNode({ op: 'Split', opset: 11, inputs: [x], attrs: { axis: 1, split: [-0, 3] } }).plan;
      noNegZero([plan.sizes, plan.starts, ...plan.outputShapes], 'resolveNode plan');
    },
  );

  gpuTest(
    'a Node Buffer (from the shared pool, at a non-zero byteOffset) is uint8, bool, float8 and packed data; not int8',
    async (g) => {
      const e = await g.engine();
      const bytes = randomTensor('uint8', [4, 6], rng(20)).data as Uint8Array;
      for (const [dtype, shape] of [
        ['uint8', [4, 6]],
        ['bool', [4, 6]],
        ['float8e4m3fn', [4, 6]],
        ['int4', [4, 12]],
        ['uint1', [4, 48]],
      ] as const) {
        const data = Buffer.from(bytes);
        expect(data.byteOffset, 'a pooled Buffer').toBeGreaterThan(0);
        const x = { dtype, shape: [...shape], data } as HostTensor;
        const reference = { dtype, shape: [...shape], data: bytes.slice() } as HostTensor;
        const sizes = [1, 3];
        expectSplitOf(await e.split(x, { axis: 0, sizes }), reference, 0, sizes);
        const gx = e.upload(x as HostTensor<FixedDType>);
        expect([...new Uint8Array((await e.download(gx)).data as Uint8Array)]).toEqual([...bytes]);
        expectSplitOf(await downloadAll(e, await e.split(gx, { axis: 0, sizes })), reference, 0, sizes);
      }
      expect(
        (await refusal(() => e.split({ dtype: 'int8', shape: [24], data: Buffer.from(bytes) } as never, { parts: 2 })))
          .code,
      ).toBe('DATA_TYPE');
    },
  );

  gpuTest('bool bytes other than 0 and 1 pass through unchanged, on every path', async (g) => {
    const e = await g.engine();
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const x: HostTensor<'bool'> = {
      dtype: 'bool',
      shape: [4, 8],
      data: Uint8Array.from({ length: 32 }, (_, i) => [0, 1, 2, 255, 128, 7, 254, 16][i % 8]! ^ (i >> 3)),
    };
    const sizes = [3, 5];
    expectSplitOf(await e.split(x, { axis: 1, sizes }), x, 1, sizes);
    expectSplitOf(await cpu.split(x, { axis: 1, sizes }), x, 1, sizes);
    expectSplitOf(
      await downloadAll(e, await e.split(e.upload(x), { axis: 1, sizes, layout: 'separate' })),
      x,
      1,
      sizes,
    );
    expectSplitOf(
      (await e.run({
        op: 'Split',
        opset: 13,
        inputs: [x, { dtype: 'int64', shape: [2], data: BigInt64Array.of(3n, 5n) }],
        attrs: { axis: 1 },
      })) as HostTensor[],
      x,
      1,
      sizes,
    );
    const problem = splitProblem(await e.split(x, { axis: 0, parts: 4 }), x, 0, [1, 1, 1, 1]);
    expect(problem).toBeUndefined();
  });
});

describe('engine methods taken off the engine', () => {
  gpuTest(
    'const { split, run, upload, download, encodeSplit, release, destroy, acknowledge } = engine: each works as a method does',
    async (g) => {
      const e = await g.engine();
      const { split, upload, download, release, run, encodeSplit } = e;
      const x = randomTensor('float32', [2, 6], rng(22)) as HostTensor<'float32'>;
      expect(splitProblem(await split(x, { axis: 1, sizes: [1, 5] }), x, 1, [1, 5]), 'split').toBeUndefined();
      const ran = await run({ op: 'Split', opset: 18, inputs: [x], attrs: { axis: 1, num_outputs: 2 } });
      expect(splitProblem(ran, x, 1, [3, 3]), 'run').toBeUndefined();
      const up = upload(x);
      expect(splitProblem([await e.download(up)], x, 0, [2]), 'upload').toBeUndefined();
      e.release(up);
      const gx = e.upload(x);
      expect(splitProblem([await download(gx)], x, 0, [2]), 'download').toBeUndefined();
      const enc = g.device.createCommandEncoder();
      const encoded = encodeSplit(enc, gx, { axis: 1, sizes: [2, 4] });
      g.device.queue.submit([enc.finish()]);
      expect(splitProblem(await downloadAll(e, encoded), x, 1, [2, 4]), 'encodeSplit').toBeUndefined();
      for (const t of encoded) e.release(t);
      release(gx);
      expect((await refusal(() => e.download(gx), 'a released tensor')).code, 'release').toBe('RELEASED');
      const other = await g.engine();
      const { destroy } = other;
      destroy();
      expect((await refusal(() => other.split(x, { parts: 2 }), 'a destroyed engine')).code, 'destroy').toBe(
        'RELEASED',
      );
      const { acknowledge } = e;
      expect(acknowledge(), 'acknowledge').toEqual([]);
    },
  );
});
