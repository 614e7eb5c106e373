// The 11 OpenVINO-only dtypes (three byte-wide float8 types, eight packed sub-byte ones)
// split on the GPU (host in/out; GPU-resident with layout 'shared' and 'separate'; engine.run of a
// VariadicSplit node with host and GPU data) and on the CPU backend, every output compared with two
// references that share no code with Cleave or with each other: test/helpers/packed.ts (bit
// arithmetic, one value at a time) and its model on strings of '0'/'1' characters. Widths come
// from test/helpers/dtypes.ts and bit orders from OpenVINO's layout, never from src/dtype.ts.
import { describe, expect, test } from 'vitest';
import {
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  type SplitNode,
  SplitError,
  createSplitEngine,
  inferShapes,
  resolveNode,
} from '../../src/index.js';
import { ParamsBuilder, hashParams, int, randomSizes, randomTensor, rng } from '../helpers/cases.js';
import { REF_TYPES, align4, numel } from '../helpers/dtypes.js';
import { downloadAll } from '../helpers/download.js';
import { gatherDispatches } from '../helpers/gpu-work.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import { isPackedType, streamOf, stringSplit } from '../helpers/packed.js';
import { referenceSplit } from '../helpers/reference.js';
import { SHADER_VARIANTS } from '../../src/gpu/pipelines.js';

const OV_TYPES = [
  'float8e4m3fn',
  'float8e5m2',
  'float8e8m0',
  'int4',
  'uint4',
  'nf4',
  'float4e2m1',
  'uint1',
  'uint2',
  'uint3',
  'uint6',
] as const;
type OvType = (typeof OV_TYPES)[number];
const WIDTH = (d: OvType) => REF_TYPES[d].bits;
const msbFirst = (d: OvType) => d === 'uint1';
const packedBytes = (d: OvType, n: number) => Math.ceil((n * WIDTH(d)) / 8);

/** Both references, checked against each other first: a disagreement there is a bug in the tests. */
function expectedSplit(
  d: OvType,
  shape: readonly number[],
  bytes: Uint8Array,
  axis: number,
  sizes: readonly number[],
): Uint8Array[] {
  const a = referenceSplit({ dtype: d, shape, data: bytes }, axis, sizes) as Uint8Array[];
  const b = stringSplit(d, shape, bytes, axis, sizes);
  expect(a.map(hex), `${d} [${shape.join(',')}] axis ${axis}: the two references agree`).toEqual(b.map(hex));
  return b;
}

// ---------------------------------------------------------------------------------------------
// Checks

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** The bits of the last byte past numel * w (0 when there are none). */
function unusedBits(d: OvType, bytes: Uint8Array, numel: number): number {
  const pad = bytes.length * 8 - numel * WIDTH(d);
  if (pad === 0 || bytes.length === 0) return 0;
  const last = bytes[bytes.length - 1]!;
  return msbFirst(d) ? last & ((1 << pad) - 1) : last >> (8 - pad);
}

interface Case {
  readonly dtype: OvType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly sizes: readonly number[];
}

const axisOf = (c: Case) => (c.axis < 0 ? c.axis + c.shape.length : c.axis);
const outShape = (c: Case, i: number) => c.shape.map((n, k) => (k === axisOf(c) ? c.sizes[i]! : n));
const label = (c: Case) =>
  `${c.dtype} [${c.shape.join(',')}] axis ${c.axis} ${c.sizes.length > 12 ? `${c.sizes.length} outputs` : `[${c.sizes.join(',')}]`}`;

/** Output bytes against the references: length, unused bits zero, then every byte. */
function expectBytes(c: Case, got: readonly Uint8Array[], want: readonly Uint8Array[], where: string): void {
  expect(got.length, `${where}: output count`).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const n = numel(outShape(c, i));
    if (
      got[i]!.length !== want[i]!.length ||
      unusedBits(c.dtype, got[i]!, n) !== 0 ||
      Buffer.compare(got[i]!, want[i]!) !== 0
    ) {
      expect(
        { output: i, length: got[i]!.length, unusedBits: unusedBits(c.dtype, got[i]!, n), bytes: hex(got[i]!) },
        `${where}: output ${i}`,
      ).toEqual({ output: i, length: want[i]!.length, unusedBits: 0, bytes: hex(want[i]!) });
    }
  }
}

function hostBytes(c: Case, outs: readonly HostTensor[], where: string): Uint8Array[] {
  expect(outs.length, `${where}: output count`).toBe(c.sizes.length);
  return outs.map((o, i) => {
    if (
      o.dtype !== c.dtype ||
      !sameShape(o.shape, outShape(c, i)) ||
      Object.prototype.toString.call(o.data) !== '[object Uint8Array]'
    ) {
      expect(
        { dtype: o.dtype, shape: o.shape, data: Object.prototype.toString.call(o.data) },
        `${where}: output ${i}`,
      ).toEqual({ dtype: c.dtype, shape: outShape(c, i), data: '[object Uint8Array]' });
    }
    return o.data as Uint8Array;
  });
}

const sameShape = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * dtype, shape, byteLength = ceil(numel * w / 8); 'separate': offset 0 in a buffer of that length
 * rounded up to 4; 'shared': an aligned offset in the one buffer all non-empty outputs share, inside it.
 */
function checkGpuOutputs(
  c: Case,
  outs: readonly GpuTensor[],
  layout: 'shared' | 'separate',
  alignment: number,
  where: string,
): void {
  expect(outs.length, `${where}: output count`).toBe(c.sizes.length);
  const shared = outs.find((o) => o.byteLength > 0)?.buffer;
  outs.forEach((o, i) => {
    const byteLength = packedBytes(c.dtype, numel(outShape(c, i)));
    const got = {
      dtype: o.dtype,
      shape: o.shape,
      byteLength: o.byteLength,
      byteOffset: o.byteOffset,
      buffer:
        layout === 'separate'
          ? o.buffer.size
          : o.byteLength > 0 && (o.buffer !== shared || o.byteOffset + o.byteLength > o.buffer.size)
            ? 'not inside the shared buffer'
            : 'inside the shared buffer',
    };
    const want = {
      dtype: c.dtype,
      shape: outShape(c, i),
      byteLength,
      // shared: an aligned offset (an empty output's offset is free)
      byteOffset:
        layout === 'separate' ? 0 : byteLength === 0 ? o.byteOffset : Math.ceil(o.byteOffset / alignment) * alignment,
      buffer: layout === 'separate' ? align4(byteLength) : 'inside the shared buffer',
    };
    if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `${where}: output ${i}`).toEqual(want);
  });
}

/** Downloads every output: engine.download of each one (fewer than 64), else one download of each buffer, sliced. */
async function downloadOutputs(e: SplitEngine, outs: readonly GpuTensor[]): Promise<Uint8Array[]> {
  const hosts = outs.length < 64 ? await Promise.all(outs.map((o) => e.download(o))) : await downloadAll(e, outs);
  return hosts.map((h) => h.data as Uint8Array);
}

/**
 * Whether a chunk boundary falls inside a byte: a split with two or more non-empty chunks where a
 * row of some chunk starts or ends off a byte boundary. Only the bit-level variant can do those.
 */
function boundaryInsideByte(c: Case): boolean {
  if (c.sizes.filter((s) => s > 0).length < 2) return false;
  const ax = axisOf(c);
  const outer = numel(c.shape.slice(0, ax));
  const inner = numel(c.shape.slice(ax + 1));
  const dim = c.shape[ax]!;
  let start = 0;
  for (const size of c.sizes) {
    for (let o = 0; o < outer && size > 0; o++) {
      const bit = (o * dim + start) * inner * WIDTH(c.dtype);
      if (bit % 8 !== 0 || (bit + size * inner * WIDTH(c.dtype)) % 8 !== 0) return true;
    }
    start += size;
  }
  return false;
}

/**
 * One dispatch of the bit-level variant for every output (shared layout: one target buffer), or, with layout
 * 'separate' (each output straight into its own buffer), one per group of six output buffers that has anything to
 * write (the gather binds six targets a dispatch); never a copy after it.
 */
function expectBitVariant(e: SplitEngine, c: Case, where: string, separate = false): void {
  const ax = axisOf(c);
  const rows = numel(c.shape.slice(0, ax)) * numel(c.shape.slice(ax + 1));
  const dispatches = separate ? gatherDispatches(c.sizes.map((n) => n * rows > 0)) : 1;
  if (boundaryInsideByte(c)) {
    const { strategy, unitBits, copies } = e.stats;
    expect(
      { strategy, unitBits, dispatches: e.stats.dispatches, copies },
      `${where}: the bit-level variant, a dispatch per six buffers`,
    ).toEqual({
      strategy: 'gather',
      unitBits: 1,
      dispatches,
      copies: 0,
    });
  } else {
    const { strategy } = e.stats;
    expect(strategy, where).not.toBe('cpu');
    expect(e.stats.dispatches, `${where}: at most one dispatch per six buffers`).toBeLessThanOrEqual(dispatches);
  }
}

// ---------------------------------------------------------------------------------------------
// Running one case every way

const cpu = await createSplitEngine({ backend: 'cpu' });

const INT_PARAM = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  int32: Int32Array,
  uint32: Uint32Array,
} as const;

/** VariadicSplit's axis and split_lengths tensors, with a -1 in place of one length; dtypes vary with the seed. */
function variadicParams(c: Case, seed: number): [HostTensor, HostTensor] {
  const next = rng(seed);
  const minus = int(next, 0, c.sizes.length - 1);
  const lengths = c.sizes.map((s, i) => (i === minus ? -1 : s));
  const axisKinds = ['int64', 'int32', 'uint8', 'int8'] as const;
  const ak = axisKinds[int(next, 0, axisKinds.length - 1)]!;
  const axisValue = ak === 'uint8' ? axisOf(c) : c.axis;
  const scalar = next() < 0.5;
  const axis =
    ak === 'int64'
      ? { dtype: 'int64', shape: scalar ? [] : [1], data: BigInt64Array.of(BigInt(axisValue)) }
      : { dtype: ak, shape: scalar ? [] : [1], data: INT_PARAM[ak].of(axisValue) };
  const big = Math.max(...c.sizes) > 127;
  const lk = big || next() < 0.5 ? (next() < 0.5 ? 'int64' : 'int32') : 'int8';
  const lens =
    lk === 'int64'
      ? { dtype: 'int64', shape: [lengths.length], data: BigInt64Array.from(lengths, BigInt) }
      : { dtype: lk, shape: [lengths.length], data: INT_PARAM[lk].from(lengths) };
  return [axis as HostTensor, lens as HostTensor];
}

interface Ways {
  readonly host?: boolean;
  readonly shared?: boolean;
  readonly separate?: boolean;
  readonly run?: boolean;
}

/** CPU backend, GPU host in/out, GPU-resident shared and separate, VariadicSplit on host and GPU data: all against the references. */
async function checkEveryWay(
  g: GpuFixture,
  e: SplitEngine,
  c: Case,
  x: HostTensor,
  seed: number,
  ways: Ways = {},
): Promise<void> {
  const { host = true, shared = true, separate = true, run = true } = ways;
  const bytes = x.data as Uint8Array;
  const want = expectedSplit(c.dtype, c.shape, bytes, c.axis, c.sizes);
  const opts = { axis: c.axis, sizes: c.sizes };
  const name = label(c);
  const alignment = g.device.limits.minStorageBufferOffsetAlignment;

  expectBytes(c, hostBytes(c, await cpu.split(x, opts), `${name} CPU backend`), want, `${name} CPU backend`);
  if (host) {
    expectBytes(c, hostBytes(c, await e.split(x, opts), `${name} GPU host`), want, `${name} GPU host`);
    expectBitVariant(e, c, `${name} GPU host`);
  }
  for (const layout of [shared && 'shared', separate && 'separate'] as const) {
    if (!layout) continue;
    const where = `${name} GPU-resident ${layout}`;
    const gx = e.upload(x as HostTensor<OvType>);
    expect(gx.byteLength, `${where}: uploaded byteLength`).toBe(packedBytes(c.dtype, numel(c.shape)));
    const outs: GpuTensor[] = await e.split(gx, { ...opts, layout });
    if (layout === 'separate' || e.stats.strategy !== 'alias') expectBitVariant(e, c, where, layout === 'separate');
    checkGpuOutputs(c, outs, layout, alignment, where);
    expectBytes(c, await downloadOutputs(e, outs), want, where);
    for (const o of outs) e.release(o);
    e.release(gx);
  }
  if (run) {
    const [axisT, lengthsT] = variadicParams(c, seed);
    const where = `${name} VariadicSplit (lengths [${Array.from(lengthsT.data as ArrayLike<number | bigint>)
      .slice(0, 12)
      .join(',')}])`;
    const node = { op: 'VariadicSplit', inputs: [x, axisT, lengthsT] } as const;
    expect(inferShapes(node), `${where}: inferShapes`).toEqual(
      c.sizes.map((_, i) => ({ dtype: c.dtype, shape: outShape(c, i) })),
    );
    expectBytes(c, hostBytes(c, await cpu.run(node), `${where} CPU`), want, `${where} CPU`);
    expectBytes(c, hostBytes(c, await e.run(node), `${where} GPU host`), want, `${where} GPU host`);
    const gx = e.upload(x as HostTensor<OvType>);
    const layout = seed % 2 === 0 ? 'shared' : 'separate';
    const outs = await e.run({ op: 'VariadicSplit', inputs: [gx, axisT, lengthsT] }, { layout });
    if (e.stats.strategy !== 'alias') checkGpuOutputs(c, outs, layout, alignment, `${where} GPU-resident ${layout}`);
    expectBytes(c, await downloadOutputs(e, outs), want, `${where} GPU-resident ${layout}`);
    for (const o of outs) e.release(o);
    e.release(gx);
  }
}

/** The input's unused bits (past numel * w in its last byte) all set: garbage that must not leak. */
function withGarbageTail(d: OvType, x: HostTensor): HostTensor {
  const bytes = (x.data as Uint8Array).slice();
  const pad = bytes.length * 8 - numel(x.shape) * WIDTH(d);
  if (pad > 0) bytes[bytes.length - 1] |= msbFirst(d) ? (1 << pad) - 1 : (0xff << (8 - pad)) & 0xff;
  return { dtype: d, shape: [...x.shape], data: bytes } as HostTensor;
}

/** The same tensor with its unused bits cleared (a well-formed OpenVINO tensor). */
function withCleanTail(d: OvType, x: HostTensor): HostTensor {
  const bytes = (x.data as Uint8Array).slice();
  const pad = bytes.length * 8 - numel(x.shape) * WIDTH(d);
  if (pad > 0) bytes[bytes.length - 1] &= msbFirst(d) ? (0xff << pad) & 0xff : 0xff >> pad;
  return { dtype: d, shape: [...x.shape], data: bytes } as HostTensor;
}

// ---------------------------------------------------------------------------------------------
// Cases

/** A random case: rank 1 to 4, odd and even dimensions, any axis (negative too), zero-length chunks. */
function randomCase(dtype: OvType, seed: number): Case {
  const next = rng(seed);
  const rank = int(next, 1, 4);
  const maxDim = [0, 70, 23, 9, 6][rank]!;
  const shape = Array.from({ length: rank }, () => int(next, 1, maxDim));
  if (next() < 0.05) shape[int(next, 0, rank - 1)] = 0; // an empty tensor now and then
  const axis = int(next, -rank, rank - 1);
  const dim = shape[axis < 0 ? axis + rank : axis]!;
  const sizes = randomSizes(dim, int(next, 1, Math.min(dim + 2, 9)), next);
  return { dtype, shape, axis, sizes };
}

const RANDOM_PER_TYPE = 14;
/**
 * 4096 outputs in 4096 separate buffers cost ~2.7 s a type on SwiftShader: only the two widths whose
 * chunks start at every bit phase (the other types take layout 'separate' in every other test).
 */
const SEPARATE_4096: readonly OvType[] = ['uint1', 'uint3'];

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Chunk boundaries at every bit phase a type can reach: chunks of m values with m * w = g (mod 32),
 * g = gcd(w, 32), start at bits j * g (mod 32) for every j (mod 8 too: every phase 0..7 for uint1
 * and uint3, the even ones for uint2 and uint6, ...). Short chunks (m) and chunks spanning more
 * words (m + 32/g); one row, three strided rows, and rows with an inner dimension of 3.
 */
function phaseCases(dtype: OvType): Case[] {
  const w = WIDTH(dtype);
  const g = gcd(w, 32);
  const n = 32 / g;
  let m = 1;
  while ((m * w) % 32 !== g) m++;
  const out: Case[] = [];
  for (const len of [m, m + n]) {
    const sizes = [...Array<number>(n + 1).fill(len), 1];
    const dim = (n + 1) * len + 1;
    out.push({ dtype, shape: [dim], axis: 0, sizes });
    out.push({ dtype, shape: [3, dim], axis: 1, sizes });
    out.push({ dtype, shape: [2, dim, 3], axis: -2, sizes });
  }
  return out;
}

/** Chunk start phases of a case (bit position mod 32 of each non-empty chunk's first row). */
function startPhases(c: Case): Set<number> {
  const ax = axisOf(c);
  const inner = numel(c.shape.slice(ax + 1));
  const phases = new Set<number>();
  let start = 0;
  for (const s of c.sizes) {
    if (s > 0) phases.add((start * inner * WIDTH(c.dtype)) % 32);
    start += s;
  }
  return phases;
}

const DIM = 13;
const PATTERNS: Readonly<Record<string, (d: number) => number[]>> = {
  uneven: (d) => [1, d - 4, 3],
  zeroLength: (d) => [0, d - 2, 0, 2, 0],
  single: (d) => [d],
  ones: (d) => Array<number>(d).fill(1),
  allButLast: (d) => [d, 0],
};

const axisCases = ParamsBuilder.start()
  .combine('dtype', OV_TYPES)
  .combine('axis', ['first', 'middle', 'last'] as const)
  .combine('pattern', Object.keys(PATTERNS))
  .cases.map((p): Case => ({
    dtype: p.dtype,
    shape: p.axis === 'first' ? [DIM, 3, 5] : p.axis === 'middle' ? [2, DIM, 3] : [3, 1, 2, DIM],
    axis: p.axis === 'first' ? 0 : p.axis === 'middle' ? 1 : -1,
    sizes: PATTERNS[p.pattern]!(DIM),
  }));

/** 4096 outputs: one value each; two strided rows each, lengths random (zeros among them); three values each. */
function manyOutputCases(dtype: OvType): Case[] {
  return [
    { dtype, shape: [4096], axis: 0, sizes: Array<number>(4096).fill(1) },
    { dtype, shape: [2, 4099], axis: 1, sizes: randomSizes(4099, 4096, rng(hashParams({ dtype, many: 2 }))) },
    { dtype, shape: [4096, 3], axis: 0, sizes: Array<number>(4096).fill(1) },
  ];
}

// ---------------------------------------------------------------------------------------------
// Tests

describe('the references', () => {
  // Hand-packed bytes, one example per bit order and for values that straddle bytes.
  const HAND: readonly [OvType, number[], number[], number[], string[]][] = [
    // uint4 [1, 2, 3], LSB-first: value 0 in the low nibble of byte 0.
    ['uint4', [0x21, 0x03], [3], [1, 2], ['01', '32']],
    // uint1 [1, 0, 1, 1, 0, 0, 0, 0, 1], MSB-first: value 0 is bit 7 of byte 0.
    ['uint1', [0xb0, 0x80], [9], [3, 6], ['a0', '84']],
    // uint3 [5, 3, 7]: value 2 straddles bytes 0 and 1.
    ['uint3', [0xdd, 0x01], [3], [1, 2], ['05', '3b']],
    // uint6 [0x2a, 0x15]: value 1 straddles bytes 0 and 1.
    ['uint6', [0x6a, 0x05], [2], [1, 1], ['2a', '15']],
    // uint2 [3, 0, 1, 2, 1] into an empty chunk, [3, 0, 1] and [2, 1].
    ['uint2', [0b10010011, 0b01], [5], [0, 3, 2], ['', '13', '06']],
    // float8: whole bytes.
    ['float8e5m2', [0x7f, 0x80, 0x01], [3], [2, 1], ['7f80', '01']],
  ];
  test.each(HAND)('%s %j split %j %j', (d, bytes, shape, sizes, want) => {
    expect(stringSplit(d, shape, Uint8Array.from(bytes), 0, sizes).map(hex)).toEqual(want);
    expect(expectedSplit(d, shape, Uint8Array.from(bytes), 0, sizes).map(hex)).toEqual(want);
  });

  test('unused input bits are ignored by both references; outputs have them zero', () => {
    for (const d of OV_TYPES) {
      const x = randomTensor(d, [3, 7], rng(hashParams({ d })));
      const clean = expectedSplit(d, [3, 7], withCleanTail(d, x).data as Uint8Array, 1, [2, 5]);
      const dirty = expectedSplit(d, [3, 7], withGarbageTail(d, x).data as Uint8Array, 1, [2, 5]);
      expect(dirty.map(hex), d).toEqual(clean.map(hex));
      clean.forEach((o, i) => expect(unusedBits(d, o, 3 * [2, 5][i]!), d).toBe(0));
    }
  });
});

describe.each(OV_TYPES)('%s', (dtype) => {
  const random = Array.from({ length: RANDOM_PER_TYPE }, (_, k) => ({
    c: randomCase(dtype, hashParams({ dtype, k })),
    seed: hashParams({ dtype, k, data: 1 }),
  }));
  gpuTest(`randomized differential: ${RANDOM_PER_TYPE} seeded cases, rank 1-4, every path`, async (g) => {
    const e = await g.engine();
    for (const { c, seed } of random) await checkEveryWay(g, e, c, randomTensor(dtype, c.shape, rng(seed)), seed);
  });

  gpuTest('axes first, middle and last: uneven, zero-length, single, one-per-value, all-but-empty-last', async (g) => {
    const e = await g.engine();
    for (const [k, c] of axisCases.filter((c) => c.dtype === dtype).entries()) {
      const seed = hashParams({ ...c, k });
      await checkEveryWay(g, e, c, randomTensor(dtype, c.shape, rng(seed)), seed);
    }
  });

  gpuTest('chunk boundaries at every bit phase (mod 8 and mod 32), across word boundaries', async (g) => {
    const e = await g.engine();
    const g32 = gcd(WIDTH(dtype), 32);
    for (const c of phaseCases(dtype)) {
      // The generator's own claim: every reachable phase mod 32 (multiples of gcd(w, 32)) is a chunk start.
      expect(
        [...startPhases(c)].sort((a, b) => a - b),
        label(c),
      ).toEqual(Array.from({ length: 32 / g32 }, (_, j) => j * g32));
      const seed = hashParams({ ...c });
      await checkEveryWay(g, e, c, randomTensor(dtype, c.shape, rng(seed)), seed);
    }
  });

  gpuTest('rows of about 1200 and 780 bits, outputs over 1024 words: lanes step across row ends', async (g) => {
    // A tile of 2048 destination words takes two passes of the workgroup's 256 lanes, 4 words each:
    // every lane's second group lies 32768 bits on, some rows further, at another column.
    const e = await g.engine();
    const [a, b] = [Math.ceil(1203 / WIDTH(dtype)), Math.ceil(777 / WIDTH(dtype))];
    const c: Case = { dtype, shape: [48, a + b], axis: 1, sizes: [a, b] };
    const seed = hashParams({ ...c });
    await checkEveryWay(g, e, c, randomTensor(dtype, c.shape, rng(seed)), seed, { run: false });
  });

  gpuTest('4096 outputs', async (g) => {
    const e = await g.engine();
    for (const c of manyOutputCases(dtype)) {
      const seed = hashParams({ ...c, sizes: c.sizes.length });
      await checkEveryWay(g, e, c, randomTensor(dtype, c.shape, rng(seed)), seed, {
        separate: SEPARATE_4096.includes(dtype),
      });
    }
  });
});

// ---------------------------------------------------------------------------------------------

const PACKED = OV_TYPES.filter((d) => WIDTH(d) < 8);

/** Shapes with unused bits in the last byte for every packed width, and splits whose last chunk holds the end. */
const GARBAGE_CASES: readonly Omit<Case, 'dtype'>[] = [
  { shape: [7], axis: 0, sizes: [3, 4] },
  { shape: [7], axis: 0, sizes: [7] },
  { shape: [7], axis: 0, sizes: [6, 1, 0] },
  { shape: [3, 5], axis: 1, sizes: [2, 3] },
  { shape: [3, 5], axis: 0, sizes: [1, 2] },
  { shape: [5, 3], axis: -1, sizes: [0, 1, 2] },
  { shape: [2, 3, 3], axis: 1, sizes: [1, 1, 1] },
  { shape: [1, 1, 1, 11], axis: 3, sizes: [5, 5, 1] },
];

/** A GPU tensor at `byteOffset` in a buffer of its own whose other bytes are all 0xff. */
function callerTensor(
  device: GPUDevice,
  d: OvType,
  shape: readonly number[],
  bytes: Uint8Array,
  byteOffset: number,
): GpuTensor {
  const buffer = device.createBuffer({
    size: align4(byteOffset + bytes.length + 7),
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    mappedAtCreation: true,
  });
  const m = new Uint8Array(buffer.getMappedRange());
  m.fill(0xff);
  m.set(bytes, byteOffset);
  buffer.unmap();
  return { dtype: d, shape: [...shape], buffer, byteOffset, byteLength: bytes.length } as GpuTensor;
}

describe('garbage never leaks', () => {
  gpuTest(
    'inputs whose unused trailing bits are all ones: every output of every path has its own unused bits zero',
    async (g) => {
      const e = await g.engine();
      for (const dtype of PACKED) {
        for (const [k, base] of GARBAGE_CASES.entries()) {
          const c = { ...base, dtype };
          const x = withGarbageTail(dtype, randomTensor(dtype, c.shape, rng(hashParams({ ...c, k }))));
          if ((numel(c.shape) * WIDTH(dtype)) % 8 !== 0) {
            expect(
              unusedBits(dtype, x.data as Uint8Array, numel(c.shape)),
              `${label(c)}: the input really has garbage`,
            ).not.toBe(0);
          }
          await checkEveryWay(g, e, c, x, k);
        }
      }
    },
  );

  gpuTest(
    "GPU inputs inside a caller's buffer of 0xff bytes, at byte offsets 0 to 5, 256 and 257: nothing outside the tensor leaks",
    async (g) => {
      const e = await g.engine();
      for (const dtype of OV_TYPES) {
        for (const byteOffset of [0, 1, 2, 3, 4, 5, 256, 257]) {
          for (const [k, base] of GARBAGE_CASES.entries()) {
            if (k % 2 !== byteOffset % 2) continue; // half the cases per offset keeps this fast
            const c = { ...base, dtype };
            const x = withGarbageTail(dtype, randomTensor(dtype, c.shape, rng(hashParams({ ...c, byteOffset }))));
            const want = expectedSplit(dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes);
            const gx = callerTensor(g.device, dtype, c.shape, x.data as Uint8Array, byteOffset);
            expect(hex((await e.download(gx)).data as Uint8Array), `${label(c)} at ${byteOffset}: download`).toBe(
              hex(x.data as Uint8Array),
            );
            for (const [layout, alias] of [
              ['shared', 'none'],
              ['shared', 'any'],
              ['separate', 'owned'],
            ] as const) {
              const where = `${label(c)} in a caller's buffer at byte ${byteOffset}, layout ${layout}, alias ${alias}`;
              const outs = await e.split(gx, { axis: c.axis, sizes: c.sizes, layout, alias });
              if (e.stats.strategy !== 'alias')
                checkGpuOutputs(c, outs, layout, g.device.limits.minStorageBufferOffsetAlignment, where);
              expectBytes(c, await downloadOutputs(e, outs), want, where);
              for (const o of outs) e.release(o);
            }
            gx.buffer.destroy();
          }
        }
      }
    },
  );

  gpuTest(
    'output buffers reused from the pool full of ones: a later split writes zeros where its values and unused bits are zero',
    async (g) => {
      const e = await g.engine();
      let splits = 0;
      let reused = 0;
      for (const dtype of PACKED) {
        for (const base of GARBAGE_CASES) {
          const c = { ...base, dtype };
          const n = packedBytes(dtype, numel(c.shape));
          const ones = { dtype, shape: [...c.shape], data: new Uint8Array(n).fill(0xff) } as HostTensor<OvType>;
          const zeros = { dtype, shape: [...c.shape], data: new Uint8Array(n) } as HostTensor<OvType>;
          const want = expectedSplit(dtype, c.shape, zeros.data, c.axis, c.sizes);
          for (const layout of ['shared', 'separate'] as const) {
            const where = `${label(c)} ${layout}`;
            const g1 = e.upload(ones);
            const first = await e.split(g1, { axis: c.axis, sizes: c.sizes, layout, alias: 'none' });
            const used = new Set([g1.buffer, ...first.map((o) => o.buffer)]);
            for (const o of [...first, g1]) e.release(o);
            const g2 = e.upload(zeros);
            const second = await e.split(g2, { axis: c.axis, sizes: c.sizes, layout, alias: 'none' });
            splits++;
            if (second.some((o) => used.has(o.buffer))) reused++;
            expectBytes(c, await downloadOutputs(e, second), want, where);
            for (const o of [...second, g2]) e.release(o);
          }
          // Host in/out: the staging and output buffers are pooled too.
          await e.split(ones, { axis: c.axis, sizes: c.sizes });
          expectBytes(
            c,
            hostBytes(c, await e.split(zeros, { axis: c.axis, sizes: c.sizes }), label(c)),
            want,
            `${label(c)} host`,
          );
        }
      }
      // The test means something only if outputs really landed in buffers that held ones.
      expect(reused, `splits whose outputs reused a buffer that held ones, of ${splits}`).toBeGreaterThan(splits / 2);
    },
  );
});

describe('more ways in', () => {
  gpuTest('host data viewed inside a larger buffer of 0xff bytes: only the view is read', async (g) => {
    const e = await g.engine();
    for (const dtype of OV_TYPES) {
      for (const [k, base] of GARBAGE_CASES.entries()) {
        const c = { ...base, dtype };
        const x = withGarbageTail(dtype, randomTensor(dtype, c.shape, rng(hashParams({ ...c, k, view: 1 }))));
        const bytes = x.data as Uint8Array;
        const big = new Uint8Array(bytes.length + 2 * k + 9).fill(0xff);
        big.set(bytes, k + 3);
        const view = { dtype, shape: c.shape, data: big.subarray(k + 3, k + 3 + bytes.length) } as HostTensor;
        await checkEveryWay(g, e, c, view, k, { run: k % 2 === 0 });
      }
    }
  });

  gpuTest(
    "options as 'parts', negative axes, VariadicSplit lengths ending in -1 that is 0, empty tensors",
    async (g) => {
      const e = await g.engine();
      for (const dtype of OV_TYPES) {
        const x = randomTensor(dtype, [5, 7], rng(hashParams({ dtype, parts: 1 })));
        const c: Case = { dtype, shape: [5, 7], axis: -1, sizes: [3, 3, 1] };
        const want = expectedSplit(dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes);
        expectBytes(
          c,
          hostBytes(c, await e.split(x, { axis: -1, parts: 3 }), `${label(c)} parts 3`),
          want,
          `${label(c)} parts 3`,
        );
        expectBytes(
          c,
          hostBytes(c, await cpu.split(x, { axis: -1, parts: 3 }), `${label(c)} parts 3 CPU`),
          want,
          `${label(c)} parts 3 CPU`,
        );
        const gx = e.upload(x as HostTensor<OvType>);
        const outs = await e.split(gx, { axis: -1, parts: 3 });
        expectBytes(c, await downloadOutputs(e, outs), want, `${label(c)} parts 3 GPU-resident`);
        for (const o of [...outs, gx]) e.release(o);

        const lengths = { dtype: 'int32', shape: [2], data: Int32Array.of(5, -1) } as const;
        const axis0 = { dtype: 'int64', shape: [], data: BigInt64Array.of(-2n) } as const;
        const all: Case = { dtype, shape: [5, 7], axis: 0, sizes: [5, 0] };
        const wantAll = expectedSplit(dtype, all.shape, x.data as Uint8Array, 0, all.sizes);
        expectBytes(
          all,
          hostBytes(all, await e.run({ op: 'VariadicSplit', inputs: [x, axis0, lengths] }), label(all)),
          wantAll,
          `${label(all)} -1 = 0`,
        );

        for (const [shape, axis, sizes] of [
          [[3, 0], 0, [1, 2]],
          [[0], 0, [0, 0]],
          [[2, 0, 3], 1, [0]],
          [[0, 4], 1, [1, 3]],
        ] as const) {
          const ce: Case = { dtype, shape, axis, sizes };
          const xe = randomTensor(dtype, shape, rng(1));
          await checkEveryWay(g, e, ce, xe, 1, { run: sizes.length > 0 });
        }
      }
    },
  );

  gpuTest(
    'uint1 and uint2 splits with the same bit regions, in turn and at once: each keeps its bit order',
    async (g) => {
      const e = await g.engine();
      // uint2 [32] into [3, 29] and uint1 [64] into [6, 58] are the same regions of bits.
      const a: Case = { dtype: 'uint2', shape: [32], axis: 0, sizes: [3, 29] };
      const b: Case = { dtype: 'uint1', shape: [64], axis: 0, sizes: [6, 58] };
      const xa = randomTensor('uint2', a.shape, rng(1));
      const xb = randomTensor('uint1', b.shape, rng(2));
      const wa = expectedSplit('uint2', a.shape, xa.data as Uint8Array, 0, a.sizes);
      const wb = expectedSplit('uint1', b.shape, xb.data as Uint8Array, 0, b.sizes);
      const oa = { axis: 0, sizes: a.sizes };
      const ob = { axis: 0, sizes: b.sizes };
      for (let round = 0; round < 2; round++) {
        expectBytes(a, hostBytes(a, await e.split(xa, oa), 'uint2'), wa, 'uint2');
        expectBytes(b, hostBytes(b, await e.split(xb, ob), 'uint1'), wb, 'uint1');
      }
      const [ra, rb, ra2, rb2] = await Promise.all([
        e.split(xa, oa),
        e.split(xb, ob),
        e.split(xa, oa),
        e.split(xb, ob),
      ]);
      for (const [c, r, w] of [
        [a, ra, wa],
        [b, rb, wb],
        [a, ra2, wa],
        [b, rb2, wb],
      ] as const)
        expectBytes(c, hostBytes(c, r, c.dtype), w, `${c.dtype} at once`);
    },
  );

  gpuTest('many splits of every type in flight at once on one engine, host and GPU-resident', async (g) => {
    const e = await g.engine();
    const jobs = OV_TYPES.flatMap((dtype) =>
      [0, 1, 2].map((k) => {
        const c = randomCase(dtype, hashParams({ dtype, k, flight: 1 }));
        return { c, x: randomTensor(dtype, c.shape, rng(hashParams({ dtype, k, flight: 2 }))) };
      }),
    );
    const results = await Promise.all(
      jobs.map(async ({ c, x }, i) => {
        if (i % 2 === 0) return hostBytes(c, await e.split(x, { axis: c.axis, sizes: c.sizes }), label(c));
        const gx = e.upload(x as HostTensor<OvType>);
        const outs = await e.split(gx, { axis: c.axis, sizes: c.sizes, layout: i % 4 === 1 ? 'separate' : 'shared' });
        const bytes = await downloadOutputs(e, outs);
        for (const o of [...outs, gx]) e.release(o);
        return bytes;
      }),
    );
    jobs.forEach(({ c, x }, i) =>
      expectBytes(
        c,
        results[i]!,
        expectedSplit(c.dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes),
        `${label(c)} in flight`,
      ),
    );
  });

  gpuTest('a split of a split: GPU-resident outputs (bit-level, at aligned offsets) split again', async (g) => {
    const e = await g.engine();
    for (const dtype of OV_TYPES) {
      const c: Case = { dtype, shape: [3, 29], axis: 1, sizes: [5, 13, 11] };
      const x = randomTensor(dtype, c.shape, rng(hashParams({ ...c })));
      const gx = e.upload(x as HostTensor<OvType>);
      const first = await e.split(gx, { axis: c.axis, sizes: c.sizes });
      const mid = first[1]!;
      const midBytes = expectedSplit(dtype, c.shape, x.data as Uint8Array, 1, c.sizes)[1]!;
      const c2: Case = { dtype, shape: [3, 13], axis: 0, sizes: [2, 1] };
      const c3: Case = { dtype, shape: [3, 13], axis: 1, sizes: [7, 0, 6] };
      for (const cc of [c2, c3]) {
        const outs = await e.split(mid, { axis: cc.axis, sizes: cc.sizes, layout: 'separate' });
        expectBytes(
          cc,
          await downloadOutputs(e, outs),
          expectedSplit(dtype, cc.shape, midBytes, cc.axis, cc.sizes),
          `${label(cc)} of ${label(c)}`,
        );
        for (const o of outs) e.release(o);
      }
      for (const o of [...first, gx]) e.release(o);
    }
  });
});

describe('upload, download, encodeSplit', () => {
  const SHAPES = [[], [0], [1], [7], [3, 5], [2, 3, 5, 7], [4097], [0, 3]];
  gpuTest(
    'upload then download is exact for every type (random unused bits included); byteLength = ceil(numel * w / 8)',
    async (g) => {
      const e = await g.engine();
      for (const dtype of OV_TYPES) {
        for (const shape of SHAPES) {
          for (const x of [randomTensor(dtype, shape, rng(hashParams({ dtype, shape })))]) {
            const where = `${dtype} [${shape.join(',')}]`;
            const gx = e.upload(x as HostTensor<OvType>);
            expect(
              { dtype: gx.dtype, shape: gx.shape, byteLength: gx.byteLength, byteOffset: gx.byteOffset },
              where,
            ).toEqual({ dtype, shape, byteLength: packedBytes(dtype, numel(shape)), byteOffset: 0 });
            const back = await e.download(gx);
            expect(
              { dtype: back.dtype, shape: back.shape, data: Object.prototype.toString.call(back.data) },
              where,
            ).toEqual({ dtype, shape, data: '[object Uint8Array]' });
            expect(hex(back.data as Uint8Array), where).toBe(hex(x.data as Uint8Array));
            e.release(gx);
          }
        }
      }
    },
  );

  gpuTest(
    'encodeSplit records the bit-level split into a caller encoder (a dispatch per six output buffers); outputs match after submit',
    async (g) => {
      const e = await g.engine();
      for (const dtype of OV_TYPES) {
        const c: Case = { dtype, shape: [3, 37], axis: 1, sizes: [5, 0, 17, 15] };
        const x = randomTensor(dtype, c.shape, rng(hashParams({ ...c })));
        const want = expectedSplit(dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes);
        for (const layout of ['shared', 'separate'] as const) {
          const gx = e.upload(x as HostTensor<OvType>);
          const enc = g.device.createCommandEncoder();
          const outs = e.encodeSplit(enc, gx, { axis: c.axis, sizes: c.sizes, layout });
          expectBitVariant(e, c, `${label(c)} encodeSplit ${layout}`, layout === 'separate');
          g.device.queue.submit([enc.finish()]);
          checkGpuOutputs(
            c,
            outs,
            layout,
            g.device.limits.minStorageBufferOffsetAlignment,
            `${label(c)} encodeSplit ${layout}`,
          );
          expectBytes(c, await downloadOutputs(e, outs), want, `${label(c)} encodeSplit ${layout}`);
          for (const o of [...outs, gx]) e.release(o);
        }
      }
    },
  );
});

describe('dtype table and host data', () => {
  test('widths, host arrays, lengths and bit order follow the issue; packedValue agrees with the reference', async () => {
    const cleave = await import('../../src/index.js');
    const { valueAt } = await import('../helpers/packed.js');
    for (const d of OV_TYPES) {
      expect(cleave.DTYPES, d).toContain(d);
      expect(cleave.ONNX_DTYPES, d).not.toContain(d);
      expect(
        {
          bits: cleave.elementBits(d),
          array: cleave.hostArrayName(d),
          msb: cleave.isMsbFirst(d),
          packed: cleave.isPacked(d),
        },
        d,
      ).toEqual({ bits: WIDTH(d), array: 'Uint8Array', msb: msbFirst(d), packed: WIDTH(d) < 8 });
      for (const n of [0, 1, 2, 3, 5, 7, 8, 9, 4097]) {
        expect([cleave.hostLength(d, n), cleave.byteLengthOf(d, n)], `${d} x ${n}`).toEqual([
          packedBytes(d, n),
          packedBytes(d, n),
        ]);
      }
      if (!isPackedType(d)) continue;
      const bytes = randomTensor(d, [61], rng(hashParams({ d }))).data as Uint8Array;
      const stream = streamOf(bytes, msbFirst(d));
      for (let i = 0; i < 61; i++) {
        const bits = stream.slice(i * WIDTH(d), (i + 1) * WIDTH(d));
        const v = parseInt([...bits].reverse().join(''), 2); // value bit 0 comes first in the stream
        expect([cleave.packedValue(d, bytes, i), valueAt(bytes, i, d)], `${d} value ${i}`).toEqual([v, v]);
      }
    }
    expect([...cleave.PACKED_DTYPES].sort()).toEqual([...PACKED].sort());
  });

  gpuTest(
    'host data must be a Uint8Array of ceil(numel * w / 8) bytes (DATA_TYPE, DATA_LENGTH); GPU byteLength likewise',
    async (g) => {
      const e = await g.engine();
      for (const engine of [cpu, e]) {
        for (const dtype of OV_TYPES) {
          const shape = [3, 5];
          const n = packedBytes(dtype, 15);
          const attempt = (data: unknown) =>
            engine.split({ dtype, shape, data } as HostTensor, { axis: 1, sizes: [2, 3] });
          const where = `${dtype} on ${engine.backend}`;
          for (const data of [
            new Int8Array(n),
            new Uint16Array(n),
            new Uint8ClampedArray(n),
            Array<number>(n).fill(0),
          ]) {
            await expectSplitError(
              attempt(data),
              'DATA_TYPE',
              [dtype, 'Uint8Array'],
              `${where}, ${Object.prototype.toString.call(data)}`,
            );
          }
          for (const len of [n - 1, n + 1, ...(n === 15 ? [] : [15])]) {
            await expectSplitError(
              attempt(new Uint8Array(len)),
              'DATA_LENGTH',
              [`needs ${n}`, `got ${len}`],
              `${where}, ${len} bytes`,
            );
          }
          const good = await attempt(Buffer.alloc(n)); // Node's Buffer is a Uint8Array
          expect(good.length, where).toBe(2);
          if (engine === e) {
            const buffer = g.device.createBuffer({ size: 64, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
            for (const byteLength of [n - 1, n + 1]) {
              await expectSplitError(
                e.split({ dtype, shape, buffer, byteOffset: 0, byteLength } as GpuTensor, { axis: 1, sizes: [2, 3] }),
                'DATA_LENGTH',
                [`byteLength ${byteLength} is not the ${n} bytes of shape [${shape.join(', ')}] of ${dtype}`],
                `${where}, GPU byteLength ${byteLength}`,
              );
            }
            buffer.destroy();
          }
        }
      }
    },
  );
});

async function expectSplitError(
  p: Promise<unknown>,
  code: string,
  parts: readonly string[],
  where: string,
): Promise<SplitError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught, `${where}: expected ${code}`).toBeInstanceOf(SplitError);
  const err = caught as SplitError;
  expect(err.code, `${where}: ${err.message}`).toBe(code);
  for (const part of parts) expect(err.message, where).toContain(part);
  return err;
}

// ---------------------------------------------------------------------------------------------
// Operator nodes: VariadicSplit takes every type; ONNX Split and SplitToSequence refuse all 11.

/** Valid nodes for every ONNX version (and opsets between versions), as [version label, node]. */
function onnxNodes(x: HostTensor | GpuTensor): [string, SplitNode][] {
  const split13 = { dtype: 'int64', shape: [2], data: BigInt64Array.of(2n, 2n) } as const;
  const splitAttr = { axis: 0, split: [2, 2] };
  return [
    ['Split-1', { op: 'Split', opset: 1, inputs: [x], attrs: splitAttr, outputs: 2 }],
    ['Split-2', { op: 'Split', opset: 2, inputs: [x], attrs: splitAttr, outputs: 2 }],
    ['Split-2', { op: 'Split', opset: 7, inputs: [x], attrs: splitAttr, outputs: 2 }],
    ['Split-11', { op: 'Split', opset: 11, inputs: [x], attrs: splitAttr, outputs: 2 }],
    ['Split-11', { op: 'Split', opset: 12, inputs: [x], attrs: { axis: 0 }, outputs: 2 }],
    ['Split-13', { op: 'Split', opset: 13, inputs: [x, split13], attrs: { axis: 0 }, outputs: 2 }],
    ['Split-13', { op: 'Split', opset: 17, inputs: [x, split13], outputs: 2 }],
    ['Split-18', { op: 'Split', opset: 18, inputs: [x], attrs: { axis: 0, num_outputs: 2 }, outputs: 2 }],
    ['Split-18', { op: 'Split', inputs: [x, split13], outputs: 2 }],
    ['SplitToSequence-11', { op: 'SplitToSequence', opset: 11, inputs: [x], attrs: { axis: 0 } }],
    ['SplitToSequence-11', { op: 'SplitToSequence', opset: 23, inputs: [x, split13] }],
    ['SplitToSequence-24', { op: 'SplitToSequence', opset: 24, inputs: [x], attrs: { axis: 0, keepdims: 0 } }],
    [
      'SplitToSequence-24',
      { op: 'SplitToSequence', inputs: [x, { dtype: 'int32', shape: [], data: Int32Array.of(3) }] },
    ],
  ];
}

const opOf = (versionLabel: string) => versionLabel.split('-')[0]!;

describe('operator nodes', () => {
  test('control: every ONNX node used below is valid with float32 data', () => {
    const x = { dtype: 'float32', shape: [4, 3], data: new Float32Array(12) } as const;
    for (const [v, node] of onnxNodes(x)) expect(resolveNode(node).label, v).toBe(v);
  });

  test('ONNX Split (every opset) and SplitToSequence refuse the 11 types: BAD_DTYPE, saying no ONNX version lists the type', () => {
    for (const dtype of OV_TYPES) {
      const x = randomTensor(dtype, [4, 3], rng(1));
      for (const [v, node] of onnxNodes(x)) {
        for (const [how, f] of [
          ['inferShapes', () => inferShapes(node)],
          ['resolveNode', () => resolveNode(node)],
        ] as const) {
          let caught: unknown;
          try {
            f();
          } catch (err) {
            caught = err;
          }
          const where = `${v} (opset ${node.opset ?? 'newest'}) ${how} ${dtype}`;
          expect(caught, where).toBeInstanceOf(SplitError);
          const err = caught as SplitError;
          expect({ code: err.code, subject: err.subject }, `${where}: ${err.message}`).toEqual({
            code: 'BAD_DTYPE',
            subject: { kind: 'input', name: 'input', part: 'dtype' },
          });
          expect(err.message.startsWith(`${v}: `), `${where}: ${err.message}`).toBe(true);
          expect(err.message, where).toContain(`no ONNX version of ${opOf(v)} lists ${dtype}`);
        }
      }
    }
  });

  gpuTest('engine.run refuses them too, with host and GPU data, before any GPU work', async (g) => {
    const e = await g.engine();
    for (const dtype of OV_TYPES) {
      const x = randomTensor(dtype, [4, 3], rng(2)) as HostTensor<OvType>;
      const gx = e.upload(x);
      const live = e.stats.liveBuffers;
      for (const [v, node] of [...onnxNodes(x), ...onnxNodes(gx)]) {
        for (const engine of [cpu, e]) {
          if (engine === cpu && 'buffer' in node.inputs[0]!) continue;
          await expectSplitError(
            engine.run(node),
            'BAD_DTYPE',
            [`${v}: `, `no ONNX version of ${opOf(v)} lists ${dtype}`],
            `${v} ${dtype} ${engine.backend}`,
          );
        }
      }
      expect(e.stats.liveBuffers, `${dtype}: nothing allocated`).toBe(live);
      e.release(gx);
    }
  });

  gpuTest(
    'VariadicSplit: inferShapes and resolveNode take the 11 types, host or GPU data; the opset is ignored',
    async (g) => {
      const e = await g.engine();
      const lengths = { dtype: 'int64', shape: [3], data: BigInt64Array.of(1n, -1n, 0n) } as const;
      for (const dtype of OV_TYPES) {
        const x = randomTensor(dtype, [2, 5, 3], rng(3)) as HostTensor<OvType>;
        const gx = e.upload(x);
        for (const [data, axis] of [
          [x, 1],
          [gx, -2],
        ] as const) {
          const node = {
            op: 'VariadicSplit',
            opset: 1,
            inputs: [data, { dtype: 'int32', shape: [], data: Int32Array.of(axis) }, lengths],
          } as const;
          const want = [
            [2, 1, 3],
            [2, 4, 3],
            [2, 0, 3],
          ].map((shape) => ({ dtype, shape }));
          expect(inferShapes(node), dtype).toEqual(want);
          const r = resolveNode(node);
          expect({ label: r.label, shapes: r.outputShapes }, dtype).toEqual({
            label: 'VariadicSplit-1',
            shapes: want.map((w) => w.shape),
          });
        }
        e.release(gx);
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('strategies and statistics', () => {
  gpuTest(
    'boundaries inside bytes: one dispatch of the bit-level variant, 2 to 4096 outputs, every packed type',
    async (g) => {
      const e = await g.engine();
      for (const dtype of PACKED) {
        const cases: Case[] = [
          { dtype, shape: [33], axis: 0, sizes: [1, 32] },
          { dtype, shape: [5, 7], axis: 1, sizes: [3, 4] },
          { dtype, shape: [4097], axis: 0, sizes: [2, ...Array<number>(4095).fill(1)] },
          { dtype, shape: [3, 4096], axis: 1, sizes: Array<number>(4096).fill(1) },
          // MAX_OUTPUTS, for one width with every phase.
          ...(dtype === 'uint3' ? [{ dtype, shape: [65536], axis: 0, sizes: Array<number>(65536).fill(1) }] : []),
        ].filter(boundaryInsideByte);
        expect(cases.length, dtype).toBeGreaterThanOrEqual(3);
        for (const c of cases) {
          const x = randomTensor(dtype, c.shape, rng(hashParams({ ...c })));
          const want = expectedSplit(dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes);
          expectBytes(c, hostBytes(c, await e.split(x, { axis: c.axis, sizes: c.sizes }), label(c)), want, label(c));
          expect(e.stats, label(c)).toMatchObject({ strategy: 'gather', unitBits: 1, dispatches: 1, copies: 0 });
          const gx = e.upload(x as HostTensor<OvType>);
          const outs = await e.split(gx, { axis: c.axis, sizes: c.sizes });
          expect(e.stats, `${label(c)} GPU-resident`).toMatchObject({
            strategy: 'gather',
            unitBits: 1,
            dispatches: 1,
            copies: 0,
          });
          expectBytes(c, await downloadOutputs(e, outs), want, `${label(c)} GPU-resident`);
          for (const o of [...outs, gx]) e.release(o);
        }
      }
    },
  );

  gpuTest(
    'byte-aligned splits of packed tensors may alias, copy or use words (control: results still exact)',
    async (g) => {
      const e = await g.engine();
      for (const dtype of OV_TYPES) {
        const w = WIDTH(dtype);
        // Two halves, each a whole number of alignment units: aligned views (alias) for a resident
        // input; for a host one two copies, or the word gather where the engine's costs (its adapter's
        // table) say one dispatch beats two commands (never the bit variant).
        const a = g.device.limits.minStorageBufferOffsetAlignment * 8;
        const k = a / gcd(w, a);
        const half: Case = { dtype, shape: [2 * k], axis: 0, sizes: [k, k] };
        // Strided rows, chunks of a multiple of 128 bits: the 128-bit word gather.
        const m = 128 / gcd(w, 128);
        const words: Case = { dtype, shape: [4, 2 * m], axis: 1, sizes: [m, m] };
        // Strided rows of whole words, 1 KiB: one copy per row or the word gather, whichever the
        // engine's costs make cheaper (rows of 1 KiB lie near SwiftShader's break-even).
        const r = 8192 / gcd(w, 8192);
        const rows: Case = { dtype, shape: [3, 2 * r], axis: 1, sizes: [r, r] };
        for (const [c, host, resident] of [
          [half, 'measured', 'alias'],
          [words, 'gather', 'gather'],
          [rows, 'measured', 'measured'],
        ] as const) {
          const x = randomTensor(dtype, c.shape, rng(hashParams({ ...c })));
          const want = expectedSplit(dtype, c.shape, x.data as Uint8Array, c.axis, c.sizes);
          expectBytes(c, hostBytes(c, await e.split(x, { axis: c.axis, sizes: c.sizes }), label(c)), want, label(c));
          if (host === 'measured') expect(['copy', 'gather'], `${label(c)} host`).toContain(e.stats.strategy);
          else expect(e.stats.strategy, `${label(c)} host`).toBe(host);
          expect(e.stats.unitBits, `${label(c)} host: whole words`).not.toBe(1);
          if (c === words) expect(e.stats.unitBits, label(c)).toBe(128);
          if (c === rows && e.stats.strategy === 'copy')
            expect(e.stats.copies, `${label(c)}: one copy per row`).toBe(6);
          const gx = e.upload(x as HostTensor<OvType>);
          const outs = await e.split(gx, { axis: c.axis, sizes: c.sizes });
          if (resident === 'measured')
            expect(['copy', 'gather'], `${label(c)} GPU-resident`).toContain(e.stats.strategy);
          else expect(e.stats.strategy, `${label(c)} GPU-resident`).toBe(resident);
          if (resident === 'alias')
            expect(
              outs.every((o) => o.buffer === gx.buffer),
              label(c),
            ).toBe(true);
          expectBytes(c, await downloadOutputs(e, outs), want, `${label(c)} GPU-resident`);
          const copied = await e.split(gx, { axis: c.axis, sizes: c.sizes, alias: 'none' });
          expect(e.stats.unitBits, `${label(c)} alias 'none'`).not.toBe(1);
          expectBytes(c, await downloadOutputs(e, copied), want, `${label(c)} alias 'none'`);
          for (const o of [...outs, ...copied, gx]) e.release(o);
        }
      }
    },
  );

  // Last in the file: every test above ran on this one device.
  gpuTest('pipelines created on this device for the whole file: at most one per shader variant', async (g) => {
    const e = await g.engine();
    expect(e.stats.pipelinesCreated).toBeGreaterThan(0);
    expect(e.stats.pipelinesCreated).toBeLessThanOrEqual(SHADER_VARIANTS);
  });
});
