// A prepared split over time: the options object, its arrays and its destinations changed after prepare (prepare
// read them once); a prepared split used after its input, a prepared destination or its engine went away (RELEASED,
// nothing written); outputs used before the split that made them is known to have failed on the GPU (they share the
// failure, whichever of split and a prepared split made or used them). The blame of a prepared split's own late GPU
// error (a caller's buffer destroyed after it was seen) is in prepared-blame.test.ts.

import { describe, expect } from 'vitest';
import {
  type GpuTensor,
  type HostTensor,
  type Into,
  type SplitEngine,
  SplitError,
  createSplitEngine,
  tensor,
} from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, noise, scatter } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { splitProblem } from './controls.js';
import { describeOutcome, outcomeOf } from './harness.js';
import { changingGetter } from './values.js';

const settle = (call: () => unknown) => outcomeOf(call, 10_000).then(describeOutcome);

/** The code a call gives, or how it ended otherwise. */
const codeOf = (call: () => unknown) => settle(call);

/** The outputs' bytes against the reference split; releases them. */
async function exact(e: SplitEngine, outs: GpuTensor[], x: HostTensor, axis: number, sizes: number[]) {
  const problem = splitProblem(await downloadAll(e, outs), x, axis, sizes);
  for (const o of outs) e.release(o);
  return problem;
}

/** Prepared twice from one options object (once from a spread copy), which is then changed everywhere. */
async function optionsChangedAfterPrepare(g: GpuFixture): Promise<void> {
  const e = await g.engine();
  const next = rng(41);
  const cache = noise(256, next);
  const [buffer, other] = [bufferOf(g.device, cache), bufferOf(g.device, noise(256, next))];
  const otherBefore = await readBuffer(g.device, other);
  const dest: { -readonly [K in keyof Into<'float32'>]: Into<'float32'>[K] } = {
    dtype: 'float32',
    shape: [4, 2],
    buffer,
    byteOffset: 16,
    strides: [6, 1],
  };
  const options = { axis: 1, sizes: [2, 4], into: [dest, undefined] as (Into<'float32'> | undefined)[] };
  const x0 = e.upload(randomTensor('float32', [4, 6], next) as HostTensor<'float32'>);
  const p = e.prepare(x0, { ...options, alias: 'none' as const });
  const prepared = e.prepare(x0, options); // the same object, changed below
  options.sizes.reverse();
  options.sizes.push(1);
  options.axis = 0;
  options.into[1] = { ...dest, shape: [4, 4] };
  options.into.reverse();
  Object.assign(dest, { byteOffset: 128, buffer: other, strides: [9, 2], shape: [4, 4] });
  Object.assign(options, { parts: 3, layout: 'separate', alias: 'any', into: 'junk' });
  let image: Uint8Array = cache;
  for (const [name, q] of [
    ['options spread into a new object (its arrays shared)', p],
    ['the options object itself', prepared],
  ] as const) {
    const x = randomTensor('float32', [4, 6], next) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const outs = await q.split(gx);
    const ref = referenceSplit(x, 1, [2, 4]) as Uint8Array[];
    image = scatter(image, ref[0]!, 'float32', [4, 2], 16, [6, 1]);
    expect(firstMismatch(await readBuffer(g.device, buffer), image), name).toBeUndefined();
    expect([outs[0]!.buffer === buffer, outs[0]!.byteOffset, outs[0]!.strides], name).toEqual([true, 16, [6, 1]]);
    expect(outs[1]!.buffer === gx.buffer, `${name}: no view (alias as prepared)`).toBe(false);
    const [second] = await downloadAll(e, outs.slice(1));
    expect(firstMismatch(bitsOf(second!), ref[1]!), name).toBeUndefined();
    for (const t of [...outs, gx]) e.release(t);
  }
  expect(firstMismatch(await readBuffer(g.device, other), otherBefore), 'nothing written elsewhere').toBeUndefined();
  for (const b of [buffer, other]) b.destroy();
  e.release(x0);
}

/** A prepared destination released, then the input: each call refused, nothing written. */
async function releasedThenCalled(g: GpuFixture): Promise<void> {
  const e = await g.engine();
  const x = randomTensor('float32', [2, 8], rng(44)) as HostTensor<'float32'>;
  const gx = e.upload(x);
  const gw = e.upload(randomTensor('float32', [2, 12], rng(45)) as HostTensor<'float32'>);
  const [d, rest] = await e.split(gw, { axis: 1, sizes: [4, 8], layout: 'separate' });
  const p = e.prepare(gx, { axis: 1, sizes: [4, 4], into: [d, undefined] });
  const cache = bufferOf(g.device, noise(64, rng(46)));
  const before = await readBuffer(g.device, cache);
  const mine = [{ dtype: 'float32', shape: [2, 4], buffer: cache, byteOffset: 0 } as const, undefined];
  const q = e.prepare(gx, { axis: 1, sizes: [4, 4], into: mine });
  e.release(d);
  const enc = g.device.createCommandEncoder();
  expect(await codeOf(() => p.split(gx)), 'split, a prepared destination released').toBe('RELEASED');
  expect(await codeOf(() => p.encode(enc, gx)), 'encode, a prepared destination released').toBe('RELEASED');
  const other = bufferOf(g.device, new Uint8Array(64));
  const into = [{ dtype: 'float32', shape: [2, 4], buffer: other, byteOffset: 0 } as const, undefined];
  const outs = await p.split(gx, into);
  expect(outs[0]!.buffer).toBe(other);
  expect(await exact(e, outs, x, 1, [4, 4]), 'into given at the call').toBeUndefined();
  e.release(gx);
  for (const [name, call] of [
    ['split', () => q.split(gx)],
    ['encode', () => q.encode(enc, gx)],
    ['split, its own into', () => q.split(gx, into)],
    ['split, a prepared destination released too', () => p.split(gx)],
  ] as const)
    expect(await codeOf(call), `input released: ${name}`).toBe('RELEASED');
  g.device.queue.submit([enc.finish()]); // nothing was recorded
  expect(firstMismatch(await readBuffer(g.device, cache), before), 'nothing written').toBeUndefined();
  for (const t of [rest, gw]) e.release(t);
  for (const b of [cache, other]) b.destroy();
}

describe('prepare reads its options once', () => {
  gpuTest(
    'the options object, its sizes and into arrays, and a destination object changed after prepare: nothing changes',
    optionsChangedAfterPrepare,
  );

  gpuTest('options getters that change after their first read: the split is of the first values', async (g) => {
    for (const e of [await g.engine(), await createSplitEngine({ backend: 'cpu' })]) {
      const x = randomTensor('int32', [3, 4], rng(42)) as HostTensor<'int32'>;
      const options = changingGetter(changingGetter({}, 'axis', [1, 0, 'x']), 'sizes', [[1, 3], [3], null]);
      const p = e.prepare(x, options as never);
      for (let call = 0; call < 2; call++) {
        const y = randomTensor('int32', [3, 4], rng(43 + call)) as HostTensor<'int32'>;
        expect(splitProblem(await p.split(y), y, 1, [1, 3]), `${e.backend}, call ${call}`).toBeUndefined();
      }
    }
  });
});

describe('a prepared split after what it was prepared with went away', () => {
  gpuTest(
    'a prepared destination released, then its input: RELEASED, nothing written; a call with its own into goes on',
    releasedThenCalled,
  );

  gpuTest('engine.destroy(): its prepared splits are RELEASED, for any tensor; their outputs are too', async (g) => {
    const [e, other] = [await g.engine(), await g.engine()];
    const x = tensor(
      'float32',
      Float32Array.from({ length: 8 }, (_, i) => i),
      [2, 4],
    );
    const gx = e.upload(x);
    const mine = other.upload(x);
    const [p, h] = [e.prepare(gx, { axis: 1, parts: 2 }), e.prepare(x, { axis: 1, parts: 2 })];
    const outs = await p.split(mine);
    e.destroy();
    const destroyed = (what: string) => ({ code: 'RELEASED', message: `${what}: this engine was destroyed` });
    await expect(p.split(gx)).rejects.toMatchObject(destroyed('prepared split'));
    await expect(p.split(mine), "another engine's tensor").rejects.toMatchObject(destroyed('prepared split'));
    await expect(h.split(x), 'a host prepared split').rejects.toMatchObject(destroyed('prepared split'));
    expect(() => p.encode(g.device.createCommandEncoder(), mine)).toThrow(
      expect.objectContaining(destroyed('prepared encode')),
    );
    await expect(p.split(null as never), 'junk arguments too').rejects.toMatchObject({ code: 'RELEASED' });
    for (const o of outs) await expect(other.download(o)).rejects.toMatchObject({ code: 'RELEASED' });
    expect(e.stats.liveBuffers).toBe(0);
    const control = await other.prepare(mine, { axis: 1, parts: 2 }).split(mine);
    expect(await exact(other, control, x, 1, [2, 2])).toBeUndefined();
    other.release(mine);
  });
});

describe('outputs used before the split that made them is known to have failed on the GPU', () => {
  gpuTest(
    "a prepared split of a caller's buffer seen, then destroyed: its outputs, used at once, share its failure",
    async (g) => {
      const late: SplitError[] = [];
      const e = await g.engine({ onLateError: (error) => late.push(error) });
      const e2 = await g.engine();
      const x = randomTensor('float32', [4, 64], rng(46)) as HostTensor<'float32'>;
      const buffer = bufferOf(g.device, bitsOf(x) as Uint8Array);
      const t = { dtype: 'float32', shape: [4, 64], buffer, byteOffset: 0, byteLength: x.data.byteLength } as const;
      const p = e.prepare(t, { axis: 1, sizes: [1, 63] });
      expect(await exact(e, await p.split(t), x, 1, [1, 63]), 'first split: waits for its scopes').toBeUndefined();
      buffer.destroy();
      g.device.pushErrorScope('validation'); // the destroyed buffer's error is the split's, not the test's
      const outs = await p.split(t); // resolves before its GPU error is known
      await g.device.popErrorScope();
      // Used at once, by prepared splits (prepared on a live tensor of outs[1]'s form) and by split:
      const form = e2.upload(randomTensor('float32', [4, 63], rng(47)) as HostTensor<'float32'>);
      const [q, q2] = [e.prepare(form, { axis: 0, parts: 2 }), e2.prepare(form, { axis: 0, parts: 2 })];
      const derived = [q.split(outs[1]!), q2.split(outs[1]!), e.split(outs[1]!, { axis: 0, parts: 1 })];
      const enc = g.device.createCommandEncoder();
      const encoded = q.encode(enc, outs[1]!);
      g.device.queue.submit([enc.finish()]);
      const stale = {
        code: 'GPU_ERROR',
        message: expect.stringMatching(
          /^[\w ]+: this tensor's split failed on the GPU after it resolved: prepared split: after it resolved, /,
        ),
      };
      await expect(e.download(outs[0]!), 'the download waits for the split it reads').rejects.toMatchObject(stale);
      expect(late.map((l) => l.code)).toEqual(['GPU_ERROR']);
      const all = [...(await Promise.all(derived)).flat(), ...encoded];
      expect(all).toHaveLength(7);
      for (const o of all) await expect(e2.download(o)).rejects.toMatchObject(stale);
      await expect(q.split(outs[1]!), 'a prepared split of it, now').rejects.toMatchObject(stale);
      expect(late).toHaveLength(1);
      for (const o of [...all, ...outs, form]) e.release(o);
      const y = randomTensor('float32', [4, 63], rng(48)) as HostTensor<'float32'>;
      const gy = e2.upload(y);
      expect(await exact(e2, await q2.split(gy), y, 0, [2, 2]), 'a control').toBeUndefined();
      e2.release(gy);
    },
  );
});

// prepare refuses what split refuses for the same arguments (api.ts: it throws "the codes of `split` for these
// arguments"), rather than return a prepared split that fails at every call.
describe('prepare refuses what split refuses for the same arguments', () => {
  gpuTest('a GPU tensor on a CPU engine: WRONG_BACKEND at prepare, as split gives', async (g) => {
    const e = await g.engine();
    const cpu = await createSplitEngine({ backend: 'cpu' });
    const gx = e.upload(tensor('float32', new Float32Array(8), [8]));
    expect(await codeOf(() => cpu.split(gx, { parts: 2 })), 'split').toBe('WRONG_BACKEND');
    expect(await codeOf(() => cpu.prepare(gx, { parts: 2 })), 'prepare').toBe('WRONG_BACKEND');
    e.release(gx);
  });

  gpuTest('a released tensor, or a copy of one: RELEASED at prepare, as split gives', async (g) => {
    const e = await g.engine();
    const gx = e.upload(tensor('float32', new Float32Array(8), [8]));
    e.release(gx);
    for (const [name, t] of [
      ['the released tensor', gx],
      ['a spread copy of it', { ...gx }],
    ] as const) {
      expect(await codeOf(() => e.split(t, { parts: 2 })), `split: ${name}`).toBe('RELEASED');
      expect(await codeOf(() => e.prepare(t, { parts: 2 })), `prepare: ${name}`).toBe('RELEASED');
    }
  });
});
