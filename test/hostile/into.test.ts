// Bad destinations (`into`): each refused call throws a SplitError with the decided code (or, for a
// buffer the engine cannot judge on the CPU, rejects with GPU_ERROR, or reports it late as the
// README's ownership contract says), and writes nothing anywhere: every destination buffer reads
// back byte for byte as before. A valid split runs between any two bad ones and must be exact.
import { describe, expect } from 'vitest';
import { type GpuTensor, type HostTensor, type Into, SplitError, type SplitErrorCode } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { TENSOR_USAGE } from '../helpers/dtypes.js';
import { defaultLimitsDevice, gpuTest } from '../helpers/gpu.js';
import { firstMismatch, referenceSplit } from '../helpers/reference.js';
import { readBuffer as read } from '../helpers/download.js';

const [MAP_READ, COPY_DST] = [0x1, 0x8];

const filled = (device: GPUDevice, size: number, seed: number, usage = TENSOR_USAGE) => {
  const b = device.createBuffer({ size, usage });
  const next = rng(seed);
  device.queue.writeBuffer(
    b,
    0,
    Uint8Array.from({ length: size }, () => Math.floor(next() * 256)),
  );
  return b;
};

async function codeOf(call: () => unknown): Promise<SplitErrorCode | string> {
  try {
    await call();
    return 'accepted';
  } catch (e) {
    return e instanceof SplitError ? e.code : `not a SplitError: ${String(e)}`;
  }
}

describe('into: bad destinations', () => {
  gpuTest('each is refused with its code, writes nothing, and a valid split between them is exact', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [4, 6], rng(1)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const ref = referenceSplit(x, 1, [4, 2]) as Uint8Array[];
    const d = filled(g.device, 256, 2);
    const other = await defaultLimitsDevice();
    const foreign = filled(other, 64, 3);
    const gone = filled(g.device, 64, 4);
    gone.destroy();
    const readOnly = g.device.createBuffer({ size: 64, usage: MAP_READ | COPY_DST });
    const released = e.upload(randomTensor('float32', [4, 4], rng(5)) as HostTensor<'float32'>);
    e.release(released);
    const small = filled(g.device, 12, 6);
    const packed = e.upload(randomTensor('int4', [4, 8], rng(7)) as HostTensor<'int4'>);
    const at = (buffer: GPUBuffer, byteOffset = 0, more: Partial<Into> = {}): Into<'float32'> =>
      ({ dtype: 'float32', shape: [4, 4], buffer, byteOffset, ...more }) as Into<'float32'>;
    const [before, foreignBefore] = [await read(g.device, d), await read(other, foreign)];
    const cases: [string, SplitErrorCode, () => unknown][] = [
      [
        'two destinations that overlap',
        'BAD_INPUT',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d, 0), { ...at(d, 32), shape: [4, 2] }] }),
      ],
      [
        "a destination in the input's buffer",
        'BAD_INPUT',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(gx.buffer, 0), undefined] }),
      ],
      [
        'a destination on another device',
        'GPU_ERROR',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(foreign), undefined] }),
      ],
      [
        'a destroyed destination',
        'GPU_ERROR',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(gone), undefined] }),
      ],
      [
        'a read-only buffer',
        'BAD_INPUT',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(readOnly), undefined] }),
      ],
      [
        'strides that make rows overlap',
        'BAD_SHAPE',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d, 0, { strides: [3, 1] }), undefined] }),
      ],
      [
        'a destination too small by one byte',
        'DATA_LENGTH',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [undefined, { ...at(d, 228), shape: [4, 2] }] }),
      ],
      [
        "a dtype that differs from the input's",
        'BAD_DTYPE',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [{ ...at(d), dtype: 'int32' } as never, undefined] }),
      ],
      [
        "a shape that differs from the output's",
        'BAD_SHAPE',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d, 0, { shape: [4, 5] }), undefined] }),
      ],
      [
        'a byteOffset that is not a multiple of 4',
        'BAD_INPUT',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d, 2), undefined] }),
      ],
      ['one entry too few', 'BAD_OPTIONS', () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d)] })],
      [
        "a released tensor's buffer",
        'RELEASED',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [{ ...released, shape: [4, 4] }, undefined] }),
      ],
      ['a host input', 'BAD_OPTIONS', () => e.split(x, { axis: 1, sizes: [4, 2], into: [at(d), undefined] } as never)],
      [
        'a strided packed destination whose rows start inside a word',
        'BAD_INPUT',
        () =>
          e.split(packed, {
            axis: 1,
            sizes: [4, 4],
            into: [{ dtype: 'int4', shape: [4, 4], buffer: d, byteOffset: 0, strides: [5, 1] }, undefined],
          }),
      ],
      [
        'a stride list of the wrong length',
        'BAD_SHAPE',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [at(d, 0, { strides: [4] }), undefined] }),
      ],
      [
        'junk for a destination',
        'BAD_INPUT',
        () => e.split(gx, { axis: 1, sizes: [4, 2], into: [42 as never, undefined] }),
      ],
    ];
    const control = filled(g.device, 64, 8);
    const x8 = randomTensor('uint8', [3, 6], rng(11)) as HostTensor<'uint8'>;
    const [g8, ref8] = [e.upload(x8), referenceSplit(x8, 1, [3, 3]) as Uint8Array[]];
    const tail = filled(g.device, 16, 12);
    const tailBefore = await read(g.device, tail);
    const at8: Into<'uint8'> = { dtype: 'uint8', shape: [3, 3], buffer: tail, byteOffset: 0 };
    for (const [what, code, call] of cases) {
      expect(await codeOf(call), what).toBe(code);
      // A valid control: output 1 into `control` at a strided place, output 0 placed by the engine.
      const outs = await e.split(gx, {
        axis: 1,
        sizes: [4, 2],
        into: [undefined, { dtype: 'float32', shape: [4, 2], buffer: control, byteOffset: 8, strides: [3, 1] }],
      });
      const got = await read(g.device, control);
      const rows = [0, 1, 2, 3].map((r) => got.subarray(8 + 12 * r, 16 + 12 * r));
      const want1 = [0, 1, 2, 3].map((r) => ref[1]!.subarray(8 * r, 8 * r + 8));
      expect(
        rows.map((r, i) => firstMismatch(r, want1[i]!)),
        `control after ${what}`,
      ).toEqual([undefined, undefined, undefined, undefined]);
      const host = await e.download(outs[0]!);
      expect(firstMismatch(new Uint8Array(host.data.buffer), ref[0]!), `control after ${what}`).toBeUndefined();
      for (const o of outs) e.release(o);
      // A second control on the bit path: 9 bytes end inside a word, the 7 bytes after them are not its own.
      const [bytes8] = (await e.split(g8, { axis: 1, sizes: [3, 3], into: [undefined, at8] })).slice(1);
      const got8 = await read(g.device, tail);
      expect(firstMismatch(got8.subarray(0, 9), ref8[1]!), `bit-path control after ${what}`).toBeUndefined();
      expect(
        firstMismatch(got8.subarray(9), tailBefore.subarray(9)),
        `the bytes after it, after ${what}`,
      ).toBeUndefined();
      e.release(bytes8);
      expect(firstMismatch(await read(g.device, d), before), `nothing written after ${what}`).toBeUndefined();
    }
    expect(
      firstMismatch(await read(other, foreign), foreignBefore),
      'nothing written on the other device',
    ).toBeUndefined();
    for (const b of [d, readOnly, small, control, tail]) b.destroy();
    for (const t of [gx, packed, g8]) e.release(t);
    other.destroy();
  });

  gpuTest(
    'a destination seen before, then destroyed: the split resolves, its error comes late and poisons its outputs',
    async (g) => {
      const late: SplitError[] = [];
      const e = await g.engine({ onLateError: (err) => late.push(err) });
      const x = randomTensor('float32', [4, 6], rng(9)) as HostTensor<'float32'>;
      const gx = e.upload(x);
      const d = filled(g.device, 64, 10);
      const into = (): Into<'float32'>[] => [{ dtype: 'float32', shape: [4, 2], buffer: d, byteOffset: 0 }];
      for (const o of await e.split(gx, { axis: 1, sizes: [4, 2], into: [undefined, ...into()] })) e.release(o);
      d.destroy();
      g.device.pushErrorScope('validation'); // the destroyed buffer's error is the split's, not the test's
      const outs: GpuTensor[] = await e.split(gx, { axis: 1, sizes: [4, 2], into: [undefined, ...into()] });
      await g.device.popErrorScope();
      await g.device.queue.onSubmittedWorkDone();
      await new Promise((r) => setTimeout(r, 50));
      expect(late.map((err) => err.code)).toEqual(['GPU_ERROR']);
      expect(await codeOf(() => e.download(outs[0]!))).toBe('GPU_ERROR');
      for (const o of outs) e.release(o);
      e.release(gx);
    },
  );
});
