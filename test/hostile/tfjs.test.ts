// Bad input to cleave-gpu/tfjs. Real TF.js 4.22 in Node: its CPU backend, and its WebGPU
// backend on this file's Dawn device (the same device as the engines here). Every refused call
// throws a SplitError with the decided code, runs inside the GPU test scopes (no GPU error), and
// leaks nothing: TF.js's tensor count and bytes are the same after the refusals as before, which
// also proves that fromTfTensor disposes the tensorRef TF.js made when it then refuses the buffer.
// Beside them, the padding rule: a TF.js tensor on a larger buffer is viewed as its own bytes.

import { beforeAll, describe, expect } from 'vitest';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { WebGPUBackend } from '@tensorflow/tfjs-backend-webgpu';
import { type GpuTensor, type HostTensor, type SplitErrorCode, SplitError } from '../../src/index.js';
import { fromTfTensor, toTfTensor } from '../../src/tfjs.js';
import { gpu, gpuTest } from '../helpers/gpu.js';
import { JUNK, revokedProxy, throwingGet, throwingProxy } from './values.js';

/** What a call did: the SplitError's code, or how it failed otherwise. */
function outcome(call: () => unknown): string {
  try {
    call();
    return 'accepted';
  } catch (e) {
    return e instanceof SplitError ? e.code : `not a SplitError: ${String(e)}`;
  }
}

/**
 * TF.js's count of tensors and their bytes: what no refused call may change. (Its GPU bytes in use
 * move with disposals it defers to its next submit, so they are not compared.)
 */
const memory = () => ({ tensors: tf.memory().numTensors, bytes: tf.memory().numBytes });

beforeAll(async () => {
  const { device } = await gpu();
  // TF.js's WebGPU backend asks navigator.gpu whether WebGPU exists; Node 20 has no navigator.
  const nav = ((globalThis as { navigator?: object }).navigator ??= {}) as { gpu?: unknown };
  nav.gpu ??= {};
  // Its import registered 'webgpu' only where navigator.gpu existed then: replace that one, if any.
  if (tf.findBackendFactory('webgpu')) tf.removeBackend('webgpu');
  tf.registerBackend('webgpu', () => new WebGPUBackend(device));
  await tf.setBackend('webgpu');
  tf.env().set('WEBGPU_CPU_FORWARD', false);
  tf.env().set('PROD', true); // no banner urging tfjs-node on the CPU backend's first use
});

/** A float32 [4, 8] tensor computed on TF.js's WebGPU backend. */
const onGpu = () => tf.tidy(() => tf.add(tf.reshape(tf.range(0, 32, 1, 'float32'), [4, 8]), 1));

describe('fromTfTensor', () => {
  gpuTest('refuses what is not a live tf.Tensor on the WebGPU backend, and leaks nothing', async () => {
    const before = memory();
    const gone = onGpu();
    gone.dispose();
    const cpuTensor = await (async () => {
      await tf.setBackend('cpu');
      const t = tf.tidy(() => tf.add(tf.tensor([1, 2, 3]), 1));
      await tf.setBackend('webgpu');
      return t;
    })();
    tf.env().set('WEBGPU_CPU_FORWARD', true);
    const onCpuOfWebgpu = tf.tensor([1, 2, 3]); // made from JS values: stays on the CPU until a GPU op reads it
    tf.env().set('WEBGPU_CPU_FORWARD', false);
    const proxied = [onGpu(), onGpu()];
    let disposed = 0;
    const lookAlike = (buffer: unknown, extra: object = {}) => ({
      dtype: 'float32',
      shape: [2],
      isDisposed: false,
      dataToGPU: () => ({ buffer, tensorRef: { dispose: () => void disposed++ } }),
      ...extra,
    });
    const cases: [string, unknown, SplitErrorCode][] = [
      ...JUNK.map(([name, v]): [string, unknown, SplitErrorCode] => [name, v(), 'BAD_INPUT']),
      ['a plain object', {}, 'BAD_INPUT'],
      ['a Cleave-shaped tensor', { dtype: 'float32', shape: [1], data: new Float32Array(1) }, 'BAD_INPUT'],
      ['a throwing proxy of a tensor', throwingProxy(proxied[0]), 'BAD_INPUT'],
      ['a revoked proxy', revokedProxy(), 'BAD_INPUT'],
      ['a tensor whose dtype getter throws', throwingGet(proxied[1], ['dataToGPU', 'isDisposed']), 'BAD_INPUT'],
      ['a disposed tensor', gone, 'RELEASED'],
      ["a tensor on TF.js's CPU backend", cpuTensor, 'BAD_INPUT'],
      ['a WebGPU-backend tensor whose data is on the CPU (WEBGPU_CPU_FORWARD)', onCpuOfWebgpu, 'BAD_INPUT'],
      ['a complex64 tensor', tf.complex([1], [2]), 'BAD_DTYPE'],
      ['a string tensor', tf.tensor(['a', 'b']), 'BAD_DTYPE'],
      ['a look-alike whose dataToGPU gives no buffer (WebGL gives a texture)', lookAlike(undefined), 'BAD_INPUT'],
      ['a look-alike whose buffer is a plain object', lookAlike({ size: 8 }), 'BAD_INPUT'],
      ['a look-alike with a shape of -1', lookAlike(undefined, { shape: [-1] }), 'BAD_SHAPE'],
      [
        'a look-alike whose dataToGPU throws 42',
        {
          ...lookAlike(undefined),
          dataToGPU: () => {
            throw 42;
          },
        },
        'BAD_INPUT',
      ],
    ];
    const got = cases.map(([name, t]) => `${name}: ${outcome(() => fromTfTensor(t as never))}`);
    expect(got).toEqual(cases.map(([name, , code]) => `${name}: ${code}`));
    expect(disposed, 'every tensorRef a refused look-alike handed over was disposed').toBe(2);
    tf.dispose([cpuTensor, onCpuOfWebgpu, ...proxied]);
    tf.dispose(cases.slice(-6, -4).map(([, t]) => t as tf.Tensor)); // the complex64 and string tensors
    expect(memory()).toEqual(before);
  });

  gpuTest(
    'a live tensor is viewed (its own data, bool as int32 words), and its tensorRef is the only new tensor',
    async () => {
      const e = await (await gpu()).engine();
      const before = memory();
      const a = onGpu();
      const b = tf.tidy(() => tf.greater(a, 16));
      const [ga, gb] = [fromTfTensor(a), fromTfTensor(b)];
      expect([ga.dtype, gb.dtype, ga.shape, ga.byteOffset, ga.byteLength]).toEqual([
        'float32',
        'int32',
        [4, 8],
        0,
        128,
      ]);
      expect(tf.memory().numTensors).toBe(before.tensors + 4);
      const [d, bits] = [await e.download(ga), await e.download(gb)];
      expect([...(d.data as Float32Array)]).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
      expect([...(bits.data as Int32Array)]).toEqual(Array.from({ length: 32 }, (_, i) => (i + 1 > 16 ? 1 : 0)));
      [a, b, ga.tensorRef, gb.tensorRef].forEach((t) => t.dispose());
      expect(memory()).toEqual(before);
    },
  );
});

describe('fromTfTensor, padding', () => {
  gpuTest(
    "a tensor on a larger buffer: dataToGPU's copy is the whole buffer, the Cleave tensor its first 4 * numel bytes",
    async (g) => {
      const e = await g.engine();
      const before = memory();
      const b = g.device.createBuffer({
        size: 64,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      });
      g.device.queue.writeBuffer(
        b,
        0,
        Float32Array.from({ length: 16 }, (_, i) => i + 1),
      );
      const t = tf.tensor({ buffer: b, zeroCopy: true }, [2, 3], 'float32'); // 24 of the buffer's 64 bytes
      const x = fromTfTensor(t);
      expect([x.buffer.size, x.byteOffset, x.byteLength, x.shape]).toEqual([64, 0, 24, [2, 3]]);
      const outs = await e.split(x, { axis: 1, sizes: [1, 2] });
      x.tensorRef.dispose();
      t.dispose();
      const got = [];
      for (const o of outs) got.push([...((await e.download(o)).data as Float32Array)]);
      expect(got).toEqual([
        [1, 4],
        [2, 3, 5, 6],
      ]);
      outs.forEach((o) => e.release(o));
      b.destroy();
      expect(memory()).toEqual(before);
    },
  );
});

describe('toTfTensor', () => {
  gpuTest(
    'refuses released, offset, host and foreign-dtype tensors and bad namespaces, and leaks nothing',
    async (g) => {
      const e = await g.engine();
      const before = memory();
      const x: HostTensor<'float32'> = { dtype: 'float32', shape: [4, 64], data: new Float32Array(256) };
      const gx = e.upload(x);
      const [released] = await e.split(gx, { axis: 1, parts: 2, layout: 'separate' });
      const copyOfReleased = { ...released! };
      e.release(released!);
      const [first, second] = await e.split(gx, { axis: 0, parts: 2, alias: 'none' });
      const [ok] = await e.split(gx, { axis: 0, parts: 2, layout: 'separate' });
      const uploads = [
        e.upload({ dtype: 'bool', shape: [4], data: Uint8Array.of(1, 0, 1, 0) }),
        e.upload({ dtype: 'uint8', shape: [4], data: Uint8Array.of(1, 2, 3, 4) }),
        e.upload({ dtype: 'float16', shape: [4], data: new Uint16Array(4) }),
      ];
      const noStorage = g.device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      const caller: GpuTensor = { dtype: 'float32', shape: [4], buffer: noStorage, byteOffset: 0, byteLength: 16 };
      const cases: [string, unknown, unknown, SplitErrorCode][] = [
        ['a released tensor', tf, released, 'RELEASED'],
        ['a copy of a released tensor', tf, copyOfReleased, 'RELEASED'],
        ['a tensor at byte offset 512', tf, second, 'BAD_INPUT'],
        ['a tensor at byte 0 of a larger buffer (TF.js would read it all)', tf, first, 'BAD_INPUT'],
        ['a host tensor', tf, x, 'BAD_INPUT'],
        ...JUNK.map(([name, v]): [string, unknown, unknown, SplitErrorCode] => [
          `${name} as the tensor`,
          tf,
          v(),
          'BAD_INPUT',
        ]),
        ["Cleave's 8-bit bool", tf, uploads[0], 'BAD_DTYPE'],
        ['uint8', tf, uploads[1], 'BAD_DTYPE'],
        ['float16', tf, uploads[2], 'BAD_DTYPE'],
        ["a caller's buffer without STORAGE", tf, caller, 'BAD_INPUT'],
        ...JUNK.map(([name, v]): [string, unknown, unknown, SplitErrorCode] => [
          `${name} as tf`,
          v(),
          ok!,
          'BAD_INPUT',
        ]),
        ['tf without tensor()', { ...tf, tensor: undefined }, ok, 'BAD_INPUT'],
        ['a throwing proxy of tf', throwingProxy({ ...tf }), ok, 'BAD_INPUT'],
        [
          'tf whose tensor() throws 42',
          {
            tensor: () => {
              throw 42;
            },
          },
          ok,
          'BAD_INPUT',
        ],
      ];
      const got = cases.map(([name, ns, t]) => `${name}: ${outcome(() => toTfTensor(ns as never, t as never))}`);
      expect(got).toEqual(cases.map(([name, , , code]) => `${name}: ${code}`));
      // TF.js on its CPU backend cannot take a GPU buffer: tf.tensor refuses, and Cleave says so.
      await tf.setBackend('cpu');
      const onCpu = outcome(() => toTfTensor(tf, ok!));
      await tf.setBackend('webgpu');
      expect(onCpu).toBe('BAD_INPUT');
      let offsetMessage = '';
      try {
        toTfTensor(tf, second!);
      } catch (err) {
        offsetMessage = (err as Error).message;
      }
      expect(offsetMessage).toContain("split with { layout: 'separate' }");
      expect(memory()).toEqual(before);
      // The control: the same call with a live tensor at byte 0 is a TF.js tensor of its values.
      const w = toTfTensor(tf, ok!);
      expect([w.dtype, w.shape, [...(await w.data())]]).toEqual(['float32', [2, 64], Array<number>(128).fill(0)]);
      w.dispose();
      noStorage.destroy();
      for (const t of [first!, second!, ok!, gx, ...uploads]) e.release(t);
    },
  );
});
