// The built bundle, GPU-resident, on each browser's own adapter: Chromium (Dawn, Tint) and Firefox
// (wgpu, naga) on the same Vulkan driver. The page (test/browser/fixtures/resident.mjs) writes
// inputs made here into buffers of its own, Cleave splits them (split, `into`, encodeSplit), and the
// page reads the buffers back itself; every output is compared here with the tests' own reference
// (helpers/reference.ts, helpers/packed.ts: nothing of src/). Prepared splits are called again and
// again there: on uploads, in the page's buffers, encoded, into a moving cache slot, and refused.
// The last test names what differs between the two implementations as Cleave sees them.

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BROWSER_NAMES, type BrowserName } from '../helpers/browser.js';
import { type FixturePage, openFixture } from '../helpers/fixture-page.js';
import { hashParams, randomSizes, randomTensor, rng } from '../helpers/cases.js';
import { FIXED_REF_DTYPES, REF_TYPES, type RefDType } from '../helpers/dtypes.js';
import { type RefTensor, bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import {
  type Case,
  type Placed,
  type PreparedAnswer,
  type PreparedCall,
  type PreparedCase,
  type Split,
  base64,
  bytes,
  make,
  mismatch,
  noise,
  preparedMismatches,
  preparedToPage,
  toPage,
} from '../helpers/resident-page.js';
import { type AdapterFacts, expectDifferences } from '../helpers/webgpu-differences.js';
import { SHADER_VARIANTS } from '../../src/gpu/pipelines.js';
import type { DType } from '../../src/index.js';

const FACTS = new Map<BrowserName, AdapterFacts>();

/** A split of [dtype, shape] along `axis`, prepared on one seeded tensor, each call on another; `other`: a row more. */
function prepared(
  dtype: RefDType,
  shape: number[],
  axis: number,
  sizes: number[],
  calls: Omit<PreparedCall, 'x'>[],
  extra: Partial<PreparedCase> = {},
): PreparedCase {
  const seed = hashParams({ dtype, shape, sizes, prepared: true });
  const x = (k: number, s = shape) => randomTensor(dtype as DType, s, rng(seed + k));
  const other = x(-1, [shape[0]! + 1, ...shape.slice(1)]);
  return {
    x: x(0),
    axis,
    sizes,
    options: { axis, sizes },
    other,
    ...extra,
    calls: calls.map((c, k) => ({ ...c, x: x(k + 1) })),
  };
}

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let page: FixturePage | undefined;
  const call = <T>(fn: string, ...args: unknown[]) => page!.call<T>(fn, ...args);

  beforeAll(async () => {
    page = await openFixture({ browser, name: 'resident', global: 'resident', dist: ['cleave.js'], only: [] });
    FACTS.set(browser, { ...(await call<AdapterFacts>('setup')), readbackMs: await call<number>('readbackMs') });
  });
  afterAll(() => page?.close());
  afterEach(async () => {
    expect(page ? await page.problems() : []).toEqual([]);
  });

  /** Splits the cases in the page, expects each to equal the reference; returns the page's answer. */
  async function expectSplits(cases: Case[]) {
    const r = await call<{ results: Split[]; buffers: string[]; pipelines: number }>('split', cases.map(toPage));
    const buffers = r.buffers.map(bytes);
    const problems = cases.map((c, i) => {
      const m = mismatch(c, r.results[i]!, buffers);
      return m && `${c.x.dtype} [${c.x.shape}] axis ${c.axis} into [${c.sizes}]: ${m}`;
    });
    expect(problems.filter(Boolean)).toEqual([]);
    return r;
  }

  test('a real WebGPU adapter: navigator.gpu, an adapter, a device; Cleave on the WebGPU backend', () => {
    const f = FACTS.get(browser)!;
    expect(f.userAgent).toMatch(browser === 'firefox' ? /\bFirefox\/\d+/ : /\bHeadlessChrome\/\d+/);
    expect(f.backend).toBe('webgpu');
    expect(f.deviceLimits.maxStorageBufferBindingSize).toBeGreaterThan(0);
    console.log(
      `${browser}: ${f.userAgent}; adapter info ${JSON.stringify(f.adapter.info)}; ` +
        `a submit's readback takes ${f.readbackMs.toFixed(1)} ms (median of 5)`,
    );
  });

  test('every fixed dtype: [3, 13, 3] split along axis 1, each output equal to the reference', async () => {
    const cases = FIXED_REF_DTYPES.map((d, i) => make(d, [3, 13, 3], 1, randomSizes(13, 2 + (i % 4), rng(i + 1))));
    const r = await expectSplits(cases);
    expect(r.results.every((s) => ['copy', 'gather'].includes(s.stats.strategy))).toBe(true);
  });

  test('harder paths: packed rows across words, float16, int64 with an empty output, long rows, views', async () => {
    const cases = [
      make('uint1', [4, 1203], 1, [601, 602]), // MSB-first, rows of 1203 bits: seams inside words
      make('uint3', [6, 35], 1, [4, 17, 14]),
      make('uint4', [5, 9], 1, [3, 5, 1]), // boundaries inside bytes
      make('int4', [7, 33], 0, [2, 5]),
      make('float16', [4, 6, 10], 1, [1, 2, 3]),
      make('int64', [6, 10], 1, [3, 0, 7]),
      make('float32', [3, 2000], 1, [700, 1300], { byteOffset: 256 }), // rows past 256 words, input at an offset
      make('bool', [5, 7], 1, [2, 5], { options: { axis: 1, sizes: [2, 5], layout: 'separate' } }),
      make('int64', [64, 4], 0, [32, 32], { options: { axis: 0, sizes: [32, 32], alias: 'any' } }),
    ];
    const r = await expectSplits(cases);
    const separate = r.results[7]!.outputs;
    expect(separate.map((o) => o.byteOffset)).toEqual([0, 0]);
    expect(separate[0]!.buffer).not.toBe(separate[1]!.buffer);
    const views = r.results[8]!;
    expect([views.stats.strategy, views.outputs.map((o) => [o.view, o.byteOffset])]).toEqual([
      'alias',
      [
        [true, 0],
        [true, 1024],
      ],
    ]);
    expect(r.results.slice(0, 8).every((s) => s.outputs.every((o) => !o.view))).toBe(true);
  });

  test('4096 outputs (float32 and uint4), one dispatch each', async () => {
    const ones = Array<number>(4096).fill(1);
    const cases = (['float32', 'uint4'] as const).map((d) =>
      make(d, [3, 4096], 1, ones, { options: { axis: 1, parts: 4096 }, strategy: 'gather' }),
    );
    const r = await expectSplits(cases);
    expect(r.results.map((s) => [s.stats.strategy, s.stats.dispatches])).toEqual([
      ['gather', 1],
      ['gather', 1],
    ]);
  });

  test('every shader variant compiles and runs: 32-, 64- and 128-bit words, bits LSB- and MSB-first; one target or many', async () => {
    const kinds = [
      ['float32', [4, 6], [1, 5]],
      ['float32', [4, 8], [2, 6]],
      ['float32', [4, 16], [4, 12]],
      ['uint4', [3, 9], [4, 5]],
      ['uint1', [3, 37], [12, 25]],
    ] as const;
    const cases = (['shared', 'separate'] as const).flatMap((layout) =>
      kinds.map(([dtype, shape, sizes]) => {
        const c = make(dtype, [...shape], 1, [...sizes], { strategy: 'gather' });
        return { ...c, options: { ...c.options, layout } };
      }),
    );
    const r = await expectSplits(cases);
    expect(r.results.map((s) => s.stats.unitBits)).toEqual([32, 64, 128, 1, 1, 32, 64, 128, 1, 1]);
    expect(r.results.map((s) => s.stats.dispatches)).toEqual(Array(10).fill(1));
    expect(r.pipelines).toBe(SHADER_VARIANTS);
  });

  test('into: K and V into slot 5 of [1, 3, 8, d] caches, q placed by the engine; packed rows ending inside words', async () => {
    const cases = (['float16', 'int4', 'uint1'] as const).map((dtype, k) => {
      const [H, T] = [3, 8];
      const d = { float16: 4, int4: 8, uint1: 32 }[dtype];
      const w = REF_TYPES[dtype].bits;
      const cache = Math.ceil((H * T * d * w) / 8 / 4) * 4;
      const slot = (buffer: number) => ({
        dtype,
        shape: [1, H, 1, d],
        buffer,
        byteOffset: (5 * d * w) / 8,
        strides: [H * T * d, T * d, d, 1],
      });
      return make(dtype, [1, 3 * H, 1, d], 1, [H, H, H], {
        options: { axis: 1, sizes: [H, H, H], into: [undefined, slot(0), slot(1)] },
        destinations: [noise(cache, 2 * k + 1), noise(cache, 2 * k + 2)],
      });
    });
    // Rows that end inside a 32-bit word of their destination: the bits after them are the neighbours'.
    const rows = (dtype: 'uint4' | 'uint1', width: number, sizes: number[], at: number) =>
      make(dtype, [3, width], 1, sizes, {
        options: {
          axis: 1,
          sizes,
          into: [
            { dtype, shape: [3, sizes[0]], buffer: 0, byteOffset: at, strides: [32 / REF_TYPES[dtype].bits, 1] },
            undefined,
          ],
        },
        destinations: [noise(4 * at, width)],
      });
    const r = await expectSplits([...cases, rows('uint4', 12, [5, 7], 8), rows('uint1', 40, [13, 27], 4)]);
    expect(r.results.map((s) => s.outputs.map((o) => o.strides?.length ?? 0))).toEqual([
      [0, 4, 4],
      [0, 4, 4],
      [0, 4, 4],
      [2, 0],
      [2, 0],
    ]);
  });

  test("encodeSplit twice in the page's one encoder, the input rewritten between them: each saw it as it was", async () => {
    const first = make('uint4', [4, 10], 1, [3, 7]);
    const second = randomTensor('uint4', [4, 10], rng(99));
    const r = await call<{ errors: string[]; submits: number; outputs: Placed[][]; buffers: string[] }>(
      'encodeSplit',
      toPage(first),
      base64(bitsOf(second) as Uint8Array),
      { axis: 0, sizes: [1, 3] },
    );
    expect([r.errors, r.submits]).toEqual([[], 1]);
    const buffers = r.buffers.map(bytes);
    const seen = (outs: Placed[]) =>
      outs.map((o) => buffers[o.buffer]!.subarray(o.byteOffset, o.byteOffset + o.byteLength));
    const check = (outs: Placed[], x: RefTensor, axis: number, sizes: number[]) =>
      referenceSplit(x, axis, sizes).map((want, i) => firstMismatch(seen(outs)[i]!, want as Uint8Array));
    expect(check(r.outputs[0]!, first.x, 1, [3, 7])).toEqual([undefined, undefined]);
    expect(check(r.outputs[1]!, second, 0, [1, 3])).toEqual([undefined, undefined]);
  });

  /** A prepared case in the page: every call without error and equal to the reference; what the refusals said. */
  async function expectPrepared(c: PreparedCase) {
    const a = await call<PreparedAnswer>('prepared', preparedToPage(c));
    expect(a.results.map((r) => r.errors)).toEqual(c.calls.map(() => []));
    expect(preparedMismatches(c, a)).toEqual([]);
    return a;
  }

  test("prepare: an upload split 3 times, encoded twice, the page's buffer at 256 and 4; a shape refused", async () => {
    const calls = [
      ...(['split', 'split', 'split', 'encode', 'encode'] as const).map((how) => ({ how })),
      { how: 'split' as const, byteOffset: 256 },
      { how: 'encode' as const, byteOffset: 4 },
    ];
    const cases = [prepared('float32', [3, 40], 1, [8, 31, 1], calls), prepared('uint4', [5, 9], 1, [3, 5, 1], calls)];
    const answers = [];
    for (const c of cases) answers.push(await expectPrepared(c));
    for (const a of answers) {
      expect(a.results.every((r) => ['copy', 'gather'].includes(r.stats.strategy))).toBe(true);
      expect(a.results.every((r) => r.outputs.every((o) => !o.view))).toBe(true);
    }
    // The exact messages, the page's SplitError with its code.
    const said = (how: string, rest: string) => `SplitError BAD_SHAPE: prepared ${how}: prepared for ${rest}`;
    const f32 = 'a GPU tensor of float32 [3, 40], got a GPU tensor of float32 [4, 40]';
    const u4 = 'a GPU tensor of uint4 [5, 9], got a GPU tensor of uint4 [6, 9]';
    expect(answers.map((a) => a.refusals)).toEqual([f32, u4].map((t) => [said('split', t), said('encode', t)]));
  });

  test("prepare: views of each call's own upload; its encode does not view (alias 'none' by default)", async () => {
    const calls = (['split', 'split', 'split', 'encode'] as const).map((how) => ({ how }));
    const a = await expectPrepared(prepared('uint8', [1024], 0, [256, 768], calls));
    const seen = a.results.map((r) => [r.stats.strategy === 'alias', r.outputs.map((o) => [o.view, o.byteOffset])]);
    const views = [
      [true, 0],
      [true, 256],
    ];
    expect(seen).toEqual([
      ...Array<unknown>(3).fill([true, views]),
      [
        false,
        [
          [false, 0],
          [false, 256],
        ],
      ],
    ]);
  });

  test('prepare: K and V into a cache slot that moves (split, encode), then the prepared slot 0', async () => {
    const cases = (['float16', 'int4'] as const).map((dtype, k) => {
      const [H, T, d] = [3, 8, { float16: 4, int4: 8 }[dtype]];
      const row = (d * REF_TYPES[dtype].bits) / 8;
      const slot = (buffer: number, t: number) => ({
        ...{ dtype, shape: [1, H, 1, d], buffer, byteOffset: t * row },
        strides: [H * T * d, T * d, d, 1],
      });
      const into = (t: number) => [undefined, slot(0, t), slot(1, t)];
      const calls = [1, 2, 5, 7].map((t, i) => ({
        how: i % 2 ? ('encode' as const) : ('split' as const),
        into: into(t),
      }));
      return prepared(dtype, [1, 3 * H, 1, d], 1, [H, H, H], [...calls, { how: 'split' }], {
        options: { axis: 1, sizes: [H, H, H], into: into(0) },
        destinations: [noise(H * T * row, 10 + k), noise(H * T * row, 20 + k)],
      });
    });
    for (const c of cases) {
      const a = await expectPrepared(c);
      const row = (c.x.shape[3]! * REF_TYPES[c.x.dtype as RefDType].bits) / 8;
      expect(a.results.map((r) => r.outputs.map((o) => [o.byteOffset, o.strides?.length ?? 0]))).toEqual(
        [1, 2, 5, 7, 0].map((t) => [
          [0, 0],
          [t * row, 4],
          [t * row, 4],
        ]),
      );
    }
  });

  test("a split the GPU refuses (a destroyed input, another device's) rejects with GPU_ERROR, alone", async () => {
    const c = make('float32', [4, 64], 1, [1, 63]);
    type Outcome = { name: string; said: string; beside: { results: Split[]; buffers: string[] } };
    const r = await call<{ outcomes: Outcome[]; appScope: string | null }>('blame', toPage(c));
    // Gather and copies each; the message names the GPU's refusal, in each implementation's words.
    expect(r.outcomes.map((o) => `${o.name}: ${o.said.split(':')[0]}`)).toEqual([
      'destroyed: GPU_ERROR',
      'destroyed: GPU_ERROR',
      'another device: GPU_ERROR',
      'another device: GPU_ERROR',
    ]);
    console.log(`${browser}: ${r.outcomes.map((o) => o.said).join(' | ')}`);
    // The valid split in flight beside each is exact; the application's own scope caught nothing.
    for (const o of r.outcomes) expect(mismatch(c, o.beside.results[0]!, o.beside.buffers.map(bytes))).toBeUndefined();
    expect(r.appScope).toBeNull();
  });
});

test('firefox (wgpu) against chromium (Dawn) on one driver: the differences Cleave sees, each named', () => {
  expectDifferences(FACTS.get('chromium'), FACTS.get('firefox'));
});
