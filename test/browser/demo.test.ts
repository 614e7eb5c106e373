// End to end: the built demo page (dist/demo; `npm test` builds it before vitest runs) served on
// 127.0.0.1 and opened in headless Chromium with WebGPU on. Runs presets and bad inputs, checks
// what the page drew and said, and fails on any console error, uncaught exception, or request that
// leaves the local server. Screenshots go to test/artifacts/.

import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { Browser, Page } from 'puppeteer';
import { launchBrowser } from '../helpers/browser.js';
import { type Served, serveDir } from '../helpers/serve.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist-demo');
const ARTIFACTS = join(ROOT, 'test/artifacts');

let browser: Browser;
let server: Served;
/** Console errors, page errors and off-server requests, from every page; each test must leave none. */
const problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error(`${DIST}/index.html is missing: run 'npm run build' first (npm test does)`);
  mkdirSync(ARTIFACTS, { recursive: true });
  // COOP/COEP give performance.now() its fine resolution, which the page's timings use.
  server = await serveDir(DIST, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

afterEach(() => {
  expect(problems.splice(0)).toEqual([]);
});

/** A page on the demo, watched for errors; `noWebGpu` hides navigator.gpu before the page's scripts run. */
async function open(noWebGpu = false): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) problems.push(`request off the local server: ${r.url()}`);
  });
  if (noWebGpu) {
    await page.evaluateOnNewDocument(() => { Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }); });
  }
  await page.goto(server.url, { waitUntil: 'load' });
  await settled(page, 0);
  return page;
}

const runs = (page: Page) => page.evaluate(() => Number(document.body.dataset.runs ?? 0));

/** Waits until the page has finished more runs than `before` and has nothing in flight. */
async function settled(page: Page, before: number): Promise<void> {
  await page.waitForFunction((n: number) => document.body.dataset.state === 'done' && Number(document.body.dataset.runs) > n,
    { timeout: 60_000 }, before);
}

async function preset(page: Page, name: string): Promise<void> {
  const value = await page.$$eval('#preset option', (os, n) => os.find((o) => o.textContent!.startsWith(n))?.getAttribute('value'), name);
  expect(value, `preset '${name}'`).toBeTruthy();
  const before = await runs(page);
  await page.select('#preset', value!);
  await settled(page, before);
}

/** Types into a text control and presses Enter (which runs at once). */
async function type(page: Page, field: string, text: string): Promise<void> {
  const before = await runs(page);
  await page.$eval(`#f-${field}`, (e) => { (e as HTMLInputElement).value = ''; });
  await page.type(`#f-${field}`, text);
  await page.keyboard.press('Enter');
  await settled(page, before);
}

interface Seen {
  result: string;
  kind: string;
  cards: { shape: string; values: string[] }[];
  more: string;
  stats: Record<string, string>;
  errors: Record<string, { text: string; code: string }>;
  inputCells: number;
}

async function seen(page: Page): Promise<Seen> {
  return page.evaluate(() => {
    const text = (sel: string) => document.querySelector(sel)?.textContent ?? '';
    const stats: Record<string, string> = {};
    for (const dd of document.querySelectorAll<HTMLElement>('#stats dd')) stats[dd.id || dd.previousElementSibling!.textContent!] = dd.textContent!;
    const errors: Record<string, { text: string; code: string }> = {};
    for (const e of document.querySelectorAll<HTMLElement>('.err')) {
      if (e.textContent) errors[e.id.replace('err-', '')] = { text: e.textContent, code: e.dataset.code ?? '' };
    }
    return {
      result: text('#result'),
      kind: document.body.dataset.result ?? '',
      cards: [...document.querySelectorAll<HTMLElement>('#outputs .card')].map((c) => ({
        shape: c.dataset.shape!,
        values: [...c.querySelectorAll('text.v')].map((t) => t.textContent!),
      })),
      more: text('#outputs .more'),
      stats,
      errors,
      inputCells: document.querySelectorAll('#input rect').length,
    };
  });
}

test('opens on WebGPU and draws the default preset: 2×8 into 3 along axis 1', async () => {
  const page = await open();
  expect(await page.$eval('#adapter', (e) => e.textContent)).toMatch(/^WebGPU · /);
  expect(await page.$eval('#notice', (e) => (e as HTMLElement).hidden)).toBe(true);
  const s = await seen(page);
  expect(s.kind).toBe('ok');
  expect(s.result).toContain('Split-18 gave 3 outputs: lengths [3, 3, 2] along axis 1');
  expect(s.cards).toEqual([
    { shape: '[2, 3]', values: ['1', '2', '3', '9', '10', '11'] },
    { shape: '[2, 3]', values: ['4', '5', '6', '12', '13', '14'] },
    { shape: '[2, 2]', values: ['7', '8', '15', '16'] },
  ]);
  expect(s.inputCells).toBe(16);
  expect(s.stats['t-gpu']).toMatch(/^[\d.]+ (ms|µs) per run \(median over \d+ runs, host → GPU → host\)$/);
  expect(s.stats['t-cpu']).toMatch(/^[\d.]+ (ms|µs) per run/);
  expect(s.stats.dispatches).toMatch(/^(\d+ dispatch(es)? of the gather shader|0 dispatches, \d+ copyBufferToBuffer)/);
  expect(s.stats.agree).toContain('identical');
  expect(s.errors).toEqual({});

  // Hover over the input cell at row 1, axis position 4: input[1, 4] = 13, in output 1.
  const box = (await (await page.$('#input svg'))!.boundingBox())!;
  await page.mouse.move(box.x + (4.5 / 8) * box.width, box.y + 0.75 * box.height);
  await page.waitForFunction(() => !document.getElementById('tip')!.hidden);
  expect(await page.$eval('#tip', (e) => e.textContent)).toBe('input[1, 4] = 13 → out 1');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(ARTIFACTS, 'demo.png'), fullPage: true });
  await page.close();
});

test('presets: 7 into 4, 4096 outputs, a string tensor, VariadicSplit with -1', async () => {
  const page = await open();

  await preset(page, 'Split-18: 7 into 4');
  let s = await seen(page);
  expect(s.cards).toEqual([
    { shape: '[2]', values: ['1', '2'] }, { shape: '[2]', values: ['3', '4'] },
    { shape: '[2]', values: ['5', '6'] }, { shape: '[1]', values: ['7'] },
  ]);
  expect(s.stats.agree).toContain('identical');

  await preset(page, 'Split-18: 4096 outputs');
  s = await seen(page);
  expect(s.kind).toBe('ok');
  expect(s.result).toContain('gave 4096 outputs');
  expect(s.cards).toHaveLength(24);
  expect(s.cards[0]).toEqual({ shape: '[2, 1]', values: ['1', '4097'] });
  expect(s.cards[23]).toEqual({ shape: '[2, 1]', values: ['24', '4120'] });
  expect(s.more).toBe('… and 4072 more: 4072 × [2, 1]');
  expect(s.stats.dispatches).toMatch(/^\d+ dispatch(es)? of the gather shader/);
  expect(s.stats.agree).toContain('identical (4096 tensors');
  await page.screenshot({ path: join(ARTIFACTS, 'demo-4096.png'), fullPage: true });

  await preset(page, 'SplitToSequence-11: strings');
  s = await seen(page);
  expect(s.result).toContain('SplitToSequence-11 gave 3 tensors: lengths [2, 2, 1] along axis 1');
  expect(s.cards).toEqual([
    { shape: '[2, 2]', values: ['α', 'β', 'ζ', 'η'] },
    { shape: '[2, 2]', values: ['γ', 'δ', 'θ', 'ι'] },
    { shape: '[2, 1]', values: ['ε', 'κ'] },
  ]);
  expect(s.stats.dispatches).toMatch(/^none: string tensors are split on the CPU path/);
  expect(s.stats['t-gpu']).toBe('not used: string tensors stay on the CPU path');

  await preset(page, 'VariadicSplit-1: split_lengths [-1, 2]');
  s = await seen(page);
  expect(s.result).toContain('VariadicSplit-1 gave 2 outputs: lengths [4, 2] along axis 0');
  expect(s.cards.map((c) => c.shape)).toEqual(['[4, 12, 10, 24]', '[2, 12, 10, 24]']);
  expect(s.stats.agree).toContain('identical');
  await page.close();
});

test('bad input: the SplitError message appears next to the control that caused it', async () => {
  const page = await open();
  await preset(page, 'Split-13: [2, 6] split [2, 4]');
  expect((await seen(page)).cards.map((c) => c.shape)).toEqual(['[2, 2]', '[2, 4]']);

  await type(page, 'split', '2, 3');
  let s = await seen(page);
  expect(s.kind).toBe('refused');
  expect(Object.keys(s.errors)).toEqual(['split']);
  expect(s.errors.split!.code).toBe('SIZE_SUM');
  expect(s.errors.split!.text).toMatch(/^Split-13: .*\[2, 3\].* 5 .*dimension 1.* 6/);
  expect(s.cards).toEqual([]);
  expect(s.inputCells).toBe(12); // the input is still drawn
  await page.screenshot({ path: join(ARTIFACTS, 'demo-error.png'), fullPage: true });

  await type(page, 'split', '2, 4');
  await type(page, 'axis', '2');
  s = await seen(page);
  expect(Object.keys(s.errors)).toEqual(['axis']);
  expect(s.errors.axis!.code).toBe('AXIS_RANGE');
  expect(s.errors.axis!.text).toContain('Split-13');

  await type(page, 'axis', '1');
  await type(page, 'shape', '2, x');
  s = await seen(page);
  expect(s.errors).toEqual({ shape: { text: "'x' is not a number", code: '' } });

  await type(page, 'shape', '2, 6');
  s = await seen(page);
  expect(s.kind).toBe('ok');
  expect(s.errors).toEqual({});
  expect(s.cards.map((c) => c.shape)).toEqual(['[2, 2]', '[2, 4]']);
  await page.close();
});

test('without WebGPU the page says so and runs on the CPU path', async () => {
  const page = await open(true);
  expect(await page.$eval('#adapter', (e) => e.textContent)).toBe('CPU path');
  expect(await page.$eval('#notice', (e) => (e as HTMLElement).hidden ? '' : e.textContent)).toContain("runs on Cleave's CPU path");
  const s = await seen(page);
  expect(s.cards.map((c) => c.values)).toEqual([['1', '2', '3', '9', '10', '11'], ['4', '5', '6', '12', '13', '14'], ['7', '8', '15', '16']]);
  expect(s.stats['t-gpu']).toBe('not available: no WebGPU');
  await page.screenshot({ path: join(ARTIFACTS, 'demo-cpu.png'), fullPage: true });
  await page.close();
});
