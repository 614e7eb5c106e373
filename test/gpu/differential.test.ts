// Tier 3: seeded randomized differential test, GPU path (host in/out and GPU-resident) against the
// independent reference of test/helpers/reference.ts (which imports nothing from src/), 500 cases
// of random rank, shape, dtype, axis (negative too) and split, each on a fresh engine that must do
// its work on the GPU and leave no buffer behind. Host strings and complex tensors are the CPU
// executor's (ARCHITECTURE.md): their host cases check that it took them; complex ones then run
// GPU-resident like every other fixed-width dtype.
import { expect } from 'vitest';
import type { FixedDType, HostTensor } from '../../src/index.js';
import { randomSizes, randomTensor, rng } from '../helpers/cases.js';
import { aliasable, expectGpuPath, expectGpuWork, expectSplitOf } from '../helpers/check.js';
import { REF_DTYPES, type RefDType } from '../helpers/dtypes.js';
import { downloadAll } from '../helpers/download.js';
import { gpuTest } from '../helpers/gpu.js';

const CASES = 500;
const SEED = 0x5eed;

interface Case {
  dtype: RefDType;
  shape: number[];
  axis: number;
  sizes: number[];
  seed: number;
}

function makeCase(seed: number): Case {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const rank = 1 + int(5);
  const shape = Array.from({ length: rank }, () => (r() < 0.08 ? 0 : 1 + int(r() < 0.2 ? 40 : 6)));
  const ax = int(rank);
  const axis = r() < 0.5 ? ax : ax - rank;
  const dim = shape[ax]!;
  const pieces = 1 + int(r() < 0.1 ? 70 : 8);
  const sizes = randomSizes(dim, pieces, r); // zero-length chunks included
  return { dtype: REF_DTYPES[int(REF_DTYPES.length)]!, shape, axis, sizes, seed };
}

const cases = Array.from({ length: CASES }, (_, i) => makeCase(SEED + i));

cases.forEach((c, i) => {
  gpuTest(`random case ${i}: ${c.dtype} [${c.shape.join(',')}] axis ${c.axis} into ${c.sizes.length}`, async (g) => {
    const e = await g.engine();
    const x = randomTensor(c.dtype, c.shape, rng(c.seed));
    const host = await e.split(x, { axis: c.axis, sizes: c.sizes });
    expectSplitOf(host, x, c.axis, c.sizes);
    expectGpuPath(e, c.dtype, host);
    if (c.dtype === 'string') return;
    const gx = e.upload(x as HostTensor<FixedDType>);
    const outs = await e.split(gx, { axis: c.axis, sizes: c.sizes });
    const alias = aliasable(x, c.axis, c.sizes, g.device.limits.minStorageBufferOffsetAlignment);
    expectGpuWork(e, outs, { alias, input: gx });
    expectSplitOf(await downloadAll(e, outs), x, c.axis, c.sizes);
    for (const o of outs) e.release(o);
    e.release(gx);
    e.destroy();
    expect(e.stats.liveBuffers, 'buffers left after destroy').toBe(0);
  });
});

gpuTest('the differential tier holds every case, every dtype, and views as well as copies', async (g) => {
  expect(cases.length).toBe(CASES);
  expect(new Set(cases.map((c) => c.dtype)).size).toBe(REF_DTYPES.length);
  const alignment = g.device.limits.minStorageBufferOffsetAlignment;
  const views = cases.filter(
    (c) => c.dtype !== 'string' && aliasable({ ...c, data: null }, c.axis, c.sizes, alignment),
  );
  expect(views.length, 'cases whose resident split must alias').toBeGreaterThanOrEqual(50);
  expect(CASES - views.length, 'cases whose resident split must move bytes').toBeGreaterThanOrEqual(250);
  return Promise.resolve();
});
