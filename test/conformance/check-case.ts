// One conformance case, from its input to its verdict: the input placed where the case says (the
// engine's upload or the caller's buffer), destinations made for `into`, the split called or
// recorded, then three checks, each against the tests' own oracles (never Cleave's code): the GPU
// did the work (gpu-work.ts), the outputs sit where the case's place says, and every byte equals
// the reference split's (reference.ts, packed.ts) or, in the caller's buffers, the scatter oracle's
// (destinations.ts), the bytes around each destination unchanged.

import type { FixedDType, GpuTensor, HostTensor, Into, SplitEngine, SplitStats } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { type Destination, bufferOf, noise, randomDestinations, scatter } from '../helpers/destinations.js';
import { align4 } from '../helpers/dtypes.js';
import { aliasable, gpuWorkProblem } from '../helpers/gpu-work.js';
import { downloadOutputs, readBuffer } from '../helpers/readback.js';
import { bitsOf, firstMismatch, referenceSplit, splitMismatch } from '../helpers/reference.js';
import type { ConformanceCase } from './cases.js';
import type { Harness } from './suite.js';

type Stats = Pick<SplitStats, 'strategy' | 'unitBits' | 'dispatches' | 'copies'>;
export type Outcome = { readonly problem?: string; readonly stats: Stats };
export interface Dests {
  readonly places: readonly (Destination | undefined)[];
  readonly buffers: readonly GPUBuffer[];
  /** Each buffer's bytes before the split. */
  readonly images: ReadonlyMap<GPUBuffer, Uint8Array>;
}

/** A tensor's bytes in a buffer of the caller's (whole 4-byte words, as writeBuffer takes them). */
function callerTensor(device: GPUDevice, x: HostTensor): GpuTensor {
  const bytes = bitsOf(x) as Uint8Array;
  const padded = new Uint8Array(align4(bytes.length));
  padded.set(bytes);
  const buffer = bufferOf(device, padded);
  return { dtype: x.dtype, shape: x.shape, buffer, byteOffset: 0, byteLength: bytes.length } as GpuTensor;
}

/** Destinations for about 70% of the outputs, in two buffers of random bytes (kept as the oracle's "before"). */
function makeDestinations(device: GPUDevice, c: ConformanceCase, next: () => number): Dests {
  const { dests, bytes } = randomDestinations(next, c.dtype, c.shape, c.axis, c.sizes);
  const images = new Map<GPUBuffer, Uint8Array>();
  const buffers = bytes.map((used) => {
    const before = noise(used + 8, next);
    const b = bufferOf(device, before);
    images.set(b, before);
    return b;
  });
  return { places: dests, buffers, images };
}

/** The split the case calls for: awaited, or recorded into an encoder of the caller's and submitted. */
async function callSplit(
  h: Harness,
  e: SplitEngine,
  c: ConformanceCase,
  input: GpuTensor,
  into: readonly (Into | undefined)[] | undefined,
  rewrite: (enc: GPUCommandEncoder) => void,
): Promise<GpuTensor[]> {
  const alias = c.place === 'alias-none' ? ('none' as const) : c.place === 'alias-any' ? ('any' as const) : undefined;
  const options = {
    axis: c.axis,
    sizes: c.sizes,
    ...(c.place === 'separate' && { layout: 'separate' as const }),
    ...(alias && { alias }),
    ...(into && { into: into as readonly (Into<'float32'> | undefined)[] }),
  };
  // One dtype stands for all: the engine's types tie the destinations' dtype to the input's.
  const x = input as GpuTensor<'float32'>;
  if (c.call === 'split') return e.split(x, options);
  const enc = h.device.createCommandEncoder();
  rewrite(enc);
  const outs = e.encodeSplit(enc, x, options);
  h.device.queue.submit([enc.finish()]);
  return outs;
}

/** Whether the case's outputs must, may or must not be views of its input's buffer. */
function aliasRule(h: Harness, c: ConformanceCase, x: HostTensor): boolean {
  const viewable = c.place === 'alias-any' || (c.place === 'shared' && c.call === 'split');
  return viewable && !c.into && aliasable(x, c.axis, c.sizes, h.device.limits.minStorageBufferOffsetAlignment);
}

/** Outputs where the case's place puts them: a buffer each at byte 0, or at the destinations given. */
export function placeProblem(
  c: ConformanceCase,
  outs: readonly GpuTensor[],
  input: GpuTensor,
  into?: readonly (Into | undefined)[],
) {
  for (const [i, o] of outs.entries()) {
    const d = into?.[i];
    if (d && (o.buffer !== d.buffer || o.byteOffset !== d.byteOffset))
      return `output ${i} is not at its destination (byteOffset ${o.byteOffset}, want ${d.byteOffset})`;
    if (c.place !== 'separate' || d || o.byteLength === 0) continue;
    if (o.byteOffset !== 0 || o.buffer === input.buffer)
      return `layout 'separate': output ${i} not in a buffer of its own`;
    if (outs.some((p, k) => k !== i && p.buffer === o.buffer)) return `layout 'separate': output ${i} shares a buffer`;
  }
  return undefined;
}

/** Every engine-placed output against the reference split, every destination buffer against the scatter oracle. */
export async function bytesProblem(
  h: Harness,
  e: SplitEngine,
  c: ConformanceCase,
  x: HostTensor,
  outs: readonly GpuTensor[],
  dests?: Dests,
): Promise<string | undefined> {
  const placed = outs.filter((_, i) => !dests?.places[i]);
  const got = await downloadOutputs(e, placed, h.cleave.hostDataFromBytes);
  if (!dests) return splitMismatch(got, x, c.axis, c.sizes);
  const ref = referenceSplit(x, c.axis, c.sizes) as Uint8Array[];
  let k = 0;
  for (const [i, d] of dests.places.entries()) {
    if (d) continue;
    const m = firstMismatch(bitsOf(got[k++]!) as Uint8Array, ref[i]!);
    if (m) return `output ${i}: ${m}`;
  }
  const want = new Map(dests.images);
  for (const [i, d] of dests.places.entries()) {
    if (!d) continue;
    const b = outs[i]!.buffer;
    want.set(b, scatter(want.get(b)!, ref[i]!, c.dtype, d.shape, d.byteOffset, d.strides));
  }
  for (const [b, bytes] of want) {
    const m = firstMismatch(await readBuffer(h.device, b), bytes);
    if (m) return `destination buffer of ${b.size} bytes: ${m}`;
  }
  return undefined;
}

/** Runs the case and returns the first problem found (undefined: exact, and the GPU did the work). */
export async function checkCase(h: Harness, c: ConformanceCase): Promise<Outcome> {
  const e = await h.engine(c.strategy);
  const next = rng(c.seed);
  const x = randomTensor(c.dtype, c.shape, next) as HostTensor<FixedDType>;
  const upload = (t: HostTensor) => e.upload(t as HostTensor<FixedDType>) as GpuTensor;
  const caller = c.place === 'caller' || c.place === 'alias-any';
  // encode-rewrite: the input starts as other bytes; the caller's own command writes x's before the split.
  const source = c.call === 'encode-rewrite' ? callerTensor(h.device, x) : undefined;
  const input = caller ? callerTensor(h.device, x) : upload(source ? randomTensor(c.dtype, c.shape, next) : x);
  const rewrite = (enc: GPUCommandEncoder) =>
    source && enc.copyBufferToBuffer(source.buffer, 0, input.buffer, input.byteOffset, source.buffer.size);
  const dests = c.into ? makeDestinations(h.device, c, next) : undefined;
  const into = dests?.places.map((d) => d && ({ ...d, shape: [...d.shape], buffer: dests.buffers[d.target]! } as Into));
  const outs = await callSplit(h, e, c, input, into, rewrite);
  const s = e.stats;
  const stats = { strategy: s.strategy, unitBits: s.unitBits, dispatches: s.dispatches, copies: s.copies };
  const problem =
    gpuWorkProblem(e, outs, { alias: aliasRule(h, c, x), input }) ??
    (c.unitBits && s.unitBits !== c.unitBits ? `ran with ${s.unitBits}-bit words, want ${c.unitBits}` : undefined) ??
    placeProblem(c, outs, input, into) ??
    (await bytesProblem(h, e, c, x, outs, dests));
  for (const o of outs) e.release(o);
  if (caller) input.buffer.destroy();
  else e.release(input);
  source?.buffer.destroy();
  for (const b of dests?.buffers ?? []) b.destroy();
  return { ...(problem !== undefined && { problem }), stats };
}
