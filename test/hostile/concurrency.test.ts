// What held before still holds under pressure: many splits in flight at once (host, GPU-resident,
// run, encodeSplit, layout 'separate'; one engine, and two engines sharing a device), with bad
// calls among them; and device loss: calls waiting on the GPU and every later call reject
// DEVICE_LOST, none resolves with wrong bytes, nothing hangs.

import { describe, expect, test } from 'vitest';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  createSplitEngine,
} from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { gpuTest } from '../helpers/gpu.js';
import { roundTripProblem, splitProblem } from './controls.js';
import { downloadAll } from '../helpers/download.js';
import { dtypesFor } from './node-faults.js';
import { type Outcome, describeOutcome, outcomeOf } from './harness.js';
import { chunks, validOptions } from './option-faults.js';
import { type Base, GPU_DTYPES, HOST_DTYPES, type Rng, base, pick } from './tensors.js';
import { type RefDType, numel, refByteLength } from '../helpers/dtypes.js';

const settle = (p: unknown) => outcomeOf(() => p, 15_000);

interface Job {
  readonly name: string;
  readonly p: Promise<unknown>;
  readonly check: (v: unknown) => Promise<string | undefined>;
  /** What can be checked without the device (after its loss): everything for host results, the tensors' form for GPU ones. */
  readonly offline: (v: unknown) => string | undefined;
}

/** GPU outputs' form against the split: count, dtype, shape and byteLength (from the tests' own widths). */
function formProblem(v: unknown, b: Base, sizes: readonly number[]): string | undefined {
  const outs = v as GpuTensor[];
  if (!Array.isArray(outs) || outs.length !== sizes.length) return `not ${sizes.length} GPU tensors`;
  for (const [i, o] of outs.entries()) {
    const shape = b.shape.map((d, k) => (k === b.axis ? sizes[i]! : d));
    const want = { dtype: b.dtype, shape: shape.join(), byteLength: refByteLength(b.dtype as RefDType, numel(shape)) };
    const got = { dtype: o.dtype, shape: o.shape.join(), byteLength: o.byteLength };
    if (JSON.stringify(got) !== JSON.stringify(want))
      return `output ${i} is ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  }
  return undefined;
}

/** A valid split of a random kind on `e`, started now; `check` compares it with the reference (and releases what it made). */
function job(e: SplitEngine, device: GPUDevice, r: Rng, i: number): Job {
  const kind = pick(r, ['host', 'resident', 'separate', 'run', 'encode', 'download'] as const);
  const b = base(r, kind === 'host' ? HOST_DTYPES : kind === 'run' ? dtypesFor('Split-18') : GPU_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const name = `#${i} ${kind} ${b.dtype} [${b.shape.join(', ')}] ${JSON.stringify(options)}`;
  const resident = (outsP: Promise<unknown>, gx: GpuTensor): Job => ({
    name,
    p: outsP,
    offline: (v) => formProblem(v, b, sizes),
    check: async (v) => {
      const problem = splitProblem(await downloadAll(e, v as GpuTensor[]), b.host, b.axis, sizes);
      for (const t of [...(v as GpuTensor[]), gx]) e.release(t);
      return problem;
    },
  });
  switch (kind) {
    case 'host':
      return {
        name,
        p: e.split(b.host, options as never),
        check: async (v) => splitProblem(v, b.host, b.axis, sizes),
        offline: (v) => splitProblem(v, b.host, b.axis, sizes),
      };
    case 'run': {
      const n = b.shape[b.axis]! + 1;
      return {
        name,
        p: e.run({ op: 'Split', opset: 18, inputs: [b.host], attrs: { axis: b.axis, num_outputs: n } }),
        check: async (v) => splitProblem(v, b.host, b.axis, chunks(b.shape[b.axis]!, n)),
        offline: (v) => splitProblem(v, b.host, b.axis, chunks(b.shape[b.axis]!, n)),
      };
    }
    case 'download': {
      const gx = e.upload(b.host as HostTensor<FixedDType>);
      return {
        name,
        p: e.download(gx),
        check: async (v) => {
          e.release(gx);
          return roundTripProblem(v as HostTensor, b.host);
        },
        offline: (v) => roundTripProblem(v as HostTensor, b.host),
      };
    }
    case 'encode': {
      const gx = e.upload(b.host as HostTensor<FixedDType>);
      const enc = device.createCommandEncoder();
      const outs = e.encodeSplit(enc, gx, options as never);
      device.queue.submit([enc.finish()]);
      return resident(Promise.resolve(outs), gx);
    }
    default: {
      const gx = e.upload(b.host as HostTensor<FixedDType>);
      return resident(e.split(gx, { ...options, ...(kind === 'separate' && { layout: 'separate' }) } as never), gx);
    }
  }
}

async function expectExact(jobs: readonly Job[]): Promise<void> {
  const outcomes = await Promise.all(jobs.map((j) => settle(j.p)));
  const problems: string[] = [];
  for (const [i, o] of outcomes.entries()) {
    const j = jobs[i]!;
    if (o.kind !== 'resolved')
      problems.push(`${j.name}: ${describeOutcome(o)} ${o.kind === 'error' || o.kind === 'foreign' ? o.message : ''}`);
    else {
      const p = await j.check(o.value);
      if (p) problems.push(`${j.name}: ${p}`);
    }
  }
  expect(problems).toEqual([]);
}

describe('concurrency', () => {
  gpuTest('96 splits of every kind in flight at once on one engine, all exact', async (g) => {
    const e = await g.engine();
    const r = rng(31);
    await expectExact(Array.from({ length: 96 }, (_, i) => job(e, g.device, r, i)));
  });

  gpuTest(
    'two engines sharing a device, 48 splits each, interleaved, with bad calls among them: exact, and only the bad ones fail',
    async (g) => {
      const [A, B] = [await g.engine(), await g.engine()];
      const r = rng(32);
      const jobs: Job[] = [];
      const bad: Promise<Outcome>[] = [];
      for (let i = 0; i < 96; i++) {
        jobs.push(job(i % 2 ? B : A, g.device, r, i));
        if (i % 8 === 0) bad.push(settle((i % 16 ? A : B).split(base(r).host, { axis: 7, parts: 2 })));
      }
      await expectExact(jobs);
      for (const o of await Promise.all(bad)) expect(describeOutcome(o)).toBe('AXIS_RANGE');
    },
  );

  gpuTest(
    'one GPU input split 32 ways at once (aliases and copies), downloaded at once, released in any order',
    async (g) => {
      const e = await g.engine();
      const x = randomTensor('float32', [16, 64], rng(33)) as HostTensor<'float32'>;
      const gx = e.upload(x);
      const runs = Array.from({ length: 32 }, (_, i) => ({
        axis: i % 2,
        parts: 1 + (i % 5),
        alias: pick(rng(i), ['owned', 'any', 'none'] as const),
      }));
      const outs = await Promise.all(runs.map((o) => e.split(gx, o)));
      e.release(gx);
      const back = await Promise.all(outs.map((o) => downloadAll(e, o)));
      for (const [i, o] of runs.entries()) {
        const dim = x.shape[o.axis]!;
        expect(splitProblem(back[i], x, o.axis, chunks(dim, o.parts)), JSON.stringify(o)).toBeUndefined();
      }
      for (const o of outs.reverse()) for (const t of o) e.release(t);
    },
  );
});

describe('destroy with calls in flight', () => {
  test('splits, downloads and runs in flight when the engine is destroyed: each rejects RELEASED, none hangs; the device lives on', async () => {
    const found = await acquireDevice();
    if ('reason' in found) throw new Error(found.reason);
    const device = found.device;
    const [e, other] = [await createSplitEngine({ device }), await createSplitEngine({ device })];
    const r = rng(35);
    const x = randomTensor('float32', [8, 32], r) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const calls = [
      e.split(x, { axis: 1, parts: 3 }),
      e.split(gx, { axis: 1, sizes: [5, 27] }),
      e.download(gx),
      e.run({ op: 'Split', opset: 18, inputs: [x], attrs: { axis: 1, num_outputs: 2 } }),
    ];
    e.destroy();
    for (const o of await Promise.all(calls.map(settle))) expect(describeOutcome(o)).toBe('RELEASED');
    await expectExact([job(other, device, r, 0), job(other, device, r, 1)]);
    other.destroy();
    device.destroy();
  });
});

describe('device loss', () => {
  test('calls waiting on the GPU at the loss reject DEVICE_LOST; every later call rejects DEVICE_LOST on both engines; nothing hangs', async () => {
    const found = await acquireDevice();
    if ('reason' in found) throw new Error(found.reason);
    const device = found.device;
    const [A, B] = [await createSplitEngine({ device }), await createSplitEngine({ device })];
    const r = rng(34);
    const inFlight = Array.from({ length: 24 }, (_, i) => job(i % 2 ? B : A, device, r, i));
    const live = A.upload(randomTensor('int32', [4, 4], r) as HostTensor<'int32'>);
    device.destroy();
    const outcomes = await Promise.all(inFlight.map((j) => settle(j.p)));
    // Calls whose work was done at the call (encodeSplit, CPU-path splits, aliases) may resolve; a
    // call still waiting on the GPU rejects DEVICE_LOST. A resolved host result must be exact; a
    // resolved GPU one, whose bytes the lost device can no longer give, must have the right form.
    const problems: string[] = [];
    for (const [i, o] of outcomes.entries()) {
      const j = inFlight[i]!;
      if (o.kind === 'error' && o.code === 'DEVICE_LOST') continue;
      if (o.kind !== 'resolved')
        problems.push(
          `${j.name}: ${describeOutcome(o)} ${o.kind === 'error' || o.kind === 'foreign' ? o.message.split('\n')[0] : ''}`,
        );
      else if (/ (host|download) /.test(j.name) && !/complex|string/.test(j.name))
        problems.push(`${j.name}: resolved, though its readback needed the lost device`);
      else {
        const p = j.offline(o.value);
        if (p) problems.push(`${j.name}: resolved, but ${p}`);
      }
    }
    expect(problems, 'calls in flight at the loss').toEqual([]);
    await device.lost;
    const x = randomTensor('float32', [2, 8], r) as HostTensor<'float32'>;
    for (const e of [A, B]) {
      const calls: [string, () => unknown][] = [
        ['split (host)', () => e.split(x, { axis: 1, parts: 2 })],
        ['split (string, a CPU path)', () => e.split({ dtype: 'string', shape: [2], data: ['a', 'b'] }, { parts: 2 })],
        ['split (GPU)', () => e.split(live, { axis: 1, parts: 2 })],
        ['upload', () => e.upload(x)],
        ['download', () => e.download(live)],
        ['run', () => e.run({ op: 'Split', opset: 18, inputs: [x], attrs: { axis: 1, num_outputs: 2 } })],
        ['encodeSplit', () => e.encodeSplit(device.createCommandEncoder(), live, { axis: 1, parts: 2 })],
      ];
      for (const [name, call] of calls)
        expect(describeOutcome(await outcomeOf(call, 10_000)), name).toBe('DEVICE_LOST');
    }
    expect(() => A.release(live)).not.toThrow();
    const late = await outcomeOf(async () => {
      const e = await createSplitEngine({ device });
      return e.split(x, { axis: 1, parts: 2 });
    }, 10_000);
    expect(describeOutcome(late), 'an engine made on the lost device').toBe('DEVICE_LOST');
    expect(() => {
      A.destroy();
      B.destroy();
    }).not.toThrow();
  });
});
