// A prepared-split case, from its first tensor to its verdict: `engine.prepare` once, on a tensor the case then
// destroys, and call after call on new tensors of the prepared dtype and shape: inputs in the caller's buffers at
// offsets a whole 256 bytes from the prepared one and at offsets that are not ('offsets'), K and V written into a
// cache slot that moves at every call ('kv-cache'), host tensors ('host'). Each call is checked as check-case.ts checks
// a split: the GPU did the work (gpu-work.ts), with the forced strategy where the case forces one and views exactly
// where the chunks and the offset allow them; outputs where they belong; every byte against the reference split or,
// in a cache, the scatter oracle over its previous bytes. Then one refusal, with its code and exact message.

import type { FixedDType, GpuTensor, HostTensor, Into, PreparedSplit, SplitEngine } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, noise } from '../helpers/destinations.js';
import { REF_TYPES } from '../helpers/dtypes.js';
import { aliasable, gpuWorkProblem } from '../helpers/gpu-work.js';
import { readBuffer } from '../helpers/readback.js';
import { bitsOf, splitMismatch } from '../helpers/reference.js';
import type { ConformanceCase } from './cases.js';
import { type Dests, type Outcome, bytesProblem, placeProblem } from './check-case.js';
import type { Harness } from './suite.js';

/** Where each call of an 'offsets' case puts its input (prepared at 0): 256, 512, 0 share its plan; 4, 260, 12 not. */
const OFFSETS = [256, 4, 512, 260, 12, 0] as const;
/** Each call's cache slot in a 'kv-cache' case (prepared with slot 0); undefined: no `into`, the prepared slot 0. */
const SLOTS = [1, 2, 5, 7, 4, undefined] as const;
/** Slots in a cache: with 64-byte slot rows, slots 4 to 7 lie an alignment past slots 0 to 3. */
const T = 8;

// One dtype stands for all: the engine's types tie the destinations' dtype to the input's.
type Prepared = PreparedSplit<'float32'>;
type Dest = Into<'float32'> | undefined;
type Stats = Outcome['stats'];

const statsOf = ({ stats: s }: SplitEngine): Stats => ({
  strategy: s.strategy,
  unitBits: s.unitBits,
  dispatches: s.dispatches,
  copies: s.copies,
});
const outcome = (problem: string | undefined, stats: Stats): Outcome => ({
  ...(problem !== undefined && { problem }),
  stats,
});

/** `x`'s bytes at `byteOffset` of a caller's buffer of random bytes, as a GPU tensor there. */
function placedAt(device: GPUDevice, x: HostTensor, byteOffset: number, next: () => number): GpuTensor<'float32'> {
  const bytes = bitsOf(x) as Uint8Array;
  const all = noise(byteOffset + bytes.length + 8, next);
  all.set(bytes, byteOffset);
  const buffer = bufferOf(device, all);
  return { dtype: x.dtype, shape: x.shape, buffer, byteOffset, byteLength: bytes.length } as GpuTensor<'float32'>;
}

/** The call the case makes: the prepared `split`, or its `encode` into an encoder of the caller's, submitted. */
async function call(h: Harness, c: ConformanceCase, p: Prepared, x: GpuTensor, into?: Dest[]): Promise<GpuTensor[]> {
  const input = x as GpuTensor<'float32'>;
  if (c.call === 'split') return p.split(input, into);
  const enc = h.device.createCommandEncoder();
  const outs = p.encode(enc, input, into);
  h.device.queue.submit([enc.finish()]);
  return outs;
}

/** What a refused call said ('SplitError CODE: message') against what it must say; undefined when the same. */
async function refusalProblem(what: string, attempt: () => Promise<unknown>, want: string) {
  let said = 'resolved';
  try {
    await attempt();
  } catch (e) {
    said = e instanceof Error ? `${e.name} ${(e as { code?: string }).code}: ${e.message}` : String(e);
  }
  return said === want ? undefined : `${what}: ${said}; want ${want}`;
}

/** The message of a prepared call given a tensor of another dtype or shape. */
const refusal = (code: string, what: string, kind: 'GPU' | 'host', want: HostTensor, got: HostTensor) => {
  const t = (x: HostTensor) => `a ${kind} tensor of ${x.dtype} [${x.shape.join(', ')}]`;
  return `SplitError ${code}: ${what}: prepared for ${t(want)}, got ${t(got)}`;
};

/** A forced strategy that did not run: each case's pieces are whole 32-bit words, so copies and gather both can. */
const strategyProblem = (e: SplitEngine, c: ConformanceCase) =>
  c.strategy === 'auto' || e.stats.strategy === c.strategy ? undefined : `ran ${e.stats.strategy}, want ${c.strategy}`;

/** Inputs in the caller's buffers at OFFSETS, views exactly where the offset allows; then another shape, refused. */
async function offsets(h: Harness, e: SplitEngine, c: ConformanceCase, next: () => number): Promise<Outcome> {
  const a = h.device.limits.minStorageBufferOffsetAlignment;
  const views = c.place === 'alias-any';
  const x0 = randomTensor(c.dtype, c.shape, next);
  const first = placedAt(h.device, x0, 0, next);
  const p = e.prepare(first, { axis: c.axis, sizes: c.sizes, ...(views && { alias: 'any' as const }) });
  // What was prepared holds nothing of the tensor it was prepared on.
  first.buffer.destroy();
  let stats = statsOf(e);
  for (const [k, at] of OFFSETS.entries()) {
    const x = randomTensor(c.dtype, c.shape, next) as HostTensor<FixedDType>;
    const input = placedAt(h.device, x, at, next);
    const outs = await call(h, c, p, input);
    stats = statsOf(e);
    const alias = views && at % a === 0 && aliasable(x, c.axis, c.sizes, a);
    const problem =
      gpuWorkProblem(e, outs, { alias, input }) ?? strategyProblem(e, c) ?? (await bytesProblem(h, e, c, x, outs));
    for (const o of outs) e.release(o);
    input.buffer.destroy();
    if (problem) return outcome(`call ${k + 1}, the input at byteOffset ${at}: ${problem}`, stats);
  }
  const y = randomTensor(c.dtype, [c.shape[0]! + 1, ...c.shape.slice(1)], next);
  const other = placedAt(h.device, y, 0, next);
  const what = c.call === 'split' ? 'prepared split' : 'prepared encode';
  const problem = await refusalProblem(
    'another shape',
    () => call(h, c, p, other),
    refusal('BAD_SHAPE', what, 'GPU', x0, y),
  );
  other.buffer.destroy();
  return outcome(problem, stats);
}

/** The case's K and V caches ([1, H, T, d] each, random bytes) and the slot-t destinations into them. */
function caches(h: Harness, c: ConformanceCase, next: () => number) {
  const [H, d] = [c.sizes[1]!, c.shape[3]!];
  const row = (d * REF_TYPES[c.dtype].bits) / 8;
  const images = new Map<GPUBuffer, Uint8Array>();
  const buffers = [0, 1].map(() => {
    const before = noise(H * T * row, next);
    const b = bufferOf(h.device, before);
    images.set(b, before);
    return b;
  });
  const at = (t: number) =>
    [undefined, 0, 1].map((target) => {
      if (target === undefined) return undefined;
      const strides = [H * T * d, T * d, d, 1];
      return { dtype: c.dtype, shape: [1, H, 1, d], byteOffset: t * row, strides, target: target as 0 | 1 };
    });
  const into = (t: number) => at(t).map((p) => p && ({ ...p, buffer: buffers[p.target]! } as Into<'float32'>));
  return { buffers, images, at, into };
}

/**
 * q placed by the engine, K and V into slot SLOTS[k] of their caches at call k: every byte of each cache against the
 * scatter oracle over its bytes after the call before, the slots outside this call's unchanged.
 */
async function kvCache(h: Harness, e: SplitEngine, c: ConformanceCase, next: () => number): Promise<Outcome> {
  const kv = caches(h, c, next);
  const first = e.upload(randomTensor(c.dtype, c.shape, next) as HostTensor<'float32'>);
  const p = e.prepare(first, { axis: c.axis, sizes: c.sizes, into: kv.into(0) });
  e.release(first);
  let stats = statsOf(e);
  let problem: string | undefined;
  for (const [k, t] of SLOTS.entries()) {
    const x = randomTensor(c.dtype, c.shape, next) as HostTensor<FixedDType>;
    const input = e.upload(x) as GpuTensor;
    const outs = await call(h, c, p, input, t === undefined ? undefined : kv.into(t));
    stats = statsOf(e);
    const dests: Dests = { places: kv.at(t ?? 0), buffers: kv.buffers, images: new Map(kv.images) };
    problem =
      gpuWorkProblem(e, outs, { alias: false, input }) ??
      strategyProblem(e, c) ??
      placeProblem(c, outs, input, kv.into(t ?? 0)) ??
      (await bytesProblem(h, e, c, x, outs, dests));
    for (const o of [...outs, input]) e.release(o);
    if (problem) {
      problem = `call ${k + 1}, ${t === undefined ? 'the prepared slot 0' : `slot ${t}`}: ${problem}`;
      break;
    }
    for (const b of kv.buffers) kv.images.set(b, await readBuffer(h.device, b));
  }
  for (const b of kv.buffers) b.destroy();
  return outcome(problem, stats);
}

/** Host tensors, split through the GPU, three calls; then a tensor of another dtype, refused (BAD_DTYPE). */
async function host(e: SplitEngine, c: ConformanceCase, next: () => number): Promise<Outcome> {
  const x0 = randomTensor(c.dtype, c.shape, next) as HostTensor<'float32'>;
  const p = e.prepare(x0, { axis: c.axis, sizes: c.sizes });
  let stats = statsOf(e);
  for (let k = 0; k < 3; k++) {
    const x = randomTensor(c.dtype, c.shape, next) as HostTensor<'float32'>;
    const outs = await p.split(x);
    stats = statsOf(e);
    const problem =
      gpuWorkProblem(e, outs, { alias: false }) ?? strategyProblem(e, c) ?? splitMismatch(outs, x, c.axis, c.sizes);
    if (problem) return outcome(`call ${k + 1}: ${problem}`, stats);
  }
  const y = randomTensor(c.dtype === 'float32' ? 'int32' : 'float32', c.shape, next) as HostTensor<'float32'>;
  const want = refusal('BAD_DTYPE', 'prepared split', 'host', x0, y);
  return outcome(await refusalProblem('another dtype', () => p.split(y), want), stats);
}

/** Runs a prepared case and returns the first problem found (undefined: every call exact, by GPU work). */
export async function checkPrepared(h: Harness, c: ConformanceCase): Promise<Outcome> {
  const e = await h.engine(c.strategy);
  const next = rng(c.seed);
  if (c.prepared === 'kv-cache') return kvCache(h, e, c, next);
  if (c.prepared === 'host') return host(e, c, next);
  return offsets(h, e, c, next);
}
