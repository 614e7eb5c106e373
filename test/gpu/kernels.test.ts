// The tile gather kernels at their boundaries: every source bit phase against every
// destination phase for each packed type and for uint8 and float16 (float32 takes the word kernel); rows shorter than a word and
// rows spanning several tiles; tiles cut at binding windows (a plan made for tiny windows, run on
// the device); outputs of 0 and 1 elements; 65,536 outputs. Every output is compared with a
// reference written here on strings of '0'/'1' characters, which shares no code with Cleave
// (widths and bit orders are written from the dtype specifications, not read from src/).
import { describe, expect } from 'vitest';
import { type HostTensor, type SplitEngine } from '../../src/index.js';
import { planSplit } from '../../src/planner/split.js';
import { COST_TABLES } from '../../src/planner/costs.js';
import type { GpuLimits } from '../../src/planner/types.js';
import { planGpu } from '../../src/planner/gpu.js';
import { encodeGather, makeTable } from '../../src/gpu/encode.js';
import { pipelineNow } from '../../src/gpu/pipelines.js';
import { TARGETS_PER_DISPATCH } from '../../src/gpu/shader.js';
import { BufferPool } from '../../src/gpu/pool.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import { rng } from '../helpers/cases.js';

const WIDTH = {
  uint1: 1,
  uint2: 2,
  uint3: 3,
  uint4: 4,
  int4: 4,
  nf4: 4,
  float4e2m1: 4,
  uint6: 6,
  uint8: 8,
  float16: 16,
  float32: 32,
};
type Kind = keyof typeof WIDTH;
const KINDS = Object.keys(WIDTH) as Kind[];
const msbFirst = (d: Kind) => d === 'uint1';
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

// ---------------------------------------------------------------------------------------------
// The reference: a tensor as an array of bits in stream order (bit 0 of byte 0 first, or bit 7
// first for uint1); an output is its rows' bits laid end to end, then packed back into bytes with
// zeros after the last bit.

function bitsOf(bytes: Uint8Array, msb: boolean): Uint8Array {
  const bits = new Uint8Array(bytes.length * 8);
  bytes.forEach((b, i) => {
    for (let j = 0; j < 8; j++) bits[i * 8 + j] = (b >> (msb ? 7 - j : j)) & 1;
  });
  return bits;
}

function packBits(bits: readonly number[], msb: boolean): Uint8Array {
  const out = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    out[i >> 3]! |= bit << (msb ? 7 - (i & 7) : i & 7);
  });
  return out;
}

/** Outputs of splitting [rows, dim] on axis 1 (any split is one of this form, in bits). */
function reference(d: Kind, rows: number, dim: number, bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const w = WIDTH[d];
  const bits = bitsOf(bytes, msbFirst(d));
  let start = 0;
  return sizes.map((n) => {
    const out: number[] = [];
    for (let r = 0; r < rows; r++) {
      for (let i = (r * dim + start) * w; i < (r * dim + start + n) * w; i++) out.push(bits[i]!);
    }
    start += n;
    return packBits(out, msbFirst(d));
  });
}

function randomBytes(n: number, seed: number): Uint8Array {
  const next = rng(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function hostTensor(d: Kind, shape: readonly number[], bytes: Uint8Array): HostTensor {
  const data =
    d === 'float16'
      ? new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2)
      : d === 'float32'
        ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
        : bytes;
  return { dtype: d, shape: [...shape], data } as HostTensor;
}

const bytesOf = (t: HostTensor) => {
  const a = t.data as Uint8Array | Uint16Array | Float32Array;
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
};

/** Splits [rows, dim] on axis 1 by the gather, host in and out, and compares every output byte. */
async function expectGather(e: SplitEngine, d: Kind, rows: number, dim: number, sizes: readonly number[], seed = 1) {
  const bytes = randomBytes(Math.ceil((rows * dim * WIDTH[d]) / 8), seed);
  const outs = await e.split(hostTensor(d, [rows, dim], bytes), { axis: 1, sizes: [...sizes] });
  expect(e.stats.strategy).toBe('gather');
  const want = reference(d, rows, dim, bytes, sizes);
  // One assertion for all outputs (65,536 of them take a minute one by one): the first that differs.
  const bad = outs.findIndex((o, i) => hex(bytesOf(o as HostTensor)) !== hex(want[i]!));
  const label = `${d} [${rows},${dim}] ${sizes.length < 20 ? sizes.join(',') : `${sizes.length} outputs`}`;
  expect(bad === -1 ? '' : `#${bad}: ${hex(bytesOf(outs[bad] as HostTensor))}`, label).toBe(
    bad === -1 ? '' : `#${bad}: ${hex(want[bad]!)}`,
  );
  return e.stats;
}

/** (source phase, destination phase) pairs a split [rows, dim] on axis 1 exercises, in bits mod 32. */
function phases(w: number, rows: number, dim: number, sizes: readonly number[]): Set<string> {
  const seen = new Set<string>();
  let start = 0;
  for (const n of sizes) {
    for (let r = 0; r < rows && n > 0; r++) seen.add(`${((r * dim + start) * w) % 32},${(r * n * w) % 32}`);
    start += n;
  }
  return seen;
}

// ---------------------------------------------------------------------------------------------
// A plan made for other limits, run on this device through the executor's parts: the only way to
// cut tiles at windows of a few KiB (a device's binding window is at least 128 MiB).

async function runPlan(g: GpuFixture, d: Kind, rows: number, dim: number, sizes: readonly number[], limits: GpuLimits) {
  const w = WIDTH[d];
  const bytes = randomBytes(Math.ceil((rows * dim * w) / 8), 7);
  const gp = planGpu(planSplit(d, [rows, dim], 1, sizes), limits, {
    srcByteOffset: 0,
    allowAlias: false,
    separate: false,
    strategy: 'gather',
    costs: COST_TABLES.software,
    into: undefined,
  });
  if (gp.strategy !== 'gather') throw new Error('expected the gather strategy');
  const device = g.device;
  const pool = new BufferPool(device, () => undefined);
  const input = device.createBuffer({ size: Math.max(4, Math.ceil(bytes.length / 4) * 4), usage: 0x80 | 0x8 });
  const padded = new Uint8Array(Math.max(4, Math.ceil(bytes.length / 4) * 4));
  padded.set(bytes);
  device.queue.writeBuffer(input, 0, padded);
  const out = device.createBuffer({ size: gp.targets[0]!.bytes, usage: 0x80 | 0x4 | 0x8 });
  // Ones everywhere first: a tail left unwritten, or a write past a tile, shows.
  device.queue.writeBuffer(out, 0, new Uint8Array(gp.targets[0]!.bytes).fill(0xff));
  const staging = device.createBuffer({ size: gp.targets[0]!.bytes, usage: 0x1 | 0x8 });
  const enc = device.createCommandEncoder();
  const pipeline = pipelineNow(device, gp);
  encodeGather(enc, gp, makeTable(device, pool, gp), pipeline, { buffer: input, byteOffset: 0 }, [out], [0]);
  enc.copyBufferToBuffer(out, 0, staging, 0, gp.targets[0]!.bytes);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(0x1);
  const got = new Uint8Array(staging.getMappedRange().slice(0));
  staging.unmap();
  for (const b of [input, out, staging]) b.destroy();
  pool.destroy();
  const want = reference(d, rows, dim, bytes, sizes);
  gp.outputs.forEach((o, i) => {
    // The output's bytes, and the rest of its last word (zero: copies out of it move whole words).
    const end = Math.ceil((o.byteOffset + o.byteLength) / 4) * 4;
    const have = got.subarray(o.byteOffset, o.byteLength ? end : o.byteOffset);
    const expected = new Uint8Array(have.length);
    expected.set(want[i]!);
    expect(hex(have), `${d} [${rows},${dim}] ${sizes.join(',')} #${i}`).toBe(hex(expected));
  });
  return gp;
}

// ---------------------------------------------------------------------------------------------

describe('tile gather kernels', () => {
  gpuTest(
    'every source bit phase against every destination phase, each packed type, uint8 and float16',
    async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      for (const d of KINDS) {
        const w = WIDTH[d];
        const p = 32 / gcd(w, 32); // phases this width can reach
        const seen = new Set<string>();
        // Outputs of n elements with n * w / gcd odd start at every phase; `p` rows of them put
        // their rows at every destination phase. n = 1 gives rows shorter than a word.
        for (const n of [1, 3, 65]) {
          const sizes = Array<number>(p).fill(n);
          const pad = (32 - ((p * n * w) % 32)) / gcd(w, 32);
          const dim = p * n + (pad % p === 0 && pad === p ? 0 : pad) + 1;
          sizes.push(dim - p * n);
          await expectGather(e, d, p, dim, sizes, n);
          for (const s of phases(w, p, dim, sizes)) seen.add(s);
        }
        expect(seen.size, `${d}: phase pairs covered`).toBe(p * p);
      }
    },
    120_000,
  );

  // Shapes [rows, dim] split on axis 1, for every kind (float32: the word kernel).
  const SHAPES: readonly (readonly [string, readonly (readonly [number, number, readonly number[]])[]])[] = [
    [
      'rows shorter than a word, many to a tile; rows spanning several tiles',
      [
        [3000, 7, [2, 1, 4]],
        [3, 20_011, [5, 19_999, 7]],
        // One row past a whole bit tile (8192 words) even for uint1.
        [2, 300_007, [5, 299_995, 7]],
      ],
    ],
    [
      'outputs of 0 and 1 elements between others',
      [
        [5, 12, [0, 1, 0, 5, 1, 5, 0]],
        [1, 3, [1, 0, 1, 1]],
      ],
    ],
  ];
  for (const [name, cases] of SHAPES) {
    gpuTest(
      name,
      async (g) => {
        const e = await g.engine({ strategy: 'gather' });
        for (const d of KINDS) for (const [rows, dim, sizes] of cases) await expectGather(e, d, rows, dim, sizes, dim);
      },
      120_000,
    );
  }

  gpuTest(
    'tiles cut at binding windows of 4 KiB: several dispatches, every byte and tail exact',
    async (g) => {
      const small: GpuLimits = {
        alignment: 256,
        maxBindingBytes: 4096,
        maxBufferBytes: 1 << 30,
        targetsPerDispatch: TARGETS_PER_DISPATCH,
      };
      for (const d of KINDS) {
        const gp = await runPlan(g, d, 40, 1001, [333, 1, 667], small); // blocks of rows
        expect(gp.dispatches.length, d).toBeGreaterThan(2);
        await runPlan(g, d, 2, 40_000, [3, 39_990, 7], small); // rows longer than a window: column blocks
      }
    },
    120_000,
  );

  gpuTest(
    '65,536 outputs: uint4, uint1, uint8 and float32, one element each',
    async (g) => {
      const e = await g.engine({ strategy: 'gather' });
      const sizes = Array<number>(65_536).fill(1);
      for (const d of ['uint4', 'uint1', 'uint8'] as const) {
        const stats = await expectGather(e, d, 1, 65_536, sizes, 6);
        expect(stats.dispatches).toBe(1);
      }
      const data = Float32Array.from({ length: 65_536 }, (_, i) => i + 0.5);
      const outs = await e.split({ dtype: 'float32', shape: [65_536], data }, { axis: 0, sizes });
      expect(outs.every((o, i) => (o.data as Float32Array)[0] === i + 0.5)).toBe(true);
    },
    300_000,
  );
});
