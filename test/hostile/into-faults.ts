// `into` destinations for the prepared-split cases: a valid set for a base split (test/helpers/destinations.ts draws
// them: windows of padded tensors in two caller buffers), the same set moved to new buffers and offsets (a KV-cache
// slot that moves every step), and one-fault mutations of a valid set with the code each must give, decided from
// read/into.ts's documented rules and engine.split's answers (test/hostile/into.test.ts), never from src's code.

import type { FixedDType, HostTensor, SplitErrorCode } from '../../src/index.js';
import { type Destination, noise, randomDestinations, widthOf } from '../helpers/destinations.js';
import { int, randomTensor } from '../helpers/cases.js';
import { TENSOR_USAGE, numel } from '../helpers/dtypes.js';
import { type Base, type Ctx, GPU_DTYPES, type Mutation, type Rng, pick } from './tensors.js';
import { JUNK, revokedProxy, throwingGetter, throwingProxy } from './values.js';

const [MAP_READ, COPY_DST] = [0x1, 0x8];

/** A set of destinations as the caller writes them, the plan behind it, and its buffers' bytes before any split. */
export interface IntoSet {
  readonly into: (Record<PropertyKey, unknown> | undefined)[];
  readonly plan: readonly (Destination | undefined)[];
  readonly buffers: readonly [GPUBuffer, GPUBuffer];
  readonly before: readonly [Uint8Array, Uint8Array];
}

/** The output shapes of a base split into `sizes`. */
export const outputShapes = (b: Base, sizes: readonly number[]): number[][] =>
  sizes.map((s) => b.shape.map((d, k) => (k === b.axis ? s : d)));

/** Bytes a destination spans, first byte to last (0 for an empty output). */
export function spanOf(d: Pick<Destination, 'dtype' | 'shape' | 'strides'>): number {
  if (numel(d.shape) === 0) return 0;
  const last = d.shape.reduce((a, n, k) => a + (n - 1) * d.strides[k]!, 0);
  return Math.ceil(((last + 1) * widthOf(d.dtype)) / 8);
}

/** Two caller buffers of random bytes, `size[k]` bytes each (4 at least), their bytes kept as the oracle's start. */
function twoBuffers(ctx: Ctx, size: readonly [number, number], r: Rng) {
  const made = size.map((n) => {
    const bytes = noise(Math.max(4, n), r);
    const buffer = ctx.device.createBuffer({ size: bytes.length, usage: TENSOR_USAGE });
    ctx.device.queue.writeBuffer(buffer, 0, bytes);
    ctx.made.push(buffer);
    return [buffer, bytes] as const;
  });
  return { buffers: [made[0]![0], made[1]![0]] as const, before: [made[0]![1], made[1]![1]] as const };
}

/** `plan` placed in two new buffers, every offset moved by `shift` bytes (a multiple of 4). */
export function placeSet(ctx: Ctx, plan: readonly (Destination | undefined)[], shift: number, r: Rng): IntoSet {
  const moved = plan.map((d) => d && { ...d, byteOffset: d.byteOffset + shift });
  const size: [number, number] = [0, 0];
  for (const d of moved) if (d) size[d.target] = Math.max(size[d.target], d.byteOffset + spanOf(d) + 8);
  const { buffers, before } = twoBuffers(ctx, size, r);
  const into = moved.map(
    (d) =>
      d && {
        dtype: d.dtype,
        shape: [...d.shape],
        buffer: buffers[d.target],
        byteOffset: d.byteOffset,
        strides: [...d.strides],
      },
  );
  return { into, plan: moved, buffers, before };
}

/** Valid destinations for about 70% of the base split's outputs (at least one), in two caller buffers. */
export function validInto(ctx: Ctx, b: Base, sizes: readonly number[], r: Rng): IntoSet {
  for (;;) {
    const { dests } = randomDestinations(r, b.dtype, b.shape, b.axis, sizes);
    if (dests.some((d) => d && numel(d.shape) > 0)) return placeSet(ctx, dests, 0, r);
  }
}

/** A destination fault: what, the code, the faulted `into`, and whether it fails only on the GPU (GPU_ERROR). */
export type IntoFault = Pick<Mutation, 'what' | 'code' | 'value' | 'gpu'>;

type Gen = (ctx: Ctx, s: IntoSet, i: number, r: Rng, input: GPUBuffer | undefined) => IntoFault | undefined;

const f = (what: string, code: SplitErrorCode, value: unknown, gpu = false): IntoFault => ({ what, code, value, gpu });

/** `s.into` with entry `i` replaced. */
const withEntry = (s: IntoSet, i: number, entry: unknown): unknown[] => s.into.map((d, k) => (k === i ? entry : d));
/** `s.into` with entry `i`'s field `key` set to `v`. */
const withField = (s: IntoSet, i: number, key: string, v: unknown) => withEntry(s, i, { ...s.into[i]!, [key]: v });

/** A buffer of `size` bytes and `usage`, freed after the case. */
function bufferOf(ctx: Ctx, size: number, usage = TENSOR_USAGE, device = ctx.device): GPUBuffer {
  const b = device.createBuffer({ size: Math.max(4, Math.ceil(size / 4) * 4), usage });
  ctx.made.push(b);
  return b;
}

const wholeFaults: Gen[] = [
  (_c, _s, _i, r) => {
    const [name, v] = pick(
      r,
      JUNK.filter(([n]) => n !== 'undefined'),
    );
    return f(`into: ${name}`, 'BAD_OPTIONS', v());
  },
  (_c, s) => f('into: one entry too few', 'BAD_OPTIONS', s.into.slice(1)),
  (_c, s) => f('into: one entry too many', 'BAD_OPTIONS', [...s.into, undefined]),
  (_c, s) => f('into: an array-like object', 'BAD_OPTIONS', { ...s.into, length: s.into.length }),
];

const entryFaults: Gen[] = [
  (_c, s, i, r) => {
    const [name, v] = pick<readonly [string, () => unknown]>(r, [
      ['null', () => null],
      ['a number', () => 5],
      ['a string', () => 'into'],
      ['a Symbol', () => Symbol('into')],
      ['true', () => true],
    ]);
    return f(`into[${i}]: ${name}`, 'BAD_INPUT', withEntry(s, i, v()));
  },
  (_c, s, i) => f(`into[${i}]: a Proxy whose every trap throws`, 'BAD_INPUT', withEntry(s, i, throwingProxy({}))),
  (_c, s, i) => f(`into[${i}]: a revoked Proxy`, 'BAD_INPUT', withEntry(s, i, revokedProxy())),
  (_c, s, i, r) => {
    const key = pick(r, ['dtype', 'shape', 'buffer', 'byteOffset', 'strides']);
    return f(
      `into[${i}].${key}: a getter that throws`,
      'BAD_INPUT',
      withEntry(s, i, throwingGetter({ ...s.into[i]! }, key)),
    );
  },
  (_c, s, i, r) => {
    const other = pick(
      r,
      GPU_DTYPES.filter((d) => d !== s.into[i]!.dtype),
    );
    return f(`into[${i}].dtype: another dtype (${other})`, 'BAD_DTYPE', withField(s, i, 'dtype', other));
  },
  (_c, s, i, r) => {
    const [name, v] = pick(r, [
      ['null', null],
      ["'float32 '", 'float32 '],
      ['a number', 1],
    ] as const);
    return f(`into[${i}].dtype: ${name}`, 'BAD_DTYPE', withField(s, i, 'dtype', v));
  },
  (_c, s, i, r) => {
    const shape = [...(s.into[i]!.shape as number[])];
    const k = int(r, 0, shape.length - 1);
    shape[k]! += 1;
    return f(`into[${i}].shape: one dimension longer than the output's`, 'BAD_SHAPE', withField(s, i, 'shape', shape));
  },
  (_c, s, i, r) => {
    const [name, v] = pick(r, [
      ['null', null],
      ['a number', 6],
      ['[-1]', [-1]],
    ] as const);
    return f(`into[${i}].shape: ${name}`, 'BAD_SHAPE', withField(s, i, 'shape', v));
  },
];

const bufferFaults: Gen[] = [
  (ctx, s, i, r) => {
    const [name, v] = pick<readonly [string, () => unknown]>(r, [
      ['null', () => null],
      ['an empty object', () => ({})],
      ['a typed array', () => new Uint8Array(64)],
      ['the GPUDevice', () => ctx.device],
    ]);
    return f(`into[${i}].buffer: ${name}`, 'BAD_INPUT', withField(s, i, 'buffer', v()));
  },
  (_c, s, i, _r, input) =>
    input && f(`into[${i}].buffer: the input's buffer`, 'BAD_INPUT', withField(s, i, 'buffer', input)),
  (ctx, s, i, r) => {
    const [name, usage] = pick(r, [
      ['MAP_READ | COPY_DST', MAP_READ | COPY_DST],
      ['COPY_DST only', COPY_DST],
      ['STORAGE | COPY_SRC, no COPY_DST', 0x80 | 0x4],
    ] as const);
    const buffer = bufferOf(ctx, (s.into[i]!.buffer as GPUBuffer).size, usage);
    return f(`into[${i}].buffer: usage ${name}`, 'BAD_INPUT', withField(s, i, 'buffer', buffer));
  },
  (_c, s, i, r) => {
    const [name, v] = pick(r, [
      ['2 (not a multiple of 4)', (s.into[i]!.byteOffset as number) + 2],
      ['-4', -4],
      ['NaN', NaN],
      ["a string '0'", '0'],
    ] as const);
    return f(`into[${i}].byteOffset: ${name}`, 'BAD_INPUT', withField(s, i, 'byteOffset', v));
  },
  (_c, s, i) => {
    const end = (s.into[i]!.buffer as GPUBuffer).size;
    return f(`into[${i}]: placed at its buffer's end`, 'DATA_LENGTH', withField(s, i, 'byteOffset', end));
  },
  (_c, s, i) => {
    const want = Math.ceil((numel(s.plan[i]!.shape) * widthOf(s.plan[i]!.dtype)) / 8);
    return f(
      `into[${i}].byteLength: one byte more than the output's`,
      'DATA_LENGTH',
      withField(s, i, 'byteLength', want + 1),
    );
  },
];

const strideFaults: Gen[] = [
  (_c, s, i) => {
    const strides = [...s.plan[i]!.strides, 1];
    return f(`into[${i}].strides: one entry too many`, 'BAD_SHAPE', withField(s, i, 'strides', strides));
  },
  (_c, s, i, r) => {
    const strides: unknown[] = [...s.plan[i]!.strides];
    strides[int(r, 0, strides.length - 1)] = pick(r, [-1, 0.5, '1', null]);
    return f(
      `into[${i}].strides: an entry that is not an integer >= 0`,
      'BAD_SHAPE',
      withField(s, i, 'strides', strides),
    );
  },
  (_c, s, i) => {
    const shape = s.plan[i]!.shape;
    if (numel(shape) < 2) return undefined; // strides of zero overlap only where two elements exist
    const strides = shape.map(() => 0);
    return f(`into[${i}].strides: all zero (elements meet)`, 'BAD_SHAPE', withField(s, i, 'strides', strides));
  },
];

const crossFaults: Gen[] = [
  (ctx, s, i, r) => {
    const others = s.plan.map((d, k) => (d && k !== i && numel(d.shape) > 0 ? k : -1)).filter((k) => k >= 0);
    if (others.length === 0) return undefined;
    const j = pick(r, others);
    const shared = bufferOf(ctx, Math.max(spanOf(s.plan[i]!), spanOf(s.plan[j]!)) + 8);
    const into = s.into.map((d, k) => (k === i || k === j ? { ...d!, buffer: shared, byteOffset: 0 } : d));
    return f(`into[${i}] and into[${j}]: the same bytes of one buffer`, 'BAD_INPUT', into);
  },
  (ctx, s, i, r) => {
    const d = s.plan[i]!;
    const t = ctx.e.upload(randomTensor(d.dtype as FixedDType, d.shape, r) as HostTensor<FixedDType>);
    ctx.e.release(t);
    return f(`into[${i}]: a released tensor of the output's form`, 'RELEASED', withEntry(s, i, { ...t }));
  },
];

/** Faults the GPU finds, after the call's CPU checks: prepared `split` only (encode records into your encoder). */
const gpuFaults: Gen[] = [
  (ctx, s, i) => {
    const gone = bufferOf(ctx, (s.into[i]!.buffer as GPUBuffer).size);
    gone.destroy();
    return f(`into[${i}].buffer: destroyed by the caller`, 'GPU_ERROR', withField(s, i, 'buffer', gone), true);
  },
  (ctx, s, i) => {
    const far = bufferOf(ctx, (s.into[i]!.buffer as GPUBuffer).size, TENSOR_USAGE, ctx.foreign);
    return f(`into[${i}].buffer: a buffer of another GPUDevice`, 'GPU_ERROR', withField(s, i, 'buffer', far), true);
  },
];

/**
 * One fault of a valid destination set; `input` is the input's buffer (for the fault that names it), `gpu` allows
 * faults the GPU finds. Entry faults fall on a non-empty output that has a destination.
 */
export function intoFault(ctx: Ctx, s: IntoSet, r: Rng, input: GPUBuffer | undefined, gpu: boolean): IntoFault {
  const placed = s.plan.map((d, k) => (d && numel(d.shape) > 0 ? k : -1)).filter((k) => k >= 0);
  const gens = [
    ...wholeFaults,
    ...entryFaults,
    ...bufferFaults,
    ...bufferFaults,
    ...strideFaults,
    ...crossFaults,
    ...(gpu ? gpuFaults : []),
  ];
  for (;;) {
    const out = pick(r, gens)(ctx, s, pick(r, placed), r, input);
    if (out) return out;
  }
}

/** Strides other than the prepared ones for destination `i` of `s` (each doubled), in a buffer big enough for them. */
export function restrided(ctx: Ctx, s: IntoSet, i: number): unknown[] {
  const d = s.plan[i]!;
  const strides = d.strides.map((x) => 2 * x);
  const buffer = bufferOf(ctx, spanOf({ ...d, strides }) + 8);
  return withEntry(s, i, { ...s.into[i]!, buffer, byteOffset: 0, strides });
}
