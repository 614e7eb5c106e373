// The minimal example (examples/minimal/) as a user opens it, in headless Chromium and Firefox: the page splits a
// tensor on the GPU and shows the outputs, which must be the split's; without WebGPU it says so. Any page error or
// console error fails the test.

import { afterEach, describe, expect, test } from 'vitest';
import { BROWSER_NAMES } from '../helpers/browser.js';
import type { FixturePage } from '../helpers/fixture-page.js';
import { MINIMAL_OUTPUTS, WITHOUT_WEBGPU, openMinimal, shown } from '../helpers/minimal-page.js';

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let page: FixturePage | undefined;

  afterEach(async () => {
    expect(page ? await page.problems() : []).toEqual([]);
    await page?.close();
    page = undefined;
  });

  test('the page shows the outputs of its split on the GPU', async () => {
    page = await openMinimal({ browser });
    expect(await shown(page)).toBe(MINIMAL_OUTPUTS);
  });

  test('without WebGPU, the page says so', async () => {
    page = await openMinimal({ browser, preload: WITHOUT_WEBGPU });
    expect(await shown(page)).toBe(
      'No WebGPU in this browser, so nothing was split (createSplitEngine: ' +
        "backend 'webgpu' was asked for, but this browser has no navigator.gpu (WebGPU is off or unsupported here))",
    );
  });
});
