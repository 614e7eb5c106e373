// Cleave inside an ONNX Runtime Web pipeline, in headless Chromium and Firefox with the real
// onnxruntime-web (native WebGPU EP, ort.webgpu.min.mjs) and the built bundle (dist/cleave.js,
// dist/ort.js). One GPUDevice, created by the page, is handed to Cleave's engine and to every ORT
// session. The page side is test/browser/fixtures/ort-pipeline.mjs; models come from the shared
// attention builder (scripts/lib/attention.mjs) and are served from memory. Any page error,
// console error, uncaptured GPU error or device loss fails the test that caused it.
//
// (a) A's MatMul -> Cleave splits Q, K, V -> B equals ORT's whole graph (own Split), bit for bit.
// (b) 12 heads: ORT's WebGPU Split needs a storage buffer per output and fails; Cleave's pipeline
//     runs and equals ORT's CPU EP on the whole graph.
// (c) ORT reuses its output buffer after dispose(): with default options Cleave's outputs keep the
//     first run's data; with alias 'any' they are views and change (the control).
// (d) encodeSplit between the caller's passes, in the caller's one submit; several in one encoder
//     with the input rewritten between them; a late submit after the engine's own splits.
// The README's "Use with ONNX Runtime Web" code runs as written, on its own engine's device.

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BROWSER_NAMES } from '../helpers/browser.js';
import { type FixturePage, openFixture } from '../helpers/fixture-page.js';
import { numel } from '../helpers/dtypes.js';
import { buildModel, node, tensor } from '../../scripts/lib/onnx-model.mjs';
import { attentionModels, attentionReference, draw, namesOf } from '../../scripts/lib/attention.mjs';

/** Sequence length, model width, attention width (Q, K and V each [1, S, H]); heads for (b). */
const S = 8,
  D = 8,
  H = 16,
  HEADS = 4,
  DH = H / HEADS;

/** Deterministic integers in [lo, hi]. */
const ints = (n: number, seed: number, lo: number, hi: number) => [
  ...draw(
    n,
    seed,
    Array.from({ length: hi - lo + 1 }, (_, i) => lo + i),
  ),
];
/** Deterministic floats in [-1, 1) with 19 fraction bits: rounding happens in every product sum. */
const floats = (n: number, seed: number) => ints(n, seed, 0, (1 << 20) - 1).map((v) => v / (1 << 19) - 1);

// Small integers keep every MatMul exact in float32 (|partial sums| < 2^24), whatever the order.
const W_INT = Float32Array.from(ints(D * 3 * H, 7, -2, 2));
const X_INT = ints(S * D, 3, -2, 2);
const W_FLOAT = Float32Array.from(floats(D * 3 * H, 17));
const X_FLOAT = floats(S * D, 23);

/** (a)'s pipeline: Q, K and V of one head each; (b)'s: 12 parts for four heads. */
const ONE_HEAD = { seq: S, width: D, hidden: H, heads: 1 };
const FOUR_HEADS = { ...ONE_HEAD, heads: HEADS };
const HEAD_NAMES = namesOf(FOUR_HEADS);

function models(): Map<string, Uint8Array> {
  const [int3, float3, int12] = [
    attentionModels(ONE_HEAD, W_INT),
    attentionModels(ONE_HEAD, W_FLOAT),
    attentionModels(FOUR_HEADS, W_INT),
  ];
  // Rows of 64 float32 = 256 bytes: a split along axis 1 gives chunks 0.1 would have aliased.
  const a256 = buildModel({
    opset: 18,
    nodes: [node('MatMul', ['x', 'w'], ['qkv'])],
    initializers: [tensor('w', 'float32', [D, 64], Float32Array.from(ints(D * 64, 11, -2, 2)))],
    inputs: [{ name: 'x', dtype: 'float32', shape: [1, 4, D] }],
    outputs: [{ name: 'qkv', dtype: 'float32', shape: [1, 4, 64] }],
  });
  return new Map([
    ['a', int3.a],
    ['a-float', float3.a],
    ['a256', a256],
    ['b3', int3.b],
    ['b12', int12.b],
    ['whole3', int3.whole],
    ['whole3-float', float3.whole],
    ['whole12', int12.whole],
  ]);
}

/** The independent oracle for integer inputs (exact in doubles), as float32 bit patterns. */
const reference = (x: number[], w: Float32Array, shape: typeof ONE_HEAD) => [
  ...new Uint32Array(attentionReference(shape, Float32Array.from(x), w).y.buffer),
];

/** `data` (row-major `shape`) cut into chunks of `sizes` along `axis`, each row-major. */
function chunks(data: readonly number[], shape: readonly number[], axis: number, sizes: readonly number[]): number[][] {
  const outer = numel(shape.slice(0, axis));
  const inner = numel(shape.slice(axis + 1));
  let start = 0;
  return sizes.map((len) => {
    const out: number[] = [];
    for (let o = 0; o < outer; o++)
      out.push(...data.slice((o * shape[axis]! + start) * inner, (o * shape[axis]! + start + len) * inner));
    start += len;
    return out;
  });
}
/** The input of (d), and what the caller's fill pass writes into it: x[i] = i * a + b. */
const X_D = [8, 64];
const filled = ([a, b]: readonly number[]) => Array.from({ length: 512 }, (_, i) => i * a! + b!);

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let fixture: FixturePage | undefined;
  let limits: { maxStorageBuffersPerShaderStage: number };
  const call = <T>(fn: string, ...args: unknown[]) => fixture!.call<T>(fn, ...args);

  beforeAll(async () => {
    const built = models();
    fixture = await openFixture({
      browser,
      name: 'ort-pipeline',
      global: 'ortPipeline',
      dist: ['cleave.js', 'ort.js'],
      only: ['/node_modules/onnxruntime-web/dist/'],
      memory: (p) =>
        p.startsWith('/model/') && p.endsWith('.onnx')
          ? built.get(p.slice('/model/'.length, -'.onnx'.length))
          : undefined,
    });
    limits = await call('setup');
  });

  afterAll(() => fixture?.close());

  afterEach(async () => {
    expect(fixture ? await fixture.problems() : []).toEqual([]);
  });

  interface PipelineResult {
    handedOver: { location: string; dims: number[]; type: string };
    stats: { strategy: string; dispatches: number };
    layout: { shape: number[]; byteOffset: number; distinct: boolean }[];
    viaCleave: number[];
    webgpu: { bits?: number[]; error?: string };
    wasm: { bits?: number[]; error?: string };
  }
  const pipeline = (c: { a: string; b: string; whole: string; parts: number; names: string[]; x: number[] }) =>
    call<PipelineResult>('pipeline', { ...c, dims: [1, S, D] });

  test("(a) A -> Cleave splits Q, K, V -> B equals ORT's whole graph with its own Split, bit for bit", async () => {
    const r = await pipeline({ a: 'a', b: 'b3', whole: 'whole3', parts: 3, names: ['q', 'k', 'v'], x: X_INT });
    expect(r.handedOver).toEqual({ location: 'gpu-buffer', dims: [1, S, 3 * H], type: 'float32' });
    expect(r.layout).toEqual(Array(3).fill({ shape: [1, S, H], byteOffset: 0, distinct: true }));
    expect(r.webgpu.error).toBeUndefined();
    expect(r.viaCleave).toEqual(r.webgpu.bits);
    expect(r.viaCleave).toEqual(reference(X_INT, W_INT, ONE_HEAD));
    expect(r.wasm.bits).toEqual(r.viaCleave);
  });

  test('(a) with non-integer inputs too: the same kernels on the same bytes, so the same bits', async () => {
    const r = await pipeline({
      a: 'a-float',
      b: 'b3',
      whole: 'whole3-float',
      parts: 3,
      names: ['q', 'k', 'v'],
      x: X_FLOAT,
    });
    expect(r.viaCleave).toEqual(r.webgpu.bits);
    // ORT's CPU EP sums in its own order: close, and not asserted bit for bit.
    const f = (u: number[]) => new Float32Array(Uint32Array.from(u).buffer);
    const [got, cpu] = [f(r.viaCleave), f(r.wasm.bits!)];
    got.forEach((v, i) => expect(Math.abs(v - cpu[i]!)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(cpu[i]!))));
  });

  test("(b) 12 heads: ORT's WebGPU Split fails for want of storage buffers; the pipeline through Cleave equals ORT's CPU EP", async () => {
    const r = await pipeline({ a: 'a', b: 'b12', whole: 'whole12', parts: 12, names: HEAD_NAMES, x: X_INT });
    console.log(
      `(b) ORT WebGPU, whole graph with Split into 12 (maxStorageBuffersPerShaderStage ${limits.maxStorageBuffersPerShaderStage}): ${r.webgpu.error ?? 'ran'}`,
    );
    if (12 + 1 > limits.maxStorageBuffersPerShaderStage) {
      expect(r.webgpu.error).toMatch(/Too many storage buffers in shader\. Current: \d+, Max is \d+/);
    } else {
      expect(r.webgpu.bits).toEqual(r.viaCleave); // a device with more storage buffers per stage: ORT runs it
    }
    expect(r.layout).toEqual(Array(12).fill({ shape: [1, S, DH], byteOffset: 0, distinct: true }));
    // Each output written once, straight into its own buffer: one dispatch per six buffers, no copy after them.
    expect(r.stats).toMatchObject({ strategy: 'gather', dispatches: 2, copies: 0 });
    expect(r.wasm.error).toBeUndefined();
    expect(r.viaCleave).toEqual(r.wasm.bits);
    expect(r.viaCleave).toEqual(reference(X_INT, W_INT, FOUR_HEADS));
  });

  interface HazardResult {
    strategy: string;
    reused: boolean;
    views: boolean[];
    offsets: number[];
    run1: number[];
    run2: number[];
    before: number[][];
    after: number[][];
  }
  const hazard = (how: 'split' | 'run' | 'any') =>
    call<HazardResult>('hazard', { how, x1: ints(32, 5, -2, 2), x2: ints(32, 9, -2, 2), dims: [1, 4, D] });
  const rows = (run: number[]) => chunks(run, [1, 4, 64], 1, [1, 1, 1, 1]);

  test.each(['split', 'run'] as const)(
    "(c) default options (%s): ORT reusing its buffer does not reach Cleave's outputs",
    async (how) => {
      const r = await hazard(how);
      expect(r.reused).toBe(true); // ORT really wrote run 2 into the buffer Cleave split
      rows(r.run1).forEach((c, i) => expect(c).not.toEqual(rows(r.run2)[i]));
      // Not views: copies or a gather, whichever the costs measured on this device make cheaper.
      expect(['copy', 'gather']).toContain(r.strategy);
      expect(r.views).toEqual([false, false, false, false]);
      expect(r.before).toEqual(rows(r.run1));
      expect(r.after).toEqual(rows(r.run1));
    },
  );

  test("(c) control, alias 'any': the outputs are views of ORT's buffer and show its second run", async () => {
    const r = await hazard('any');
    expect(r.reused).toBe(true);
    expect(r.strategy).toBe('alias');
    expect(r.views).toEqual([true, true, true, true]);
    expect(r.offsets).toEqual([0, 256, 512, 768]);
    expect(r.before).toEqual(rows(r.run1));
    expect(r.after).toEqual(rows(r.run2));
  });

  test("(d) the caller's pass -> encodeSplit -> the caller's pass, in one submit", async () => {
    const r = await call<{
      submits: number;
      errors: string[];
      stats: object;
      offsets: number[];
      shapes: number[][];
      doubled: number[];
      outputs: number[][];
    }>('oneSubmit');
    const want = chunks(filled([3, -7]), X_D, 1, [3, 61]);
    expect(r.submits).toBe(1);
    expect(r.errors).toEqual([]);
    expect(r.stats).toMatchObject({ strategy: 'gather', dispatches: 1 });
    expect(r.shapes).toEqual([
      [8, 3],
      [8, 61],
    ]);
    expect(r.outputs).toEqual(want);
    expect(r.doubled).toEqual(want[1]!.map((v) => 2 * v));
  });

  test('(d) several encodeSplit calls in one encoder, the input rewritten between them: each sees it as it was', async () => {
    const r = await call<{
      submits: number;
      errors: string[];
      splits: {
        fill: number[];
        options: { axis: number; sizes?: number[]; parts?: number };
        strategy: string;
        views: boolean[];
        outputs: number[][];
      }[];
    }>('severalSplits');
    expect(r.submits).toBe(1);
    expect(r.errors).toEqual([]);
    expect(new Set(r.splits.map((s) => s.strategy))).toEqual(new Set(['gather', 'copy']));
    for (const s of r.splits) {
      const sizes = s.options.sizes ?? Array(s.options.parts).fill(X_D[s.options.axis]! / s.options.parts!);
      expect(s.views.some(Boolean)).toBe(false);
      expect(s.outputs).toEqual(chunks(filled(s.fill), X_D, s.options.axis, sizes));
    }
  });

  test("(d) a late submit: the engine's own splits before the caller submits change nothing; unsubmitted encoders leak nothing", async () => {
    const r = await call<{
      errors: string[];
      host: number[][];
      ownBefore: number[][];
      ownAfter: number[][];
      late: number[][];
      liveBuffersAfterUnsubmitted: number[];
    }>('lateSubmit');
    const other = Array.from({ length: 512 }, (_, i) => 1000 - i);
    const own = chunks(
      other.map((v) => -v),
      X_D,
      1,
      [3, 61],
    );
    expect(r.errors).toEqual([]);
    expect(r.late).toEqual(chunks(filled([5, 3]), X_D, 1, [3, 61]));
    expect(r.host).toEqual(chunks(other, X_D, 1, [3, 61]));
    expect(r.ownBefore).toEqual([...own, ...own]);
    expect(r.ownAfter).toEqual([...own, ...own]);
    expect(new Set(r.liveBuffersAfterUnsubmitted).size).toBe(1);
  });

  test('the README snippet runs; its device outlives both ORT sessions and dies with engine.destroy()', async () => {
    const r = await call<{
      y: number[];
      separateDevice: boolean;
      lostAfterRelease: string;
      afterRelease: number[];
      lostAfterDestroy: string;
    }>('readme', X_INT, [1, S, D]);
    expect(r.separateDevice).toBe(true);
    expect(r.y).toEqual(reference(X_INT, W_INT, ONE_HEAD));
    expect(r.lostAfterRelease).toBe('');
    expect(r.afterRelease).toEqual([1, 2]);
    expect(r.lostAfterDestroy).toBe('destroyed');
  });

  test("why the rule: releasing the last session of a device ORT created destroys it, under Cleave's engine too", async () => {
    const r = await call<{ isGpuDevice: boolean; notShared: boolean; before: number; lost: string; after: string }>(
      'ortsOwnDevice',
    );
    console.log(`ORT's own device after its last session's release: lost '${r.lost}'; Cleave then: ${r.after}`);
    expect(r).toMatchObject({ isGpuDevice: true, notShared: true, before: 2, lost: 'destroyed' });
    expect(r.after).toMatch(/^DEVICE_LOST: /);
  });
});
