// The bench's HTML report in headless Chromium and Firefox, on a 390 px phone and a desktop: rendered by
// `npm run bench:report` from a small checked-in results file (fixtures/bench-results.json: a real
// `node bench/run.mjs --quick --probes --cases ...` run, its numbers rounded to 4 digits), served by the
// repository's static server. Every chart draws (Chart.js has a chart on each canvas, each canvas has pixels),
// with no console error, no page error, and no horizontal overflow: wide tables scroll inside their own box.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'puppeteer';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BROWSER_NAMES, launchBrowser } from '../helpers/browser.js';
import { type Served, serveDir } from '../helpers/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-report-page-'));
let server: Served;

beforeAll(async () => {
  const args = ['bench/report.mjs', 'test/browser/fixtures/bench-results.json', '--out', join(dir, 'report.html')];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  server = await serveDir(dir);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Drawn {
  canvases: number;
  drawn: number;
  failed: string | undefined;
  charts: number;
  blank: string[];
  innerWidth: number;
  scrollWidth: number;
  clientWidth: number;
  tables: number;
}

/** What the page drew, read in the page (a string: vitest would rewrite a function for Node). */
const READ = `(() => {
  const canvases = [...document.querySelectorAll('canvas')];
  const blank = canvases.filter((c) => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) return false;
    return true;
  }).map((c) => c.id);
  const html = document.documentElement;
  return JSON.stringify({
    canvases: canvases.length,
    drawn: Number(html.dataset.chartsDrawn),
    failed: html.dataset.chartsFailed,
    charts: canvases.filter((c) => window.Chart.getChart(c)).length,
    blank,
    innerWidth: window.innerWidth,
    scrollWidth: html.scrollWidth,
    clientWidth: html.clientWidth,
    tables: document.querySelectorAll('.scroll > table').length,
  });
})()`;

describe.each(BROWSER_NAMES)('%s', (name) => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser({ browser: name });
  });

  afterAll(async () => {
    await browser?.close();
  });

  test.each([390, 1280])('at %i px: every chart drew, no error, no horizontal overflow', async (width) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    try {
      await page.setViewport({ width, height: 900 });
      await page.goto(`${server.url}report.html`);
      await page.waitForFunction('document.documentElement.dataset.chartsDrawn !== undefined');
      const got = JSON.parse((await page.evaluate(READ)) as string) as Drawn;
      expect(got.canvases).toBeGreaterThanOrEqual(10);
      expect(got.failed).toBeUndefined();
      expect(got.drawn).toBe(got.canvases);
      expect(got.charts).toBe(got.canvases);
      expect(got.blank).toEqual([]);
      expect(got.tables).toBeGreaterThanOrEqual(got.canvases);
      // Firefox's scroll bar takes its width from the viewport: the page must fit what is left.
      expect(got.innerWidth).toBe(width);
      expect(got.scrollWidth).toBeLessThanOrEqual(got.clientWidth);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
