// Blame for a prepared split, as blame.test.ts holds it for split: a prepared split of a caller's buffer (its input, or
// a prepared destination) seen before, then destroyed, resolves before its GPU error is known; its outputs are then
// refused with that error on every engine, its engine refuses calls (prepared ones included) until acknowledge(), the
// buffer's next prepared split waits and rejects, and nothing reaches the application's error scope or listener. A
// destination in the input's buffer is refused on the CPU, as split refuses it. These tests provoke GPU errors on
// purpose, so they hold their own device instead of gpuTest's scoped fixture.

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  type GpuTensor,
  type HostTensor,
  type Into,
  type PreparedSplit,
  type SplitEngine,
  SplitError,
  createSplitEngine,
} from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { bufferOf } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { bitsOf, firstMismatch } from '../helpers/reference.js';
import { splitProblem } from './controls.js';
import { describeOutcome, outcomeOf } from './harness.js';

let device: GPUDevice;
let B: SplitEngine;
/** What the application's 'uncapturederror' listener heard. */
const heard: string[] = [];

beforeAll(async () => {
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(found.reason);
  device = found.device;
  device.addEventListener('uncapturederror', (ev) =>
    heard.push((ev as GPUUncapturedErrorEvent).error.message.split('\n')[0]!),
  );
  B = await createSplitEngine({ device });
});

afterAll(() => {
  B?.destroy();
  device?.destroy();
});

const x = randomTensor('float32', [4, 64], rng(51)) as HostTensor<'float32'>;

/** `x`'s bytes in a buffer the caller owns. */
function callerTensor(): GpuTensor<'float32'> {
  const buffer = bufferOf(device, bitsOf(x) as Uint8Array);
  return { dtype: 'float32', shape: [4, 64], buffer, byteOffset: 0, byteLength: x.data.byteLength };
}

/** Runs `fn` on a fresh engine, destroyed after, inside the application's own validation scope (which stays empty). */
async function withEngine(fn: (e: SplitEngine) => Promise<void>): Promise<void> {
  heard.length = 0;
  const e = await createSplitEngine({ device });
  device.pushErrorScope('validation');
  try {
    await fn(e);
  } finally {
    e.destroy();
  }
  const appScope = await device.popErrorScope();
  expect(appScope?.message ?? null, "Cleave's GPU error reached the application's error scope").toBeNull();
  await device.queue.onSubmittedWorkDone();
  await new Promise((r) => setTimeout(r, 20));
  expect(heard, "Cleave's GPU error reached the application's uncapturederror listener").toEqual([]);
}

/** The engine's first late error, once it arrives. */
async function lateOf(e: SplitEngine): Promise<SplitError> {
  await vi.waitFor(() => expect(e.lateErrors.length).toBeGreaterThan(0), { timeout: 10_000, interval: 2 });
  return e.lateErrors[0]!;
}

const cases = [
  ['gather', { axis: 1, sizes: [1, 63] }, [1, 63]],
  ['copies', { axis: 0, parts: 4 }, [1, 1, 1, 1]],
  ['separate', { axis: 1, parts: 2, layout: 'separate' }, [32, 32]],
] as const;

/** The outputs against the reference split of `x`; releases them. */
async function expectExact(e: SplitEngine, outs: GpuTensor[], axis: number, sizes: readonly number[], what: string) {
  expect(splitProblem(await downloadAll(e, outs), x, axis, sizes), what).toBeUndefined();
  for (const o of outs) e.release(o);
}

/** Every use of a late-failed split's outputs, on another engine and by prepared splits, is refused with its error. */
async function expectOutputsRefused(outs: GpuTensor<'float32'>[], error: SplitError, name: string): Promise<void> {
  const refusedAs = (what: string) => ({
    code: 'GPU_ERROR',
    message: `${what}: this tensor's split failed on the GPU after it resolved: ${error.message}`,
  });
  for (const o of outs) {
    await expect(B.download(o), name).rejects.toMatchObject(refusedAs('download'));
    await expect(B.download({ ...o }), name).rejects.toMatchObject(refusedAs('download'));
    await expect(B.split(o, { axis: 0, parts: 1 }), name).rejects.toMatchObject(refusedAs('split'));
    // A prepared split of B, prepared on a live tensor of the output's form.
    const form = B.upload(randomTensor('float32', o.shape, rng(52)) as HostTensor<'float32'>);
    const q = B.prepare(form, { axis: 0, parts: 1 });
    await expect(q.split(o), name).rejects.toMatchObject(refusedAs('prepared split'));
    expect(() => q.encode(device.createCommandEncoder(), o), name).toThrow(
      expect.objectContaining(refusedAs('prepared encode')),
    );
    B.release(form);
  }
}

/** The engine refuses its calls, prepared ones included, until the late error is acknowledged. */
async function expectEngineRefusing(C: SplitEngine, p: PreparedSplit<'float32'>, name: string): Promise<void> {
  const refusing = (what: string) => ({
    code: 'GPU_ERROR',
    subject: { kind: 'engine', name: 'engine' },
    message: expect.stringMatching(
      new RegExp(
        `^${what}: refused until engine\\.acknowledge\\(\\): prepared split: after it resolved, the GPU refused`,
      ),
    ),
  });
  const t = callerTensor();
  await expect(p.split(t), name).rejects.toMatchObject(refusing('prepared split'));
  expect(() => p.encode(device.createCommandEncoder(), t), name).toThrow(
    expect.objectContaining(refusing('prepared encode')),
  );
  expect(() => C.prepare(t, { parts: 2 }), name).toThrow(expect.objectContaining(refusing('prepare')));
  await expect(C.split(t, { parts: 2 }), name).rejects.toMatchObject(refusing('split'));
  t.buffer.destroy();
}

/** A prepared destination in a caller's buffer, seen, then destroyed: the split after resolves and fails late. */
async function destinationDestroyed(C: SplitEngine): Promise<void> {
  const gx = C.upload(x);
  const dest = (buffer: GPUBuffer): Into<'float32'> => ({
    dtype: 'float32',
    shape: [4, 63],
    buffer,
    byteOffset: 0,
  });
  const cache = bufferOf(device, new Uint8Array(4 * 63 * 4));
  const p = C.prepare(gx, { axis: 1, sizes: [1, 63], into: [undefined, dest(cache)] });
  for (let call = 0; call < 2; call++) for (const o of await p.split(gx)) C.release(o);
  cache.destroy();
  const outs = await p.split(gx);
  const error = await lateOf(C);
  expect(error.message).toMatch(/^prepared split: after it resolved, the GPU refused this call's commands: /);
  await expectOutputsRefused([outs[0]!], error, 'the output the engine placed');
  for (const o of outs) C.release(o);
  expect(C.acknowledge()).toEqual([error]);
  await expect(p.split(gx)).rejects.toMatchObject({
    code: 'GPU_ERROR',
    message: /^prepared split: the GPU refused/,
  });
  const mine = bufferOf(device, new Uint8Array(4 * 63 * 4));
  const moved = await p.split(gx, [undefined, dest(mine)]);
  const ref = bitsOf(x) as Uint8Array;
  const want = Uint8Array.from({ length: 4 * 63 * 4 }, (_, k) => ref[(Math.floor(k / 252) * 64 + 1) * 4 + (k % 252)]!);
  expect(firstMismatch(await readBuffer(device, mine), want), 'a control, into your buffer').toBeUndefined();
  const [first] = await downloadAll(C, [moved[0]!]);
  const want0 = Uint8Array.from({ length: 16 }, (_, k) => ref[Math.floor(k / 4) * 256 + (k % 4)]!);
  expect(firstMismatch(bitsOf(first!), want0), 'a control, the engine-placed output').toBeUndefined();
  for (const o of moved) C.release(o);
  C.release(gx);
  mine.destroy();
}

describe("a prepared split of a caller's buffer seen before, then destroyed", () => {
  test('its input: the split resolves, its outputs are refused, calls are refused until acknowledge()', async () => {
    for (const [name, options, sizes] of cases)
      await withEngine(async (C) => {
        const t = callerTensor();
        const p = C.prepare(t, options);
        await expectExact(C, await p.split(t), options.axis, sizes, `${name}: first split, waits for its scopes`);
        await expectExact(C, await p.split(t), options.axis, sizes, `${name}: seen before, resolves at once`);
        t.buffer.destroy();
        const outs = await p.split(t); // resolves: its GPU error is not known yet
        expect(
          outs.map((o) => o.shape[options.axis]),
          name,
        ).toEqual(sizes);
        const error = await lateOf(C);
        expect(error).toBeInstanceOf(SplitError);
        expect([error.code, error.subject], name).toEqual(['GPU_ERROR', undefined]);
        expect(error.message, name).toMatch(
          /^prepared split: after it resolved, the GPU refused this call's commands: /,
        );
        expect(error.message, name).toMatch(/destroyed/i);
        await expectOutputsRefused(outs, error, name);
        await expectEngineRefusing(C, p, name);
        for (const o of outs) C.release(o); // release works
        expect(C.acknowledge()).toEqual([error]);
        // The destroyed buffer is forgotten: its next split waits for its scopes and rejects.
        const again = await outcomeOf(() => p.split(t), 10_000);
        expect(describeOutcome(again), name).toBe('GPU_ERROR');
        expect((again as { message: string }).message, name).toMatch(/^prepared split: the GPU refused/);
        expect(C.lateErrors, name).toEqual([]);
        const control = await p.split(callerTensor());
        await expectExact(C, control, options.axis, sizes, `${name}: a control after`);
      });
  });

  test('a prepared destination: the split resolves, its other outputs are refused, the next one rejects', () =>
    withEngine(destinationDestroyed));
});

// A prepared call checks its prepared destinations against the tensor it is given: a tensor in a prepared
// destination's buffer is refused on the CPU, as engine.split refuses that destination (BAD_INPUT: 'the destination is
// in the input's buffer'), never handed to the GPU, which would refuse the commands (source and destination the same
// buffer).
describe('a prepared destination in the buffer of the tensor a call is given', () => {
  test('BAD_INPUT on the CPU, as split refuses it: nothing written, no late error, no GPU error anywhere', async () => {
    const got: Record<string, unknown> = {};
    const want: Record<string, unknown> = {};
    for (const input of ['a caller buffer', 'an engine upload'] as const)
      for (const call of ['split', 'encode'] as const) {
        got[`${call}, ${input}`] = await sameBuffer(input, call);
        want[`${call}, ${input}`] = { outcome: 'BAD_INPUT', late: [], app: null, written: false };
      }
    expect(got).toEqual(want);
  });
});

/** A prepared split into a buffer, then called on a tensor in that buffer: what came of it, on a fresh engine. */
async function sameBuffer(input: 'a caller buffer' | 'an engine upload', call: 'split' | 'encode') {
  heard.length = 0;
  const C = await createSplitEngine({ device });
  const gx = C.upload(x);
  const target = input === 'a caller buffer' ? callerTensor() : C.upload(x);
  const into: Into<'float32'> = { dtype: 'float32', shape: [4, 32], buffer: target.buffer, byteOffset: 0 };
  const p = C.prepare(gx, { axis: 1, parts: 2, into: [into, undefined] });
  for (const o of await p.split(gx)) C.release(o); // the buffer seen, the pool warm: a split needs no wait
  const before = await readBuffer(device, target.buffer);
  device.pushErrorScope('validation'); // the application's scope (the caller's encoder is submitted inside it)
  const enc = device.createCommandEncoder();
  const o = await outcomeOf(() => (call === 'split' ? p.split(target) : p.encode(enc, target)), 10_000);
  device.queue.submit([enc.finish()]);
  const app = await device.popErrorScope();
  await device.queue.onSubmittedWorkDone();
  await new Promise((r) => setTimeout(r, 20));
  const written = firstMismatch(await readBuffer(device, target.buffer), before) !== undefined;
  const late = C.lateErrors.map((e) => e.message.split('\n')[0]);
  const seen = [...(app ? [app.message.split('\n')[0]] : []), ...heard];
  C.destroy();
  if (input === 'a caller buffer') target.buffer.destroy();
  return { outcome: describeOutcome(o), late, app: seen.length ? seen : null, written };
}
