// The Node side of test/browser/fixtures/resident.mjs: cases made here from seeded random tensors
// (sent as bytes), and what the page answers checked against the tests' own reference
// (helpers/reference.ts, helpers/packed.ts: nothing of src/), `into` destinations through `scatter`.

import { hashParams, randomTensor, rng } from './cases.js';
import type { RefDType } from './dtypes.js';
import { type RefTensor, bitsOf, firstMismatch, referenceSplit } from './reference.js';
import { scatter } from './destinations.js';
import type { DType } from '../../src/index.js';

/** An output as the page saw it: in which read-back buffer, where, and whether it is a view of the input. */
export interface Placed {
  dtype: string;
  shape: number[];
  buffer: number;
  byteOffset: number;
  byteLength: number;
  strides?: number[];
  view: boolean;
}
export interface Split {
  errors: string[];
  stats: { strategy: string; unitBits: number; dispatches: number; copies: number };
  outputs: Placed[];
}

/** One split as the page takes it, with what the test keeps to check it. */
export interface Case {
  x: RefTensor;
  axis: number;
  sizes: number[];
  options: Record<string, unknown>;
  byteOffset?: number;
  strategy?: 'gather' | 'copy';
  /** Destination buffers' first bytes (`into` entries name them by index). */
  destinations?: Uint8Array[];
}

export const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
export const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
export const noise = (n: number, seed: number) => randomTensor('uint8', [n], rng(seed)).data as Uint8Array;

/** A split of a seeded random tensor into `sizes` along `axis`. */
export function make(dtype: RefDType, shape: number[], axis: number, sizes: number[], extra: Partial<Case> = {}): Case {
  const x = randomTensor(dtype as DType, shape, rng(hashParams({ dtype, shape, sizes })));
  return { x, axis, sizes, options: { axis, sizes }, ...extra };
}

export const toPage = ({ x, byteOffset, strategy, options, destinations }: Case) => ({
  ...{ dtype: x.dtype, shape: x.shape, x: base64(bitsOf(x) as Uint8Array), byteOffset, strategy, options },
  destinations: destinations?.map(base64),
});

/** What is wrong with a split the page made of `c`, against the reference; undefined when nothing. */
export function mismatch(c: Case, r: Split, buffers: Uint8Array[]): string | undefined {
  if (r.errors.length) return `errors: ${r.errors.join('; ')}`;
  if (r.outputs.length !== c.sizes.length) return `${r.outputs.length} outputs, want ${c.sizes.length}`;
  const want = referenceSplit(c.x, c.axis, c.sizes) as Uint8Array[];
  const into = c.options.into as ({ buffer: number; byteOffset: number; strides: number[] } | undefined)[] | undefined;
  const images = new Map<number, Uint8Array>();
  for (const [i, o] of r.outputs.entries()) {
    const shape = c.x.shape.map((n, k) => (k === c.axis ? c.sizes[i]! : n));
    if (o.dtype !== c.x.dtype || o.shape.join() !== shape.join()) return `output ${i}: ${o.dtype} [${o.shape}]`;
    const d = into?.[i];
    if (d) {
      const before = images.get(o.buffer) ?? c.destinations![d.buffer]!;
      images.set(o.buffer, scatter(before, want[i]!, c.x.dtype, shape, d.byteOffset, d.strides));
      continue;
    }
    const got = buffers[o.buffer]!.subarray(o.byteOffset, o.byteOffset + o.byteLength);
    const m = firstMismatch(got, want[i]!);
    if (m) return `output ${i}: ${m}`;
  }
  for (const [b, image] of images) {
    const m = firstMismatch(buffers[b]!.subarray(0, image.length), image);
    if (m) return `destination buffer ${b}: ${m}`;
  }
  return undefined;
}

/** One call of a prepared split in the page: its input, how it is called, and its own destinations if any. */
export interface PreparedCall {
  x: RefTensor;
  how: 'split' | 'encode';
  /** The input in a buffer of the page's at this offset; without it, an engine upload. */
  byteOffset?: number;
  /** Destinations for this call (buffers by index), in place of the prepared ones. */
  into?: (Record<string, unknown> | undefined)[];
}
/** A split prepared once in the page (on an upload of `x`, then released) and called on each of `calls` in turn. */
export interface PreparedCase extends Omit<Case, 'byteOffset' | 'strategy'> {
  calls: PreparedCall[];
  /** A tensor of another shape, which the prepared split and encode must refuse. */
  other: RefTensor;
}
/** What the page answers of a prepared case: each call's split and the buffers after it, and what each refusal said. */
export interface PreparedAnswer {
  results: (Split & { buffers: string[] })[];
  refusals: string[];
}

export const preparedToPage = (c: PreparedCase) => ({
  ...{ dtype: c.x.dtype, shape: c.x.shape, x: base64(bitsOf(c.x) as Uint8Array), options: c.options },
  destinations: c.destinations?.map(base64),
  calls: c.calls.map((k) => ({ ...k, x: base64(bitsOf(k.x) as Uint8Array) })),
  other: { shape: c.other.shape, x: base64(bitsOf(c.other) as Uint8Array) },
});

/**
 * What is wrong with each call of a prepared case, against the reference split of its own input: its destinations
 * (its own `into`, or the prepared ones) scattered over the buffers' bytes after the call before.
 */
export function preparedMismatches(c: PreparedCase, a: PreparedAnswer): string[] {
  if (a.results.length !== c.calls.length) return [`${a.results.length} calls answered, want ${c.calls.length}`];
  let before = c.destinations ?? [];
  return a.results.flatMap((r, k) => {
    const call = c.calls[k]!;
    const buffers = r.buffers.map(bytes);
    const options = { ...c.options, into: call.into ?? c.options.into };
    const m = mismatch({ ...c, x: call.x, options, destinations: before }, r, buffers);
    before = buffers.slice(0, before.length);
    const at = call.byteOffset === undefined ? 'an engine upload' : `byteOffset ${call.byteOffset}`;
    return m ? [`call ${k + 1} (${call.how}, ${at}): ${m}`] : [];
  });
}
