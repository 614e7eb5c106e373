// The gather's one dispatch for six targets, under seeded destinations: each case splits a tensor into outputs whose
// destinations lie in 1 to 70 caller buffers (several sharing a buffer, a word or more apart, strided and row-major,
// some outputs left to the engine), and every call moves them: each buffer's destinations at another offset, other
// gaps between them, the input in an upload or at another offset of a caller's buffer. A prepared split's split and
// encode, engine.split and encodeSplit, on every strategy ('auto', 'copy', 'gather'). Every output is checked against
// the tests' reference split, and every destination buffer whole: filled with seeded noise before the call, it must
// come back as that noise with the reference scattered into its destinations (test/helpers/destinations.ts), every
// byte outside them unchanged. Wherever the gather ran, it made ceil(targets / 6) dispatches (targets: the destination buffers, and the
// engine's buffer when an output has no destination), everything here lying inside one binding window.
//
// HOSTILE_SEED picks another seed, HOSTILE_SCALE scales the number of cases (harness.ts).

import { expect, test } from 'vitest';
import type { FixedDType, GpuTensor, HostTensor, Into, SplitEngine, Strategy } from '../../src/index.js';
import { int, randomTensor, rng } from '../helpers/cases.js';
import { noise, rowMajor, scatter, widthOf } from '../helpers/destinations.js';
import { downloadAll } from '../helpers/download.js';
import { TENSOR_USAGE, numel } from '../helpers/dtypes.js';
import { gpuTest } from '../helpers/gpu.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { SCALE, SEED, scaleValid } from './harness.js';
import { type Rng, pick } from './tensors.js';

/** Cases per strategy at HOSTILE_SCALE=1. */
const CASES = 6;
/** Calls of each kind per case, each with its destinations moved. */
const CALLS = 2;
const TARGETS_PER_DISPATCH = 6;
/** Types whose rows copy commands can move (whole words), for even cases; the bit path's, for odd ones. */
const WORD_TYPES: readonly FixedDType[] = ['float32', 'int32', 'float64', 'uint64'];
const BIT_TYPES: readonly FixedDType[] = ['float16', 'int8', 'bool', 'uint16', 'int4', 'uint1', 'uint3'];
const STRATEGIES = ['auto', 'copy', 'gather'] as const satisfies readonly (Strategy | 'auto')[];
const KINDS = ['prepared split', 'prepared encode', 'split', 'encodeSplit'] as const;

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** One output's destination as drawn: its buffer, its strides (undefined: row-major, given without strides). */
interface Slot {
  readonly buffer: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[] | undefined;
  /** Bytes from its first byte to past its last, in whole words. */
  readonly span: number;
}

interface Case {
  readonly dtype: FixedDType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly sizes: readonly number[];
  /** Destination buffers. */
  readonly k: number;
  readonly slots: readonly (Slot | undefined)[];
  /** Each destination buffer's size: room for every placement a call draws. */
  readonly bytes: readonly number[];
}

/**
 * A destination's strides for an output of `dims`: row-major (given without strides) or a window of a padded tensor,
 * its dimensions in a random order in memory for word types; byte and packed types keep the innermost dimension
 * contiguous and rows on 4-byte boundaries, as the bit path requires (destinations.ts randomDestinations' rule).
 */
function stridesOf(r: Rng, dtype: FixedDType, dims: readonly number[]): Pick<Slot, 'strides' | 'span'> {
  const w = widthOf(dtype);
  const words = (elements: number) => Math.ceil((elements * w) / 32) * 4;
  if (r() < 0.3) return { strides: undefined, span: words(numel(dims)) };
  const rank = dims.length;
  const padded = dims.map((n) => n + int(r, 0, 2));
  const order = dims.map((_, k) => k);
  if (w >= 32) order.sort(() => r() - 0.5);
  const strides = new Array<number>(rank);
  let acc = 1;
  for (let j = rank - 1; j >= 0; j--) {
    const k = order[j]!;
    strides[k] = acc;
    acc *= padded[k]!;
    if (w < 32 && j === rank - 1) acc = Math.ceil(acc / (32 / gcd(w, 32))) * (32 / gcd(w, 32));
  }
  return { strides, span: words(acc) };
}

/** Destination buffers for case `c`: the first two cases 1 and 70, then a few, some, many in turn. */
function bufferCount(c: number, r: Rng): number {
  if (c < 2) return [1, 70][c]!;
  return [int(r, 1, TARGETS_PER_DISPATCH), int(r, 7, 24), int(r, 25, 70)][c % 3]!;
}

/** Case `c`: a split into k destination buffers' worth of outputs, and up to two outputs left to the engine. */
function drawCase(c: number, r: Rng): Case {
  const dtype = pick(r, c % 2 ? BIT_TYPES : WORD_TYPES);
  const k = bufferCount(c, r);
  const free = int(r, 0, 2);
  const n = k + int(r, 1, 8) + free;
  const sizes = Array.from({ length: n }, () => int(r, 1, 3));
  const rank = int(r, 1, 3);
  const axis = int(r, 0, rank - 1);
  const shape = Array.from({ length: rank }, (_, d) => (d === axis ? sizes.reduce((a, b) => a + b, 0) : int(r, 1, 3)));
  // The first k destinations take the k buffers in a random order, the rest any of them; `free` outputs have none.
  const owners = Array.from({ length: k }, (_, b) => b).sort(() => r() - 0.5);
  while (owners.length < n - free) owners.push(int(r, 0, k - 1));
  const gone = new Set<number>();
  while (gone.size < free) gone.add(int(r, 0, n - 1));
  let next = 0;
  const slots = sizes.map((s, i) => {
    if (gone.has(i)) return undefined;
    const dims = shape.map((d, j) => (j === axis ? s : d));
    return { buffer: owners[next++]!, shape: dims, ...stridesOf(r, dtype, dims) };
  });
  // Room for the largest placement: a shift of 70 words, and each destination two words after the one before.
  const bytes = Array.from({ length: k }, () => 4 * 70 + 8);
  for (const s of slots) if (s) bytes[s.buffer]! += s.span + 8;
  return { dtype, shape, axis, sizes, k, slots, bytes };
}

/** Where one call puts each destination: per buffer, a shift of 0 to 70 words, then its destinations 0 to 2 words apart. */
function placement(c: Case, r: Rng): (number | undefined)[] {
  const at = Array.from({ length: c.k }, () => 4 * int(r, 0, 70));
  return c.slots.map((s) => {
    if (!s) return undefined;
    const offset = at[s.buffer]!;
    at[s.buffer] = offset + s.span + 4 * int(r, 0, 2);
    return offset;
  });
}

/** The `into` of a placement, over `buffers`. */
function intoOf(c: Case, buffers: readonly GPUBuffer[], offsets: readonly (number | undefined)[]) {
  return c.slots.map((s, i): Into | undefined =>
    s
      ? {
          dtype: c.dtype,
          shape: [...s.shape],
          buffer: buffers[s.buffer]!,
          byteOffset: offsets[i]!,
          ...(s.strides && { strides: [...s.strides] }),
        }
      : undefined,
  );
}

/** Every buffer's bytes, read back through one staging buffer and one map. */
async function readAll(device: GPUDevice, buffers: readonly GPUBuffer[]): Promise<Uint8Array[]> {
  const [MAP_READ, COPY_DST] = [0x1, 0x8];
  const at: number[] = [];
  let size = 0;
  for (const b of buffers) {
    at.push(size);
    size += b.size;
  }
  const staging = device.createBuffer({ size, usage: MAP_READ | COPY_DST });
  const enc = device.createCommandEncoder();
  buffers.forEach((b, i) => enc.copyBufferToBuffer(b, 0, staging, at[i]!, b.size));
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(MAP_READ);
  const all = new Uint8Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return buffers.map((b, i) => all.subarray(at[i]!, at[i]! + b.size));
}

/** The call's input: an upload, or the tensor at a random word of a caller's buffer of noise. */
function inputOf(e: SplitEngine, device: GPUDevice, x: HostTensor, r: Rng): { gx: GpuTensor; done: () => void } {
  if (r() < 0.5) {
    const gx = e.upload(x as HostTensor<FixedDType>);
    return { gx, done: () => e.release(gx) };
  }
  const bytes = bitsOf(x) as Uint8Array;
  const at = 4 * int(r, 0, 70);
  const all = noise(at + bytes.length + 4, r);
  all.set(bytes, at);
  const buffer = device.createBuffer({ size: all.length, usage: TENSOR_USAGE });
  device.queue.writeBuffer(buffer, 0, all);
  const gx = { dtype: x.dtype, shape: [...x.shape], buffer, byteOffset: at, byteLength: bytes.length } as GpuTensor;
  return { gx, done: () => buffer.destroy() };
}

/** What is wrong with one call's outputs and destination buffers, or the dispatches its gather made. */
async function problemsOf(
  e: SplitEngine,
  c: Case,
  x: HostTensor,
  outs: GpuTensor[],
  buffers: readonly GPUBuffer[],
  before: readonly Uint8Array[],
  offsets: readonly (number | undefined)[],
): Promise<string[]> {
  const problems: string[] = [];
  const ref = referenceSplit(x, c.axis, c.sizes) as Uint8Array[];
  const want = before.map((b) => b.slice() as Uint8Array);
  const free: number[] = [];
  c.slots.forEach((s, i) => {
    if (!s) {
      free.push(i);
      return;
    }
    const o = outs[i]!;
    if (o.buffer !== buffers[s.buffer] || o.byteOffset !== offsets[i])
      problems.push(`output ${i} is not at its destination (buffer ${s.buffer}, byte ${offsets[i]})`);
    const strides = s.strides ?? rowMajor(s.shape);
    want[s.buffer] = scatter(want[s.buffer]!, ref[i]!, c.dtype, s.shape, offsets[i]!, strides);
  });
  const got = await downloadAll(
    e,
    free.map((i) => outs[i]!),
  );
  got.forEach((t, j) => {
    const m = firstMismatch(bitsOf(t) as Uint8Array, ref[free[j]!]!);
    if (m) problems.push(`output ${free[j]} (the engine's): ${m}`);
  });
  (await readAll(e.device!, buffers)).forEach((bytes, b) => {
    const m = firstMismatch(bytes, want[b]!);
    if (m) problems.push(`destination buffer ${b}: ${m}`);
  });
  if (e.stats.strategy === 'gather') {
    const targets = c.k + (free.length > 0 ? 1 : 0);
    const dispatches = Math.ceil(targets / TARGETS_PER_DISPATCH);
    if (e.stats.dispatches !== dispatches)
      problems.push(`${e.stats.dispatches} dispatches for ${targets} targets, want ${dispatches}`);
  }
  return problems;
}

/** Runs case `c` on `e`: CALLS calls of each kind, each moved; the problems found (each with its repro) go to `problems`. */
async function runCase(e: SplitEngine, device: GPUDevice, c: Case, r: Rng, repro: string, problems: string[]) {
  const buffers = c.bytes.map((size) => device.createBuffer({ size, usage: TENSOR_USAGE }));
  const options = { axis: c.axis, sizes: [...c.sizes] };
  let calls = 0;
  const first = randomTensor(c.dtype, [...c.shape], r) as HostTensor<FixedDType>;
  const prepared = e.upload(first);
  const p = e.prepare(prepared, { ...options, into: intoOf(c, buffers, placement(c, r)) });
  for (const kind of KINDS)
    for (let call = 0; call < CALLS; call++) {
      const before = c.bytes.map((size) => noise(size, r));
      buffers.forEach((b, i) => device.queue.writeBuffer(b, 0, before[i]!));
      const offsets = placement(c, r);
      const into = intoOf(c, buffers, offsets);
      const x = randomTensor(c.dtype, [...c.shape], r);
      const { gx, done } = inputOf(e, device, x, r);
      const at = `${repro}, ${kind} ${call}`;
      try {
        let outs: GpuTensor[];
        if (kind === 'prepared split') outs = await p.split(gx, into);
        else if (kind === 'split') outs = await e.split(gx, { ...options, into });
        else {
          const enc = device.createCommandEncoder();
          outs = kind === 'encodeSplit' ? e.encodeSplit(enc, gx, { ...options, into }) : p.encode(enc, gx, into);
          device.queue.submit([enc.finish()]);
        }
        for (const m of await problemsOf(e, c, x, outs, buffers, before, offsets)) problems.push(`${at}: ${m}`);
        for (const o of outs) e.release(o);
        calls++;
      } catch (err) {
        problems.push(`${at}: threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
      }
      done();
    }
  e.release(prepared);
  for (const b of buffers) b.destroy();
  return calls;
}

const cases = scaleValid() ? Math.max(1, Math.round(CASES * SCALE)) : 0;

test('the scale: a positive HOSTILE_SCALE', () => {
  expect(scaleValid(), `HOSTILE_SCALE=${process.env.HOSTILE_SCALE}`).toBe(true);
});

for (const strategy of STRATEGIES)
  gpuTest(
    `${strategy}: ${cases} seeded cases, destinations in 1 to 70 buffers moved every call, exact, nothing else written`,
    async (g) => {
      const e = await g.engine(strategy === 'auto' ? {} : { strategy });
      const problems: string[] = [];
      let calls = 0;
      for (let c = 0; c < cases; c++) {
        // The same cases, offsets and data on every strategy.
        const r = rng(SEED + 7919 * c);
        const cs = drawCase(c, r);
        const repro = `seed ${SEED}, case ${c} (${cs.dtype} [${cs.shape.join(', ')}], axis ${cs.axis}, ${cs.sizes.length} outputs, ${cs.k} buffers)`;
        calls += await runCase(e, g.device, cs, r, repro, problems);
      }
      expect(problems.slice(0, 20), `${problems.length} problems (the first 20 shown)`).toEqual([]);
      expect(calls, 'calls made and checked').toBe(cases * KINDS.length * CALLS);
    },
    120_000,
  );
