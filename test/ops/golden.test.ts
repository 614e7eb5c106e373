// Every golden case (test/golden/*.json) on both backends: the CPU backend, and WebGPU with the
// data input on the host and resident on the GPU; inferShapes must agree with each. Outputs are
// compared bit for bit; error cases by code, message prefix and message content. On WebGPU,
// engine.stats must show GPU work (host strings and complex tensors excepted: the CPU executor's).

import { describe, expect, test } from 'vitest';
import { type GpuTensor, type HostTensor, type SplitEngine, createSplitEngine, inferShapes } from '../../src/index.js';
import { expectGpuPath, expectGpuWork } from '../helpers/check.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import {
  type GoldenCase,
  type GoldenFile,
  decode,
  expectCaseError,
  expectOutputs,
  loadGolden,
  nodeOf,
} from '../helpers/golden-io.js';

const files = loadGolden();
let cpuEngine: Promise<SplitEngine> | undefined;
const cpu = () => (cpuEngine ??= createSplitEngine({ backend: 'cpu' }));

test('the golden files cover every operator version', () => {
  expect(files.map((f) => f.label).sort()).toEqual([
    'Split-1',
    'Split-11',
    'Split-13',
    'Split-18',
    'Split-2',
    'SplitToSequence-11',
    'SplitToSequence-24',
    'VariadicSplit-1',
  ]);
  for (const f of files) {
    expect(
      f.cases.some((c) => c.source === 'spec'),
      `${f.label} has spec examples`,
    ).toBe(true);
    expect(
      f.cases.some((c) => c.error),
      `${f.label} has error cases`,
    ).toBe(true);
  }
});

/** The case's inputs, with parameter inputs marked `gpu` uploaded through `upload`. */
function inputsOf(c: GoldenCase, upload?: (t: HostTensor) => GpuTensor): (HostTensor | GpuTensor | undefined)[] {
  return c.inputs.map((j) => {
    if (j === null) return undefined;
    const t = decode(j.dtype, j.shape, j.data);
    if (!j.gpu) return t;
    if (!upload) throw new Error('a GPU parameter needs a device');
    return upload(t);
  });
}

const needsDevice = (c: GoldenCase) => c.inputs.some((j) => j?.gpu);

async function onCpu(file: GoldenFile, c: GoldenCase, g?: GpuFixture): Promise<void> {
  const e = await cpu();
  const helper = g ? await g.engine() : undefined;
  const node = nodeOf(file, c, inputsOf(c, helper && ((t) => helper.upload(t as HostTensor<GpuTensor['dtype']>))));
  if (c.error) {
    await expectCaseError(() => e.run(node), c, file.label, 'cpu run');
    await expectCaseError(() => inferShapes(node), c, file.label, 'inferShapes');
    return;
  }
  const outs = await e.run(node);
  expectOutputs(outs, c, c.inputs[0]!.dtype, 'cpu');
  expect(inferShapes(node), 'inferShapes').toEqual(
    c.expect!.map((o) => ({ dtype: c.inputs[0]!.dtype, shape: o.shape })),
  );
}

async function onGpu(file: GoldenFile, c: GoldenCase, g: GpuFixture): Promise<void> {
  const e = await g.engine();
  const upload = (t: HostTensor) => e.upload(t as HostTensor<GpuTensor['dtype']>);
  const node = nodeOf(file, c, inputsOf(c, upload));
  if (c.error) {
    await expectCaseError(() => e.run(node), c, file.label, 'webgpu run, host data');
  } else {
    const outs = await e.run(node);
    expectGpuPath(e, c.inputs[0]!.dtype, outs);
    expectOutputs(outs, c, c.inputs[0]!.dtype, 'webgpu, host data');
  }
  // The data input resident on the GPU: outputs must stay there.
  const x = node.inputs[0];
  if (!x || x.dtype === 'string' || 'buffer' in x) return;
  if (c.error && ['DATA_LENGTH', 'DATA_TYPE', 'BAD_SHAPE'].includes(c.error.code)) {
    // Data that fails validation cannot even be uploaded: the upload must refuse it the same way.
    expect(() => upload(x as HostTensor)).toThrow(expect.objectContaining({ code: c.error.code }));
    return;
  }
  const gx = upload(x as HostTensor);
  const resident = { ...node, inputs: [gx, ...node.inputs.slice(1)] };
  if (c.error) {
    await expectCaseError(() => e.run(resident), c, file.label, 'webgpu run, GPU data');
  } else {
    const outs = (await e.run(resident)) as unknown as GpuTensor[];
    for (const o of outs) expect('buffer' in o, 'a GPU-resident input gives GPU outputs').toBe(true);
    expectGpuWork(e, outs, { input: gx });
    expectOutputs(await Promise.all(outs.map((o) => e.download(o))), c, c.inputs[0]!.dtype, 'webgpu, GPU data');
    for (const o of outs) e.release(o);
  }
  e.release(gx);
}

for (const file of files) {
  describe(file.label, () => {
    for (const c of file.cases) {
      if (needsDevice(c)) gpuTest(`cpu: ${c.name}`, (g) => onCpu(file, c, g));
      else test(`cpu: ${c.name}`, () => onCpu(file, c));
      gpuTest(`webgpu: ${c.name}`, (g) => onGpu(file, c, g));
    }
  });
}
