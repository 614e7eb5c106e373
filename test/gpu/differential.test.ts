// Tier 3: seeded randomized differential test, GPU path (host in/out and GPU-resident) against
// the CPU backend, 500 cases of random rank, shape, dtype, axis (negative too) and split, each
// on a fresh engine that must leave no buffer behind.
import { expect } from 'vitest';
import { type DType, type FixedDType, type HostTensor, createSplitEngine } from '../../src/index.js';
import { DTYPES, bitsOf, randomSizes, randomTensor, rng } from '../helpers/cases.js';
import { downloadAll } from '../helpers/check.js';
import { gpuTest } from '../helpers/gpu.js';

const CASES = 500;
const SEED = 0x5eed;

interface Case {
  dtype: DType;
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
  return { dtype: DTYPES[int(DTYPES.length)]!, shape, axis, sizes, seed };
}

const cases = Array.from({ length: CASES }, (_, i) => makeCase(SEED + i));

const cpu = createSplitEngine({ backend: 'cpu' });

cases.forEach((c, i) => {
  gpuTest(`random case ${i}: ${c.dtype} [${c.shape.join(',')}] axis ${c.axis} into ${c.sizes.length}`, async (g) => {
    const gpuEngine = await g.engine();
    const x = randomTensor(c.dtype, c.shape, rng(c.seed));
    const want = (await (await cpu).split(x, { axis: c.axis, sizes: c.sizes })).map(bitsOf);
    const host = await gpuEngine.split(x, { axis: c.axis, sizes: c.sizes });
    expect(host.map(bitsOf), 'host path').toEqual(want);
    if (c.dtype === 'string') return;
    const gx = gpuEngine.upload(x as HostTensor<FixedDType>);
    const outs = await gpuEngine.split(gx, { axis: c.axis, sizes: c.sizes });
    expect((await downloadAll(gpuEngine, outs)).map(bitsOf), 'GPU-resident path').toEqual(want);
    for (const o of outs) gpuEngine.release(o);
    gpuEngine.release(gx);
    gpuEngine.destroy();
    expect(gpuEngine.stats.liveBuffers, 'buffers left after destroy').toBe(0);
  });
});
