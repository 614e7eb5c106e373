// Blame: a split whose own GPU work fails (a buffer of another device, a buffer the caller
// destroyed) rejects with GPU_ERROR, and only it: splits in flight beside it, the next split on the
// same engine and splits on another engine sharing the device all resolve exactly. Errors the
// application raises on a shared device (with its own error scope, or heard by its
// 'uncapturederror' listener) reject no Cleave call, and Cleave's errors never reach the
// application's scopes or listener. These tests provoke GPU errors on purpose, so they hold their
// own devices instead of gpuTest's scoped fixture.

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  type SplitEngineOptions,
  SplitError,
  createSplitEngine,
} from '../../src/index.js';
import { toOrtTensor } from '../../src/ort.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { TENSOR_USAGE, align4 } from '../helpers/dtypes.js';
import { splitProblem } from './controls.js';
import { downloadAll } from '../helpers/download.js';
import { type Outcome, describeOutcome, outcomeOf } from './harness.js';

const settle = (p: unknown): Promise<Outcome> => outcomeOf(() => p, 10_000);

let device: GPUDevice;
let foreign: GPUDevice;
let A: SplitEngine;
let B: SplitEngine;
/** What the application's 'uncapturederror' listener heard. */
const heard: string[] = [];

beforeAll(async () => {
  const [d1, d2] = await Promise.all([acquireDevice(), acquireDevice()]);
  if ('reason' in d1 || 'reason' in d2) throw new Error('two WebGPU devices are needed');
  [device, foreign] = [d1.device, d2.device];
  device.addEventListener('uncapturederror', (ev) =>
    heard.push((ev as GPUUncapturedErrorEvent).error.message.split('\n')[0]!),
  );
  A = await createSplitEngine({ device });
  B = await createSplitEngine({ device });
});

afterAll(() => {
  A?.destroy();
  B?.destroy();
  device?.destroy();
  foreign?.destroy();
});

const x = randomTensor('float32', [4, 64], rng(1)) as HostTensor<'float32'>;
/** toOrtTensor's namespace: hands back what it was given (ORT itself is not needed to refuse a tensor). */
const ORT_LIKE = { Tensor: { fromGpuBuffer: (b: GPUBuffer, o: object) => ({ gpuBuffer: b, ...o }) } };
const y = randomTensor('int16', [6, 10], rng(2)) as HostTensor<'int16'>;

/** The tensor's bytes in a buffer of `dev` that the caller owns. */
function callerTensor(dev: GPUDevice, t: HostTensor<FixedDType>): GpuTensor {
  const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const buffer = dev.createBuffer({ size: align4(bytes.byteLength), usage: TENSOR_USAGE });
  dev.queue.writeBuffer(buffer, 0, bytes);
  return { dtype: t.dtype, shape: [...t.shape], buffer, byteOffset: 0, byteLength: bytes.byteLength } as GpuTensor;
}

/** Valid splits on both engines, host and GPU-resident, each with how to check its result. */
function goodSplits(): { name: string; p: Promise<unknown>; check: (v: unknown) => Promise<string | undefined> }[] {
  const host = (e: SplitEngine, name: string) => ({
    name,
    p: e.split(y, { axis: 1, sizes: [3, 7] }) as Promise<unknown>,
    check: async (v: unknown) => splitProblem(v, y, 1, [3, 7]),
  });
  const resident = (e: SplitEngine, name: string) => {
    const gx = e.upload(x);
    return {
      name,
      p: e.split(gx, { axis: 1, sizes: [1, 63] }) as Promise<unknown>,
      check: async (v: unknown) => {
        const problem = splitProblem(await downloadAll(e, v as GpuTensor[]), x, 1, [1, 63]);
        for (const t of [...(v as GpuTensor[]), gx]) e.release(t);
        return problem;
      },
    };
  };
  return [host(A, 'A host'), resident(A, 'A resident'), host(B, 'B host'), resident(B, 'B resident')];
}

async function expectAllExact(goods: ReturnType<typeof goodSplits>): Promise<void> {
  for (const g of goods) {
    const o = await settle(g.p);
    expect(describeOutcome(o), `${g.name}: ${o.kind === 'error' || o.kind === 'foreign' ? o.message : ''}`).toBe(
      'resolved (silent acceptance)',
    );
    expect(await g.check((o as { value: unknown }).value), g.name).toBeUndefined();
  }
}

/** A split that must fail on the GPU, between valid splits in flight; then the next splits. */
async function blameOnly(name: string, failing: () => Promise<unknown>): Promise<void> {
  heard.length = 0;
  device.pushErrorScope('validation'); // the application's own scope, open around every call here
  const before = goodSplits();
  const bad = settle(failing());
  const after = goodSplits();
  const appScope = await device.popErrorScope();
  const o = await bad;
  expect(describeOutcome(o), `${name}: ${o.kind === 'error' || o.kind === 'foreign' ? o.message : ''}`).toBe(
    'GPU_ERROR',
  );
  await expectAllExact(before);
  await expectAllExact(after);
  await expectAllExact(goodSplits());
  expect(appScope?.message ?? null, "Cleave's GPU error reached the application's error scope").toBeNull();
  await device.queue.onSubmittedWorkDone();
  await new Promise((r) => setTimeout(r, 20));
  expect(heard, "Cleave's GPU error reached the application's uncapturederror listener").toEqual([]);
}

describe("a split's own GPU error rejects that split only", () => {
  test('a buffer of another device: split (gather), split (copies), layout separate', async () => {
    await blameOnly('gather', () => A.split(callerTensor(foreign, x), { axis: 1, sizes: [1, 63] }));
    await blameOnly('copies', () => A.split(callerTensor(foreign, x), { axis: 0, sizes: [1, 3] }));
    await blameOnly('separate', () => A.split(callerTensor(foreign, x), { axis: 1, parts: 3, layout: 'separate' }));
  });

  test('a buffer of another device: download, run, and on the second engine', async () => {
    await blameOnly('download', () => A.download(callerTensor(foreign, x)));
    await blameOnly('run', () =>
      A.run({ op: 'Split', opset: 18, inputs: [callerTensor(foreign, x)], attrs: { axis: 1, num_outputs: 3 } }),
    );
    await blameOnly('engine B', () => B.split(callerTensor(foreign, y), { axis: 1, sizes: [3, 7] }));
  });

  test('a buffer the caller destroyed: split, download, run', async () => {
    const gone = () => {
      const t = callerTensor(device, x);
      t.buffer.destroy();
      return t;
    };
    await blameOnly('split', () => A.split(gone(), { axis: 1, sizes: [1, 63] }));
    await blameOnly('split, copies', () => B.split(gone(), { axis: 0, parts: 4 }));
    await blameOnly('download', () => A.download(gone()));
    await blameOnly('run', () => B.run({ op: 'SplitToSequence', inputs: [gone()], attrs: { axis: 0 } }));
  });

  test('eight failing splits interleaved with eight valid ones, on two engines: exactly the eight fail', async () => {
    heard.length = 0;
    const gone = () => {
      const t = callerTensor(device, x);
      t.buffer.destroy();
      return t;
    };
    const calls = Array.from({ length: 16 }, (_, i) => {
      const e = i % 4 < 2 ? A : B;
      if (i % 2 === 0)
        return {
          p: settle(e.split(i % 4 === 0 ? callerTensor(foreign, x) : gone(), { axis: 1, parts: 5 })),
          check: undefined,
        };
      const g = goodSplits()[(i >> 1) % 4]!;
      return { p: settle(g.p), check: g.check };
    });
    const results = await Promise.all(calls.map((c) => c.p));
    for (const [i, o] of results.entries()) {
      const check = calls[i]!.check;
      if (!check) {
        expect(describeOutcome(o), `call ${i} (${i % 4 === 0 ? 'foreign' : 'destroyed'} buffer)`).toBe('GPU_ERROR');
        continue;
      }
      expect(describeOutcome(o), `call ${i}`).toBe('resolved (silent acceptance)');
      expect(await check((o as { value: unknown }).value), `call ${i}`).toBeUndefined();
    }
    expect(heard).toEqual([]);
  });
});

describe("the application's own GPU errors reject no Cleave call", () => {
  const appError = () => device.createBuffer({ size: 16, usage: 0x1 | 0x80 }); // MAP_READ | STORAGE: invalid

  test('inside its own error scope, with Cleave calls in flight across it', async () => {
    heard.length = 0;
    const before = goodSplits();
    device.pushErrorScope('validation');
    const inside = goodSplits();
    appError();
    const scope = await device.popErrorScope();
    const after = goodSplits();
    expect(scope?.message, "the application's scope caught its own error").toMatch(/usage/i);
    await expectAllExact(before);
    await expectAllExact(inside);
    await expectAllExact(after);
    expect(heard).toEqual([]);
  });

  test("without a scope: the application's uncapturederror listener hears it; Cleave calls before, during and after resolve", async () => {
    heard.length = 0;
    const before = goodSplits();
    appError();
    const during = goodSplits();
    appError();
    await expectAllExact(before);
    await expectAllExact(during);
    await expectAllExact(goodSplits());
    await device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 20));
    expect(heard.length, `the listener heard: ${heard.join(' | ')}`).toBe(2);
    expect(heard.every((m) => /usage/i.test(m))).toBe(true);
  });

  test('an application error between a failing split and a valid one: each gets its own', async () => {
    heard.length = 0;
    device.pushErrorScope('validation');
    const bad = settle(A.split(callerTensor(foreign, x), { axis: 1, parts: 2 }));
    appError();
    const good = goodSplits();
    const scope = await device.popErrorScope();
    expect(describeOutcome(await bad)).toBe('GPU_ERROR');
    expect(
      ((await bad) as { message: string }).message,
      'the split names its own error, not the application',
    ).not.toMatch(/usage/i);
    expect(scope?.message, 'the application gets its own error, not the split').toMatch(/usage/i);
    await expectAllExact(good);
    expect(heard).toEqual([]);
  });

  test("the application's buffer past maxBufferSize, inside its own validation and out-of-memory scopes, rejects no Cleave call", async () => {
    heard.length = 0;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const during = goodSplits();
    device.createBuffer({ size: device.limits.maxBufferSize + 4, usage: TENSOR_USAGE });
    const validation = await device.popErrorScope();
    await device.popErrorScope();
    expect(validation?.message ?? 'none').not.toBe('none');
    await expectAllExact(during);
    await expectAllExact(goodSplits());
  });
});

describe("encodeSplit records into the caller's encoder", () => {
  test("a buffer of another device: the call resolves, the GPU error is the caller's (its scope); Cleave goes on exactly", async () => {
    heard.length = 0;
    device.pushErrorScope('validation');
    const enc = device.createCommandEncoder();
    const o = await settle(
      (() => {
        const outs = A.encodeSplit(enc, callerTensor(foreign, x), { axis: 1, parts: 2 });
        device.queue.submit([enc.finish()]);
        return outs;
      })(),
    );
    const scope = await device.popErrorScope();
    // Recording cannot see the foreign buffer (Dawn checks it at bind group creation, inside the
    // caller's encoder): the call resolves, and the GPU error lands in the caller's scope alone.
    expect(describeOutcome(o)).toBe('resolved (silent acceptance)');
    expect(scope?.message ?? 'none', "the caller's scope holds the error").toMatch(
      /associated with .* cannot be used with/s,
    );
    const outs = (o as { value: GpuTensor[] }).value;
    expect(outs.map((t) => [t.dtype, t.shape.join(), t.byteLength])).toEqual([
      [x.dtype, [x.shape[0], x.shape[1]! / 2].join(), x.data.byteLength / 2],
      [x.dtype, [x.shape[0], x.shape[1]! / 2].join(), x.data.byteLength / 2],
    ]);
    for (const t of outs) A.release(t);
    await expectAllExact(goodSplits());
    expect(heard).toEqual([]);
  });
});

describe("a caller's buffer split before (steady state): the split resolves before its GPU errors are known", () => {
  const cases = [
    ['gather', { axis: 1, sizes: [1, 63] }],
    ['copies', { axis: 0, parts: 4 }],
    ['separate', { axis: 1, parts: 2, layout: 'separate' }],
  ] as const;
  const parts = (o: (typeof cases)[number][1]) =>
    'sizes' in o ? o.sizes : Array<number>(o.parts).fill(x.shape[o.axis]! / o.parts);

  /** Splits `t` on `e`, checks the outputs exactly and releases them. */
  async function exactSplit(e: SplitEngine, t: GpuTensor, options: (typeof cases)[number][1]): Promise<void> {
    const outs = await e.split(t, options);
    expect(splitProblem(await downloadAll(e, outs), x, options.axis, parts(options))).toBeUndefined();
    for (const o of outs) e.release(o);
  }

  /** Runs `fn` on a fresh engine on `device`, destroyed after. */
  async function withEngine(fn: (e: SplitEngine) => Promise<void>, options: SplitEngineOptions = {}): Promise<void> {
    const e = await createSplitEngine({ ...options, device });
    try {
      await fn(e);
    } finally {
      e.destroy();
    }
  }

  /** The engine's first late error, once it arrives. */
  async function lateOf(e: SplitEngine): Promise<SplitError> {
    await vi.waitFor(() => expect(e.lateErrors.length).toBeGreaterThan(0), { timeout: 10_000, interval: 2 });
    return e.lateErrors[0]!;
  }

  test('destroyed after its first split: the next split resolves, its outputs are refused with the GPU error, the engine refuses calls until acknowledge()', async () => {
    await withEngine(async (C) => {
      for (const [name, options] of cases) {
        heard.length = 0;
        device.pushErrorScope('validation'); // the application's own scope, open around it all
        const t = callerTensor(device, x);
        await exactSplit(C, t, options); // first split of this buffer: waits for its scopes
        await exactSplit(C, t, options); // seen before: resolves at once, exact
        const before = goodSplits();
        t.buffer.destroy();
        const outs = await C.split(t, options); // resolves: its GPU error is not known yet
        expect(
          outs.map((o) => o.shape[options.axis]),
          name,
        ).toEqual(parts(options));
        const after = goodSplits();
        const error = await lateOf(C);
        expect(error).toBeInstanceOf(SplitError);
        expect([error.code, error.subject], name).toEqual(['GPU_ERROR', undefined]);
        expect(error.message, name).toMatch(/^split: after it resolved, the GPU refused this call's commands: /);
        expect(error.message, name).toMatch(/destroyed/i);
        expect(C.lateErrors, name).toEqual([error]);

        // Its outputs never held the split: every use of them, or of a copy, on any engine, is refused.
        const refusedAs = (what: string) => ({
          code: 'GPU_ERROR',
          message: `${what}: this tensor's split failed on the GPU after it resolved: ${error.message}`,
        });
        for (const o of outs) {
          await expect(B.download(o), name).rejects.toMatchObject(refusedAs('download'));
          await expect(B.download({ ...o }), name).rejects.toMatchObject(refusedAs('download'));
          await expect(B.split(o, { axis: 0, parts: 1 }), name).rejects.toMatchObject(refusedAs('split'));
          expect(() => B.encodeSplit(device.createCommandEncoder(), o, { axis: 0, parts: 1 }), name).toThrow(
            expect.objectContaining(refusedAs('encodeSplit')),
          );
          if (o.byteOffset === 0)
            expect(() => toOrtTensor(ORT_LIKE, o), name).toThrow(expect.objectContaining(refusedAs('toOrtTensor')));
        }
        // A tensor made by hand over the same buffer reads the same stale bytes: refused too.
        const byHand = { dtype: 'uint8', shape: [4], buffer: outs[0]!.buffer, byteOffset: 0, byteLength: 4 } as const;
        await expect(B.download(byHand as GpuTensor), name).rejects.toMatchObject(refusedAs('download'));

        // The engine refuses every call but release until the error is acknowledged.
        const refusing = {
          code: 'GPU_ERROR',
          subject: { kind: 'engine', name: 'engine' },
          message: expect.stringMatching(
            /^\w+: refused until engine\.acknowledge\(\): split: after it resolved, the GPU refused/,
          ),
        };
        await expect(C.split(y, { axis: 1, sizes: [3, 7] })).rejects.toMatchObject(refusing);
        await expect(
          C.run({ op: 'Split', opset: 18, inputs: [y], attrs: { axis: 1, num_outputs: 2 } }),
        ).rejects.toMatchObject(refusing);
        expect(() => C.upload(x)).toThrow(expect.objectContaining(refusing));
        const gx = B.upload(x);
        await expect(C.download(gx)).rejects.toMatchObject(refusing);
        expect(() => C.encodeSplit(device.createCommandEncoder(), gx, { axis: 1, parts: 2 })).toThrow(
          expect.objectContaining(refusing),
        );
        B.release(gx);
        for (const o of outs) C.release(o); // release works
        await expect(B.download(outs[0]!)).rejects.toMatchObject({ code: 'RELEASED' });
        expect(C.acknowledge()).toEqual([error]);
        expect(C.lateErrors).toEqual([]);

        // The destroyed buffer is forgotten: its next split waits for its scopes and rejects.
        const again = await settle(C.split(t, options));
        expect(describeOutcome(again), name).toBe('GPU_ERROR');
        expect((again as { message: string }).message, name).toMatch(/^split: the GPU refused/);
        expect(C.lateErrors).toEqual([]);
        // The engine goes on exactly, its pool's buffers (the failed outputs' among them) included.
        await exactSplit(C, callerTensor(device, x), options);
        await expectAllExact(before);
        await expectAllExact(after);
        const appScope = await device.popErrorScope();
        expect(appScope?.message ?? null, "Cleave's GPU error reached the application's error scope").toBeNull();
        await device.queue.onSubmittedWorkDone();
        await new Promise((r) => setTimeout(r, 20));
        expect(heard, "Cleave's GPU error reached the application's uncapturederror listener").toEqual([]);
      }
    });
  });

  test('with onLateError: the callback hears each late error once, the outputs are refused, the engine goes on', async () => {
    const got: SplitError[] = [];
    await withEngine(
      async (D) => {
        const t = callerTensor(device, x);
        await exactSplit(D, t, cases[0][1]);
        t.buffer.destroy();
        const outs = await D.split(t, cases[0][1]);
        await vi.waitFor(() => expect(got).toHaveLength(1), { timeout: 10_000, interval: 2 });
        expect(got[0]!.code).toBe('GPU_ERROR');
        expect(D.lateErrors).toEqual([]);
        await expect(D.download(outs[0]!)).rejects.toMatchObject({
          code: 'GPU_ERROR',
          message: `download: this tensor's split failed on the GPU after it resolved: ${got[0]!.message}`,
        });
        for (const o of outs) D.release(o);
        await exactSplit(D, callerTensor(device, x), cases[0][1]);
        expect(got).toHaveLength(1);
      },
      { onLateError: (e) => got.push(e) },
    );
  });

  test('a buffer of another device is never seen: every split of it waits and rejects', async () => {
    await withEngine(async (C) => {
      const t = callerTensor(foreign, x);
      for (let i = 0; i < 3; i++) {
        await expect(C.split(t, cases[0][1])).rejects.toMatchObject({ code: 'GPU_ERROR', message: /^split: the GPU/ });
        await exactSplit(C, callerTensor(device, x), cases[0][1]); // a valid control between them
      }
      expect(C.lateErrors).toEqual([]);
    });
  });

  test('a seen buffer, destroyed, split into outputs the pool holds no buffers for: it waits and rejects', async () => {
    await withEngine(async (C) => {
      const t = callerTensor(device, x);
      await exactSplit(C, t, cases[0][1]);
      t.buffer.destroy();
      await expect(C.split(t, { axis: 1, parts: 8 })).rejects.toMatchObject({
        code: 'GPU_ERROR',
        message: /^split: the GPU/,
      });
      expect(C.lateErrors).toEqual([]);
      await exactSplit(C, callerTensor(device, x), cases[0][1]);
    });
  });
});
