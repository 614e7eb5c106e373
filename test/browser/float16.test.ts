// float16 host data as a Float16Array, in the browsers that have one (Chromium and Firefox here;
// Node 20 has none): split through the GPU (a WebGPU engine) and on the CPU (a CPU engine), made by
// the factory, as a literal and as a node input, the outputs come back as Float16Arrays holding the
// reference's bits (test/helpers/reference.ts, nothing of src/), NaN payloads included. An upload
// keeps the bits and a download returns them as bits (a Uint16Array), or with `array: 'Float16Array'`
// as values. A Float16Array for any other dtype is refused by name. The page also checks Cleave's
// conversions against the browser's own.
// A browser without Float16Array fails here: both pinned browsers have it.

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BROWSER_NAMES } from '../helpers/browser.js';
import { type FixturePage, openFixture } from '../helpers/fixture-page.js';
import { rng } from '../helpers/cases.js';
import { referenceSplit } from '../helpers/reference.js';

// Bits chosen for what a conversion to numbers would lose or change: NaNs with payloads, -0, the
// infinities, subnormals, the largest finite values; then ordinary values.
const SPECIAL = [0x7e01, 0xfd55, 0x8000, 0x0000, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x3c00, 0xc000];
const SHAPE = [3, 8];
const BITS = [...SPECIAL, ...Array.from({ length: 12 }, (_, i) => (0x3555 * (i + 1)) & 0xffff)];

/** The reference outputs' bits: split [3, 8] along axis 1 into [3, 5] (rows cut inside, outputs not aligned). */
function expected(): number[][] {
  const outs = referenceSplit({ dtype: 'float16', shape: SHAPE, data: Uint16Array.from(BITS) }, 1, [3, 5]);
  return outs.map((o) => [...new Uint16Array((o as Uint8Array).slice().buffer)]);
}

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let page: FixturePage | undefined;
  const call = <T>(fn: string, ...args: unknown[]) => page!.call<T>(fn, ...args);

  beforeAll(async () => {
    page = await openFixture({ browser, name: 'float16', global: 'float16', dist: ['cleave.js'], only: [] });
  });
  afterAll(() => page?.close());
  afterEach(async () => {
    expect(page ? await page.problems() : []).toEqual([]);
  });

  test('the browser has Float16Array, and a WebGPU adapter', async () => {
    const r = await call<{ userAgent: string; float16Array: string; backend: string }>('setup');
    expect(r.float16Array, `${r.userAgent} has no Float16Array`).toBe('function');
    expect(r.backend).toBe('webgpu');
  });

  test('a Float16Array split on the GPU and on the CPU: Float16Arrays out, with the bits of the reference', async () => {
    const r = await call<Record<string, unknown>>('split', BITS, SHAPE, 1, [3, 5]);
    const want = expected().map((bits, i) => ({ array: 'Float16Array', shape: [3, [3, 5][i]], bits }));
    for (const engine of ['webgpu', 'cpu'])
      for (const form of ['factory', 'literal', 'run'])
        expect(r[`${engine} ${form}`], `${engine} ${form}`).toEqual(want);
    expect(r['webgpu strategy']).not.toBe('cpu');
    expect(r['cpu strategy']).toBe('cpu');
  });

  test("upload keeps the bits; download returns them as bits, or with array 'Float16Array' as values", async () => {
    expect(await call('roundTrip', BITS)).toEqual({
      dtype: 'float16',
      byteLength: 2 * BITS.length,
      download: { array: 'Uint16Array', shape: [BITS.length], bits: BITS },
      // With `array: 'Float16Array'`, the values: the same bits, as a Float16Array.
      values: { array: 'Float16Array', shape: [BITS.length], bits: BITS },
      refused: {
        code: 'BAD_OPTIONS',
        message: "SplitError: download: array 'Float16Array' is for float16 tensors, not int16",
      },
    });
  });

  test('a Float16Array for any dtype but float16 is refused by name (DATA_TYPE)', async () => {
    const r = await call<Record<string, { code?: string; message: string }>>('refusals');
    expect(r).toEqual({
      tensor: {
        code: 'DATA_TYPE',
        message:
          'SplitError: tensor: dtype float32 needs data as Float32Array, got Float16Array: ' +
          'convert it, e.g. Float32Array.from(data)',
      },
      split: {
        code: 'DATA_TYPE',
        message:
          'SplitError: split: input: dtype bfloat16 needs data as Uint16Array, got Float16Array: ' +
          'bfloat16sFrom(numbers) makes the bits',
      },
      'split (CPU engine)': {
        code: 'DATA_TYPE',
        message: expect.stringMatching(
          /^SplitError: split: input: dtype uint16 needs data as Uint16Array, got Float16Array/,
        ) as string,
      },
      upload: {
        code: 'DATA_TYPE',
        message: expect.stringMatching(
          /^SplitError: upload: dtype int16 needs data as Int16Array, got Float16Array/,
        ) as string,
      },
      run: {
        code: 'DATA_TYPE',
        message: expect.stringMatching(/dtype float32 needs data as Float32Array, got Float16Array/) as string,
      },
    });
  });

  test("numberToHalf, halfToNumber: as the browser's Float16Array on every pattern and 100000 numbers", async () => {
    const r = rng(16);
    const numbers = [
      ...Array.from({ length: 100_000 }, () => (r() < 0.5 ? -1 : 1) * (1 + r()) * 2 ** Math.floor(r() * 60 - 36)),
      65519.99,
      65520,
      2 ** -25,
      -0,
      Infinity,
      NaN,
    ];
    const got = await call<{ toBits: string[]; toNumber: string[]; checked: number }>('conversions', numbers);
    expect(got).toEqual({ toBits: [], toNumber: [], checked: numbers.length + 0x10000 });
  });
});
