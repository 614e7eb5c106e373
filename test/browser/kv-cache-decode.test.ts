// The KV-cache decode example (examples/kv-cache-decode/) as a user runs it, in headless Chromium and
// Firefox: its own page, served as its serve.mjs serves it, runs the whole sequence (a prompt step, then one
// token per step) through ORT A -> Cleave `into` the caches -> ORT B on one device. Its answer is checked
// here against the reference computed in doubles in Node (scripts/lib/decode-models.mjs, independent of ORT
// and of Cleave), bit for bit: every step's y and the final K and V caches. Any page error, console error or
// uncaptured GPU error fails the test.

import { afterEach, describe, expect, test } from 'vitest';
import { BROWSER_NAMES } from '../helpers/browser.js';
import { type FixturePage, openFixture } from '../helpers/fixture-page.js';
import { EXAMPLE, decodeFiles } from '../../examples/kv-cache-decode/files.mjs';
import { PAGE, served } from '../../examples/kv-cache-decode/serve.mjs';

interface Outcome {
  ok: boolean;
  wrong: string[];
  steps: number[];
  y: number[];
  k: number[];
  v: number[];
}

const bits = (xs: ArrayLike<number>) => [...new Uint32Array(Float32Array.from(xs).buffer)];

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let fixture: FixturePage | undefined;

  afterEach(async () => {
    expect(fixture ? await fixture.problems() : []).toEqual([]);
    await fixture?.close();
  });

  test("the example's decode loop fills the caches and matches the reference bit for bit", async () => {
    const { reference } = decodeFiles(EXAMPLE);
    fixture = await openFixture({
      browser,
      name: 'kv-cache-decode',
      page: PAGE,
      global: 'kvCacheDecode',
      dist: ['cleave.js', 'ort.js'],
      ...served(),
    });
    const r = await fixture.call<Outcome>('result');
    expect(r.wrong).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.steps).toEqual(EXAMPLE.steps);
    // The page's own comparison aside, its figures against the reference computed here.
    expect(bits(r.y)).toEqual(bits(reference.y));
    expect(bits(r.k)).toEqual(bits(reference.k));
    expect(bits(r.v)).toEqual(bits(reference.v));
    // Not all zeros: the caches really were written, and attention really read them.
    expect(r.k.some((x) => x !== 0) && r.y.some((x) => x !== 0)).toBe(true);
  });
});
