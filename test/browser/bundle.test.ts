// Tier 2 in a browser: the built bundle (dist/cleave.js) loaded in headless Chromium (Dawn) and
// Firefox (wgpu) splits on the browser's own WebGPU adapter (navigator.gpu), host and GPU-resident,
// and reports errors the same way in both.
import { readFileSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, Page } from 'puppeteer';
import { BROWSER_NAMES, launchBrowser } from '../helpers/browser.js';
import { type Served, serveDir } from '../helpers/serve.js';

test('the bundle never contains the Node-only webgpu package', () => {
  // The entries and the chunks they share.
  const bundle = readdirSync('dist')
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(`dist/${f}`, 'utf8'))
    .join('\n');
  expect(bundle).not.toMatch(/from\s*["']webgpu["']/);
  expect(bundle).toContain('navigator');
});

describe.each(BROWSER_NAMES)('%s', (name) => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await serveDir('dist');
    browser = await launchBrowser({ browser: name });
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    // The browser's own favicon request is the one 404 this page may see.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url?.endsWith('/favicon.ico')) pageErrors.push(m.text());
    });
    await page.goto(`${server.url}cleave.js`);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test('splits on the browser adapter: host in/out, GPU-resident, errors', async () => {
    // A string, not a function: vitest would rewrite a function's dynamic import() for Node. The
    // result travels as JSON, as the fixture pages' do (test/helpers/fixture-page.ts says why).
    const result = JSON.parse(
      (await page.evaluate(`(async () => {
      const { createSplitEngine, SplitError } = await import('${server.url}cleave.js');
      const engine = await createSplitEngine({ backend: 'webgpu' });
      const x = { dtype: 'float32', shape: [2, 7], data: new Float32Array([...Array(14).keys()]) };
      const host = await engine.split(x, { axis: 1, parts: 4 });
      const hostStats = engine.stats;
      const gx = engine.upload({ dtype: 'int64', shape: [3, 3], data: new BigInt64Array([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, -(2n ** 63n)]) });
      const outs = await engine.split(gx, { axis: 1, sizes: [2, 1] });
      const back = await Promise.all(outs.map((o) => engine.download(o)));
      let error;
      try {
        await engine.split(x, { axis: 1, sizes: [3, 3] });
      } catch (e) {
        error = { name: e.name, code: e.code, message: e.message, isSplitError: e instanceof SplitError };
      }
      const info = engine.adapterInfo;
      engine.destroy();
      return {
        backend: engine.backend, info, hostStats,
        host: host.map((o) => ({ shape: o.shape, data: [...o.data] })),
        gpu: back.map((o) => ({ shape: o.shape, data: [...o.data].map(String) })),
        error,
      };
    })().then(JSON.stringify)`)) as string,
    ) as {
      backend: string;
      info?: { architecture: string };
      hostStats: object;
      host: { shape: number[]; data: number[] }[];
      gpu: { shape: number[]; data: string[] }[];
      error: object;
    };

    expect(result.backend).toBe('webgpu');
    expect(result.info?.architecture).toBeTypeOf('string');
    expect(result.hostStats).toMatchObject({ strategy: 'gather', dispatches: 1 });
    expect(result.host).toEqual([
      { shape: [2, 2], data: [0, 1, 7, 8] },
      { shape: [2, 2], data: [2, 3, 9, 10] },
      { shape: [2, 2], data: [4, 5, 11, 12] },
      { shape: [2, 1], data: [6, 13] },
    ]);
    expect(result.gpu).toEqual([
      { shape: [3, 2], data: ['1', '2', '4', '5', '7', '8'] },
      { shape: [3, 1], data: ['3', '6', String(-(2n ** 63n))] },
    ]);
    expect(result.error).toEqual({
      name: 'SplitError',
      code: 'SIZE_SUM',
      isSplitError: true,
      message: 'split: split lengths [3, 3] sum to 6 but dimension 1 of the input has length 7',
    });
    expect(pageErrors).toEqual([]);
  });
});
