// One prepared split, many callers at once: splits of engine uploads and of caller buffers (at offsets that share its
// plan and offsets that need another), encodes into the callers' encoders and calls with their own destinations, all
// in flight together, every output exact, released in any order, and no buffer left over but the pool's free ones and
// the tile tables of the programs the engine's one plan cache keeps (KEPT_PROGRAMS). Then what concurrency.test.ts
// holds for split, for prepared calls: calls in flight when the engine is destroyed reject RELEASED, calls in flight
// at a device loss and every later one reject DEVICE_LOST, and none hangs; and a device lost before a prepared split's
// `ready` settles: ready rejects DEVICE_LOST.

import { describe, expect, test } from 'vitest';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type PreparedSplit,
  type SplitEngine,
  createSplitEngine,
} from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import type { Program } from '../../src/engine/program.js';
import { KEPT_PROGRAMS, type PlanCache } from '../../src/engine/plans.js';
import { int, randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, noise, scatter } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { type RefDType, numel, refByteLength } from '../helpers/dtypes.js';
import { gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { splitProblem } from './controls.js';
import { type Outcome, describeOutcome, outcomeOf } from './harness.js';
import { chunks } from './option-faults.js';
import { type Rng, pick } from './tensors.js';

const settle = (p: unknown): Promise<Outcome> => outcomeOf(() => p, 15_000);

/** A prepared split's case: the tensors it is prepared for, and how it splits them. */
interface Case {
  readonly dtype: FixedDType;
  readonly shape: number[];
  readonly axis: number;
  readonly sizes: number[];
}

/** A caller of the prepared split: its input's data, its outputs (once they come), and where they were meant to go. */
interface Caller {
  readonly name: string;
  readonly x: HostTensor;
  readonly outs: Promise<GpuTensor[]>;
  /** Its own destination for output `i`, if any: a buffer with random bytes, at an offset. */
  readonly into?: { readonly i: number; readonly buffer: GPUBuffer; readonly at: number; readonly before: Uint8Array };
  /** Buffers it made, destroyed once it is checked. */
  readonly made: GPUBuffer[];
}

/** `x`'s bytes at `at` of a caller's buffer of random bytes. */
function inCallerBuffer(device: GPUDevice, x: HostTensor, at: number, r: Rng) {
  const bytes = bitsOf(x) as Uint8Array;
  const all = noise(at + bytes.length + 4, r);
  all.set(bytes, at);
  const buffer = bufferOf(device, all);
  return { dtype: x.dtype, shape: [...x.shape], buffer, byteOffset: at, byteLength: bytes.length } as GpuTensor;
}

/** Starts caller `n` of the prepared split `p` now, of a kind drawn from `r`. */
function start(e: SplitEngine, device: GPUDevice, p: PreparedSplit, c: Case, r: Rng, n: number): Caller {
  const kind = pick(r, ['upload', 'upload', 'caller buffer', 'caller buffer, offset', 'encode', 'into'] as const);
  const x = randomTensor(c.dtype, c.shape, r);
  const at = kind === 'caller buffer, offset' ? 4 * int(r, 1, 130) : 0;
  const gx = kind.startsWith('caller') ? inCallerBuffer(device, x, at, r) : e.upload(x as HostTensor<FixedDType>);
  const made = kind.startsWith('caller') ? [gx.buffer] : [];
  const name = `#${n} ${kind}${at ? ` at ${at}` : ''}`;
  const done = (outs: GpuTensor[]) => {
    if (!kind.startsWith('caller')) e.release(gx); // released at once: its commands were recorded at the call
    return outs;
  };
  if (kind === 'encode') {
    const enc = device.createCommandEncoder();
    const outs = p.encode(enc, gx);
    device.queue.submit([enc.finish()]);
    return { name, x, outs: Promise.resolve(done(outs)), made };
  }
  if (kind !== 'into') return { name, x, outs: p.split(gx).then(done), made };
  const i = c.sizes.findIndex((s) => s > 0);
  const shape = c.shape.map((d, k) => (k === c.axis ? c.sizes[i]! : d));
  const bytes = refByteLength(c.dtype as RefDType, numel(shape));
  const dest = { at: 4 * int(r, 0, 70), before: noise(4 * 70 + bytes + 8, r) };
  const buffer = bufferOf(device, dest.before);
  made.push(buffer);
  const into = c.sizes.map((_, k) => (k === i ? { dtype: c.dtype, shape, buffer, byteOffset: dest.at } : undefined));
  return { name, x, outs: p.split(gx, into).then(done), made, into: { i, buffer, ...dest } };
}

/** What is wrong with a caller's outputs (read back), or undefined. */
async function problemOf(e: SplitEngine, device: GPUDevice, c: Case, caller: Caller, outs: GpuTensor[]) {
  const d = caller.into;
  const free = outs.filter((_, i) => i !== d?.i);
  const want = referenceSplit(caller.x, c.axis, c.sizes) as Uint8Array[];
  const wantFree = want.filter((_, i) => i !== d?.i);
  const got = await downloadAll(e, free);
  for (const [k, t] of got.entries()) {
    const m = firstMismatch(bitsOf(t) as Uint8Array, wantFree[k]!);
    if (m) return `an output: ${m}`;
  }
  if (!d) return undefined;
  const shape = outs[d.i]!.shape;
  const strides = shape.map((_, k) => numel(shape.slice(k + 1)));
  const image = scatter(d.before, want[d.i]!, c.dtype, shape, d.at, strides);
  const m = firstMismatch(await readBuffer(device, d.buffer), image);
  return m && `its destination: ${m}`;
}

/** One round: `n` callers of `p` started at once, checked, their outputs released in a shuffled order. */
async function round(e: SplitEngine, device: GPUDevice, p: PreparedSplit, c: Case, seed: number, n: number) {
  const r = rng(seed);
  const callers = Array.from({ length: n }, (_, i) => start(e, device, p, c, r, i));
  const outcomes = await Promise.all(callers.map((k) => settle(k.outs)));
  const problems: string[] = [];
  const all: GpuTensor[] = [];
  for (const [i, o] of outcomes.entries()) {
    const k = callers[i]!;
    if (o.kind !== 'resolved') {
      problems.push(`${k.name}: ${describeOutcome(o)} ${o.kind === 'error' ? o.message : ''}`);
      continue;
    }
    const outs = o.value as GpuTensor[];
    const problem = await problemOf(e, device, c, k, outs);
    if (problem) problems.push(`${k.name}: ${problem}`);
    all.push(...outs);
  }
  all.sort(() => r() - 0.5);
  for (const t of all) e.release(t);
  for (const k of callers) for (const b of k.made) b.destroy();
  await device.queue.onSubmittedWorkDone();
  return problems;
}

/** The engine's one plan cache (the Engine class's `plans`, which the public interface leaves out). */
const plansOf = (e: SplitEngine) => (e as unknown as { plans: PlanCache<Program> }).plans;

/** Tile tables held by the programs in the engine's plan cache (a gather's, made with its program). */
function tablesKept(e: SplitEngine): number {
  let n = 0;
  plansOf(e).find((p) => (p.table && n++, false));
  return n;
}

describe('one prepared split, many callers at once', () => {
  const cases: [string, Case][] = [
    ['float32, a gather or copies', { dtype: 'float32', shape: [8, 40], axis: 1, sizes: [8, 31, 1] }],
    ['uint8, the bit-level path', { dtype: 'uint8', shape: [6, 21], axis: 1, sizes: [5, 0, 16] }],
    ['int4, packed', { dtype: 'int4', shape: [4, 3, 16], axis: 2, sizes: [8, 8] }],
  ];
  for (const [name, c] of cases)
    gpuTest(
      `${name}: 64 callers in flight, every output exact, released in any order, no buffer left over`,
      async (g) => {
        const e = await g.engine();
        const x0 = e.upload(randomTensor(c.dtype, c.shape, rng(61)) as HostTensor<FixedDType>);
        const p = e.prepare(x0, { axis: c.axis, sizes: c.sizes });
        expect(await round(e, g.device, p, c, 62, 64), 'round 1').toEqual([]);
        const steady = e.stats.liveBuffers;
        const steadyTables = tablesKept(e);
        expect(await round(e, g.device, p, c, 62, 64), 'round 2, the same callers').toEqual([]);
        expect(e.stats.liveBuffers, 'live buffers after the same round again').toBe(steady);
        expect(await round(e, g.device, p, c, 63, 64), 'round 3, other callers').toEqual([]);
        // Other offsets are other plan keys: their programs join the one plan cache, up to its bound, each with its
        // table; every other buffer is the pool's, which may grow a little under another mix of callers.
        expect(plansOf(e).size, 'programs kept after round 3').toBeLessThanOrEqual(KEPT_PROGRAMS);
        expect(
          e.stats.liveBuffers - tablesKept(e),
          "live buffers after round 3, the kept programs' tables left out",
        ).toBeLessThanOrEqual(steady - steadyTables + 8);
        e.release(x0);
      },
    );

  gpuTest('a host prepared split: 48 callers at once, on a WebGPU engine and a CPU engine', async (g) => {
    for (const e of [await g.engine(), await createSplitEngine({ backend: 'cpu' })]) {
      const r = rng(64);
      const p = e.prepare(randomTensor('float16', [5, 12], r), { axis: 1, parts: 5 });
      const xs = Array.from({ length: 48 }, () => randomTensor('float16', [5, 12], r));
      const outs = await Promise.all(xs.map((x) => settle(p.split(x))));
      const problems = outs.map((o, i) =>
        o.kind === 'resolved' ? splitProblem(o.value, xs[i]!, 1, chunks(12, 5)) : describeOutcome(o),
      );
      expect(
        problems.filter((m) => m !== undefined),
        e.backend,
      ).toEqual([]);
    }
  });
});

/** A fresh device of its own (destroyed or lost on purpose), with two engines on it. */
async function ownDevice(): Promise<{ device: GPUDevice; A: SplitEngine; B: SplitEngine }> {
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(found.reason);
  const device = found.device;
  return { device, A: await createSplitEngine({ device }), B: await createSplitEngine({ device }) };
}

/** Prepared calls that wait on the GPU (a readback, a caller's buffer not split before, a cold pool), started now. */
function waiting(e: SplitEngine, device: GPUDevice, r: Rng): [string, Promise<unknown>][] {
  const x = randomTensor('float32', [8, 32], r) as HostTensor<'float32'>;
  const gx = e.upload(x);
  const p = e.prepare(gx, { axis: 1, sizes: [5, 27] });
  const h = e.prepare(x, { axis: 1, parts: 3 });
  const mine = inCallerBuffer(device, x, 0, r) as GpuTensor<'float32'>;
  const dest = bufferOf(device, new Uint8Array(8 * 27 * 4));
  const into = [undefined, { dtype: 'float32', shape: [8, 27], buffer: dest, byteOffset: 0 } as const];
  return [
    ['prepared split of an upload (a cold pool)', p.split(gx)],
    ["prepared split of a caller's buffer", p.split(mine)],
    ["prepared split into a caller's buffer", p.split(gx, into)],
    ['prepared host split', h.split(x)],
    [
      'prepared host split (int8)',
      e.prepare(randomTensor('int8', [4, 6], r), { parts: 2 }).split(randomTensor('int8', [4, 6], r)),
    ],
  ];
}

describe('destroy with prepared calls in flight', () => {
  test('each rejects RELEASED, none hangs; a prepared split of another engine on the device goes on', async () => {
    const { device, A, B } = await ownDevice();
    const r = rng(65);
    const calls = waiting(A, device, r);
    A.destroy();
    for (const [name, o] of await Promise.all(calls.map(async ([n, c]) => [n, await settle(c)] as const)))
      expect(describeOutcome(o), name).toBe('RELEASED');
    const x = randomTensor('uint16', [6, 10], r) as HostTensor<'uint16'>;
    const gx = B.upload(x);
    const outs = await B.prepare(gx, { axis: 1, sizes: [3, 7] }).split(gx);
    expect(splitProblem(await downloadAll(B, outs), x, 1, [3, 7])).toBeUndefined();
    B.destroy();
    device.destroy();
  });
});

describe('device loss', () => {
  test('prepared calls waiting on the GPU at the loss, and every later one: DEVICE_LOST; nothing hangs', async () => {
    const { device, A, B } = await ownDevice();
    const r = rng(66);
    const x = randomTensor('float32', [2, 8], r) as HostTensor<'float32'>;
    const live = A.upload(x);
    const c64 = randomTensor('complex64', [2, 4], r);
    const strings: HostTensor<'string'> = { dtype: 'string', shape: [2], data: ['a', 'b'] };
    const made = [A, B].map((e) => ({
      e,
      p: e.prepare(live, { axis: 1, parts: 2 }),
      h: e.prepare(x, { axis: 1, parts: 2 }),
      cpuPath: [e.prepare(c64, { axis: 1, parts: 2 }), e.prepare(strings, { parts: 2 })] as const,
    }));
    const inFlight = [...waiting(A, device, r), ...waiting(B, device, r)];
    // Recorded at the call: an encode gives its outputs at once, the loss or not.
    const enc = device.createCommandEncoder();
    const encoded = made[1]!.p.encode(enc, live);
    device.queue.submit([enc.finish()]);
    device.destroy();
    for (const [name, o] of await Promise.all(inFlight.map(async ([n, c]) => [n, await settle(c)] as const)))
      expect(describeOutcome(o), `in flight: ${name}`).toBe('DEVICE_LOST');
    expect(encoded.map((t) => [t.dtype, t.shape.join()])).toEqual([
      ['float32', '2,4'],
      ['float32', '2,4'],
    ]);
    await device.lost;
    for (const { e, p, h, cpuPath } of made) {
      const calls: [string, () => unknown][] = [
        ['prepared split', () => p.split(live)],
        ['prepared encode', () => p.encode(device.createCommandEncoder(), live)],
        ['prepared host split', () => h.split(x)],
        ['prepared host split (complex64, a CPU path)', () => cpuPath[0].split(c64)],
        ['prepared host split (string, a CPU path)', () => cpuPath[1].split(strings)],
        ['prepare (GPU)', () => e.prepare(live, { parts: 2 })],
        ['prepare (host)', () => e.prepare(x, { parts: 2 })],
      ];
      for (const [name, call] of calls)
        expect(describeOutcome(await outcomeOf(call, 10_000)), name).toBe('DEVICE_LOST');
    }
    expect(() => {
      for (const t of [...encoded, live]) A.release(t);
      A.destroy();
      B.destroy();
    }).not.toThrow();
  });
});

describe('device loss before ready', () => {
  // The device is destroyed in the same task as prepare, before `ready` can settle: whatever `ready` made, it made on
  // a lost device, and it must say so. Its variant compiled before (by a split of the same kind) or not: ready's
  // compile is then instant or a wait. Failing at 19fd7da with the variant compiled: ready's last step ends before the
  // engine hears of the loss, and ready resolves.
  for (const compiledBefore of [false, true])
    test(`a GPU and a host prepared split, variant ${compiledBefore ? '' : 'not '}compiled before: ready rejects DEVICE_LOST, every call too`, async () => {
      const { device, A, B } = await ownDevice();
      const r = rng(67);
      const x = randomTensor('float32', [8, 32], r) as HostTensor<'float32'>;
      const gx = A.upload(x);
      const options = { axis: 1, sizes: [5, 27] };
      if (compiledBefore) {
        const outs = await A.split(gx, options);
        expect(splitProblem(await downloadAll(A, outs), x, 1, options.sizes)).toBeUndefined();
        for (const o of outs) A.release(o);
      }
      const p = A.prepare(gx, options);
      const h = A.prepare(x, options);
      device.destroy();
      for (const [name, ready] of [
        ['GPU', p.ready],
        ['host', h.ready],
      ] as const)
        expect(describeOutcome(await settle(ready)), `${name} prepared split's ready`).toBe('DEVICE_LOST');
      expect(describeOutcome(await settle(p.split(gx))), 'a prepared split after').toBe('DEVICE_LOST');
      expect(describeOutcome(await settle(h.split(x))), 'a host prepared split after').toBe('DEVICE_LOST');
      A.destroy();
      B.destroy();
    });
});
