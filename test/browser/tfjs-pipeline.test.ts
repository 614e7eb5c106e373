// Cleave between TensorFlow.js ops, in headless Chromium and Firefox with the real
// TF.js 4.22 (its UMD bundles: core, CPU backend, WebGPU backend) and the built bundle
// (dist/cleave.js, dist/tfjs.js). TF.js's WebGPU backend runs on the device Cleave's engine uses
// (new WebGPUBackend(device)). The page side is test/browser/fixtures/tfjs-pipeline.mjs. Any page
// error, console error, uncaptured GPU error or device loss fails the test that caused it.
//
// - A TF.js op -> Cleave split (fromTfTensor, layout 'separate') -> TF.js ops on each part
//   (toTfTensor), equal bit for bit to TF.js's own tf.split on WebGPU and to TF.js's CPU backend,
//   for float32, int32 and bool (bool travels as int32 words), and for a split into 64 outputs.
// - Ownership: either side let go first, cycle after cycle, leaks nothing (TF.js's tensors and
//   bytes, Cleave's and the device's buffers); freed memory is never handed over (TF.js reusing a
//   disposed tensorRef's buffer does not reach Cleave's copies; alias 'any' is the control).
// - The README's "Use with TensorFlow.js" code runs as written.

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BROWSER_NAMES } from '../helpers/browser.js';
import { type FixturePage, openFixture } from '../helpers/fixture-page.js';
import { draw } from '../../scripts/lib/attention.mjs';

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let fixture: FixturePage | undefined;
  const call = <T>(fn: string, ...args: unknown[]) => fixture!.call<T>(fn, ...args);

  beforeAll(async () => {
    fixture = await openFixture({
      browser,
      name: 'tfjs-pipeline',
      global: 'tfjsPipeline',
      dist: ['cleave.js', 'tfjs.js'],
      only: [
        '/node_modules/@tensorflow/tfjs-core/dist/',
        '/node_modules/@tensorflow/tfjs-backend-cpu/dist/',
        '/node_modules/@tensorflow/tfjs-backend-webgpu/dist/',
      ],
    });
    const env = await call<{ backend: string; tfjs: string }>('setup');
    expect(env).toMatchObject({ backend: 'webgpu', tfjs: '4.22.0' });
  });

  afterAll(() => fixture?.close());

  afterEach(async () => {
    expect(fixture ? await fixture.problems() : []).toEqual([]);
  });

  /** Deterministic values in [lo, hi], times `step` (eighths and quarters are exact floats). */
  const values = (n: number, seed: number, lo: number, hi: number, step = 1) =>
    [
      ...draw(
        n,
        seed,
        Array.from({ length: hi - lo + 1 }, (_, i) => lo + i),
      ),
    ].map((v) => v * step);

  interface PipelineResult {
    handedOver: { dtype: string; shape: number[]; byteOffset: number; byteLength: number };
    padding: number;
    strategy: string;
    handedBack: { dtype: string; shape: number[] }[];
    viaCleave: number[][];
    webgpu: number[][];
    cpu: number[][];
  }

  const CASES = [
    { dtype: 'float32', shape: [4, 6, 8], axis: 1, sizes: [1, 2, 3], x: values(192, 3, -4000, 4000, 1 / 8) },
    { dtype: 'int32', shape: [5, 12], axis: 1, sizes: [5, 0, 7], x: values(60, 5, -100000, 100000) },
    { dtype: 'bool', shape: [3, 7, 2], axis: 1, sizes: [3, 4], x: values(42, 9, -3, 3) },
    {
      dtype: 'float32',
      shape: [2, 64, 4],
      axis: 1,
      sizes: Array<number>(64).fill(1),
      x: values(512, 11, -999, 999, 1 / 4),
    },
  ] as const;

  test.each(CASES)(
    "TF.js op -> Cleave split -> TF.js ops: $dtype $shape into $sizes.length along $axis, equal to tf.split on WebGPU and TF.js's CPU backend",
    async (c) => {
      const r = await call<PipelineResult>('pipeline', c);
      const word = c.dtype === 'bool' ? 'int32' : c.dtype;
      expect(r.handedOver).toEqual({ dtype: word, shape: c.shape, byteOffset: 0, byteLength: 4 * c.x.length });
      expect(r.padding).toBeGreaterThanOrEqual(0);
      expect(r.strategy).not.toBe('alias'); // TF.js's buffer is the caller's: copied
      expect(r.handedBack).toEqual(
        c.sizes.map((s) => ({ dtype: word, shape: c.shape.map((d, i) => (i === c.axis ? s : d)) })),
      );
      expect(r.viaCleave).toHaveLength(c.sizes.length);
      expect(r.viaCleave).toEqual(r.webgpu);
      expect(r.viaCleave).toEqual(r.cpu);
      // The ops changed something: a pipeline that returned its input would not pass for one that ran.
      expect(r.viaCleave.flat().length).toBe(c.x.length);
    },
  );

  interface Counts {
    tensors: number;
    bytes: number;
    cleaveBuffers: number;
    deviceBuffers: number;
  }

  test.each(['tf-first', 'cleave-first'] as const)(
    'ownership, %s: six cycles leave TF.js, Cleave and the device where the first one left them',
    async (order) => {
      const r = await call<{ counts: Counts[]; values: number[][] }>('ownership', order, 6);
      expect(r.counts).toHaveLength(6);
      for (const c of r.counts) expect(c).toEqual(r.counts[0]);
      expect(r.counts[0]).toMatchObject({ tensors: 0, bytes: 0 });
      r.values.forEach((v, i) => {
        const x = Array.from({ length: 256 }, (_, j) => 0 - (j + i));
        const cols = (lo: number, hi: number) => [0, 1, 2, 3].flatMap((row) => x.slice(row * 64 + lo, row * 64 + hi));
        expect(v).toEqual([...cols(0, 16), ...cols(16, 64)]);
      });
    },
  );

  interface ReuseResult {
    strategy: string;
    views: boolean[];
    before: number[][];
    after: number[][];
    reused: boolean;
    takenByTf: boolean;
    kept: number[];
    refusals: string[];
  }
  const rows = (k: number) => [0, 1, 2, 3].map((r) => Array.from({ length: 64 }, (_, j) => (r * 64 + j + 1) * k));

  test("freed memory is never handed over: TF.js reusing tensorRef's buffer does not reach Cleave's copies; TF.js never takes Cleave's buffer", async () => {
    const r = await call<ReuseResult>('reuse', 'owned');
    expect(r.reused).toBe(true); // TF.js really gave the freed buffer to its next op
    expect(r.views).toEqual([false, false, false, false]);
    expect(r.before).toEqual(rows(1));
    expect(r.after).toEqual(rows(1));
    expect(r.takenByTf).toBe(false);
    expect(r.kept).toEqual(Array.from({ length: 256 }, (_, i) => i));
    expect(r.refusals).toEqual([
      'toTfTensor of a released tensor: RELEASED',
      'fromTfTensor of a disposed tensor: RELEASED',
    ]);
  });

  test("control, alias 'any' and tensorRef disposed too early: the outputs are views of TF.js's buffer and show its next op", async () => {
    const r = await call<ReuseResult>('reuse', 'any');
    expect(r.strategy).toBe('alias');
    expect(r.reused).toBe(true);
    expect(r.views).toEqual([true, true, true, true]);
    expect(r.before).toEqual(rows(1));
    expect(r.after).toEqual(rows(-1));
  });

  test("the README's TensorFlow.js snippet runs as written: TF.js on the engine's device, y equal to TF.js's own split", async () => {
    const r = await call<{ same: boolean; n: number; sameDevice: boolean; tensorRefShape: number[] }>('readme');
    // tensorRef carries the shape TF.js's backend recorded for the data (matMul's batch of 1), not qk's.
    expect(r).toEqual({ same: true, n: 64 * 64, sameDevice: true, tensorRefShape: [1, 64, 128] });
  });
});
