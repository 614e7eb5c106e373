// Packed tensors past one binding window: the bit-level gather tiles them, one dispatch
// per tile, and every tile must keep the bits the previous one wrote in a shared destination word.
// On a device with WebGPU's default limits (128 MiB bindings): a uint3 tensor of 135 MiB in blocks
// of rows (tiles meet inside words), a uint1 row of 144 MiB read from bit 3 in blocks of columns
// (every tile reads across source words); on the adapter's own
// limits (1 GiB bindings on SwiftShader): a uint4 tensor of 260 MiB, tiled because the planner caps
// a bit-variant window at 256 MiB. Each is compared byte for byte with the CPU backend, and sampled
// (ends, tile joins, random values, unused bits) against the independent reference in
// test/helpers/packed.ts, which is too slow to run over a billion bits.
import { expect, test } from 'vitest';
import { type HostTensor, type PackedDType, type SplitEngine, createSplitEngine } from '../../src/index.js';
import { rng } from '../helpers/cases.js';
import { defaultLimitsDevice, gpuTest } from '../helpers/gpu.js';
import { PACKED_WIDTH, valueAt } from '../helpers/packed.js';

const device = await defaultLimitsDevice();

const cpu = await createSplitEngine({ backend: 'cpu' });

/** Random packed bytes, fast (one generator call per 4 bytes); the unused bits of the last byte set to ones (garbage). */
function garbageTailed(d: PackedDType, numel: number, seed: number): Uint8Array {
  const w = PACKED_WIDTH[d];
  const n = Math.ceil((numel * w) / 8);
  const out = new Uint8Array(n);
  const words = new Uint32Array(out.buffer, 0, n >> 2);
  const next = rng(seed);
  for (let i = 0; i < words.length; i++) words[i] = (next() * 4294967296) >>> 0;
  for (let i = words.length * 4; i < n; i++) out[i] = Math.floor(next() * 256);
  const pad = n * 8 - numel * w;
  if (pad > 0) out[n - 1] |= d === 'uint1' ? (1 << pad) - 1 : (0xff << (8 - pad)) & 0xff;
  return out;
}

function unusedBits(d: PackedDType, bytes: Uint8Array, numel: number): number {
  const pad = bytes.length * 8 - numel * PACKED_WIDTH[d];
  if (pad === 0 || bytes.length === 0) return 0;
  const last = bytes[bytes.length - 1]!;
  return d === 'uint1' ? last & ((1 << pad) - 1) : last >> (8 - pad);
}

/**
 * Values of each output against the reference, read from the input: the first and last 64, 64
 * around every multiple of `tileBits` (where column tiles meet) and 4000 at random.
 */
function sampleAgainstReference(
  d: PackedDType,
  x: Uint8Array,
  outer: number,
  dim: number,
  sizes: readonly number[],
  outs: readonly Uint8Array[],
  tileBits: number,
): void {
  const w = PACKED_WIDTH[d];
  const next = rng(5);
  let start = 0;
  sizes.forEach((size, i) => {
    const count = outer * size;
    const picks = new Set<number>();
    for (let j = 0; j < 64; j++) picks.add(j).add(count - 1 - j);
    for (let b = tileBits; b < count * w; b += tileBits)
      for (let j = -32; j < 32; j++) picks.add(Math.floor(b / w) + j);
    for (let j = 0; j < 4000; j++) picks.add(Math.floor(next() * count));
    const bad: string[] = [];
    for (const j of picks) {
      if (j < 0 || j >= count) continue;
      const o = Math.floor(j / size);
      const want = valueAt(x, o * dim + start + (j - o * size), d);
      const got = valueAt(outs[i]!, j, d);
      if (got !== want && bad.length < 8) bad.push(`value ${j}: ${got}, want ${want}`);
    }
    expect(bad, `${d} output ${i}: sampled values`).toEqual([]);
    expect(outs[i]!.length, `${d} output ${i}: byte length`).toBe(Math.ceil((count * w) / 8));
    expect(unusedBits(d, outs[i]!, count), `${d} output ${i}: unused bits`).toBe(0);
    start += size;
  });
}

async function checkLarge(
  e: SplitEngine,
  d: PackedDType,
  shape: [number, number],
  sizes: number[],
  tileBits: number,
): Promise<number> {
  const numel = shape[0] * shape[1];
  const x = { dtype: d, shape, data: garbageTailed(d, numel, 11) } as HostTensor<PackedDType>;
  const outs = await e.split(x, { axis: 1, sizes });
  const stats = e.stats;
  expect({ strategy: stats.strategy, unitBits: stats.unitBits }, d).toEqual({ strategy: 'gather', unitBits: 1 });
  const want = await cpu.split(x, { axis: 1, sizes });
  outs.forEach((o, i) =>
    expect(Buffer.compare(o.data, want[i]!.data), `${d} output ${i}: GPU and CPU backend`).toBe(0),
  );
  sampleAgainstReference(
    d,
    x.data,
    shape[0],
    shape[1],
    sizes,
    outs.map((o) => o.data),
    tileBits,
  );
  return stats.dispatches;
}

async function scoped<T>(d: GPUDevice, f: () => Promise<T>): Promise<T> {
  d.pushErrorScope('validation');
  d.pushErrorScope('out-of-memory');
  let failure: unknown;
  let value: T | undefined;
  try {
    value = await f();
  } catch (err) {
    failure = err;
  }
  const oom = await d.popErrorScope();
  const validation = await d.popErrorScope();
  if (failure) throw failure;
  expect(validation?.message ?? null, 'GPU validation error').toBeNull();
  expect(oom?.message ?? null, 'GPU out-of-memory error').toBeNull();
  return value!;
}

const MiB = 1 << 20;

test('uint3, 135 MiB in 36 strided rows, boundaries inside bytes: blocks of rows in several windows', async () => {
  expect(device.limits.maxStorageBufferBindingSize).toBe(128 * MiB);
  const e = await createSplitEngine({ device });
  const dim = 10_500_001;
  expect(Math.ceil((36 * dim * 3) / 8)).toBeGreaterThan(128 * MiB);
  const dispatches = await scoped(device, () =>
    checkLarge(e, 'uint3', [36, dim], [5_250_003, 5_249_998], 128 * MiB * 8),
  );
  expect(dispatches, 'one dispatch per tile').toBeGreaterThan(2);
  e.destroy();
}, 300_000);

test('uint1 (MSB-first), one 144 MiB row, a chunk longer than a window starting at bit 3: blocks of columns', async () => {
  const e = await createSplitEngine({ device });
  const dim = 2 ** 30 + 2 ** 27 + 5;
  const dispatches = await scoped(device, () =>
    checkLarge(e, 'uint1', [1, dim], [3, dim - 13, 10], (128 * MiB - 256) * 8),
  );
  expect(dispatches, 'one dispatch per tile').toBeGreaterThan(2);
  e.destroy();
}, 300_000);

gpuTest(
  "uint4, 260 MiB on the adapter's limits: the bit variant's 256 MiB window cap tiles it",
  async (g) => {
    expect(g.device.limits.maxStorageBufferBindingSize, 'a binding window larger than the cap').toBeGreaterThan(
      256 * MiB,
    );
    const e = await g.engine();
    const dim = 260 * MiB; // two rows of 130 MiB of uint4
    const dispatches = await checkLarge(e, 'uint4', [2, dim], [dim - 7, 7], 256 * MiB * 8);
    expect(dispatches, 'one dispatch per tile').toBeGreaterThan(1);
  },
  300_000,
);
