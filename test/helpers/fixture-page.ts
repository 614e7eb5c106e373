// A fixture page of the browser tier (test/browser/fixtures/NAME.html) in headless Chromium or
// Firefox: the built bundle must be there, the repository is served (only the folders the page
// needs, and whatever `memory` answers), every uncaught error and console error is collected, and
// the page's `window[global]` object is called with JSON arguments. After each test, `problems()`
// drains those errors and the ones the page collected itself (its `problems` array). Shared by the
// ORT, TF.js and GPU-resident tests, and by the tests of an example's page (`page`), which may have no
// `global` (then `ready` says when it is done, and `evaluate` reads it), and may be served from an installed
// package's folder (`root`).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'puppeteer';
import { type BrowserName, launchBrowser } from './browser.js';
import { ISOLATED } from './serve.js';
import { serve } from '../../scripts/lib/serve.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

export interface FixturePage {
  call<T>(fn: string, ...args: unknown[]): Promise<T>;
  /** The value of a JavaScript expression in the page, through JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** The errors since the last call: the page's uncaught and console errors, and its own `problems`. */
  problems(): Promise<string[]>;
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** The fixture's name: test/browser/fixtures/<name>.html, which sets `window[global]`. */
  readonly name: string;
  /** A page elsewhere in the repository instead, by its URL path (served only if `only` covers it). */
  readonly page?: string;
  /** The page's object for `call` and its `problems` array; without one, `ready` says when the page is done. */
  readonly global?: string;
  /** An expression that is true once the page is ready; default `window[global]`. */
  readonly ready?: string;
  /** A script run in the page before its own (e.g. to take WebGPU away). */
  readonly preload?: string;
  /** The folder served at '/': default the repository. */
  readonly root?: string;
  /** Files of <root>/dist/ the page imports. */
  readonly dist: readonly string[];
  /** URL path prefixes served besides /dist/ and the fixtures ('/node_modules/…/dist/'). */
  readonly only: readonly string[];
  readonly memory?: (path: string) => Uint8Array | undefined;
  /** Default 'chromium'. */
  readonly browser?: BrowserName;
}

export async function openFixture(o: FixtureOptions): Promise<FixturePage> {
  const root = o.root ?? ROOT;
  for (const f of o.dist) {
    if (!existsSync(join(root, 'dist', f)))
      throw new Error(`${join(root, 'dist', f)} is missing: run 'npm run build' first (npm test does)`);
  }
  const server = await serve({
    root,
    headers: ISOLATED,
    only: ['/dist/', ...o.only, '/test/browser/fixtures/'],
    ...(o.memory ? { memory: o.memory } : {}),
  });
  let browser: Browser | undefined;
  let page: Page | undefined;
  const errors: string[] = [];
  try {
    browser = await launchBrowser({ browser: o.browser ?? 'chromium' });
    page = await browser.newPage();
    if (o.preload) await page.evaluateOnNewDocument(o.preload);
    page.on('pageerror', (e) => errors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
    // The browser's own favicon request is the one failed load this page may see.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url?.endsWith('/favicon.ico'))
        errors.push(`console.error: ${m.text()}`);
    });
    await page.goto(`${server.url}${(o.page ?? `/test/browser/fixtures/${o.name}.html`).slice(1)}`);
    await page.waitForFunction(o.ready ?? `window.${o.global}`);
  } catch (e) {
    await browser?.close();
    await server.close();
    throw e;
  }
  const p = page;
  // Through JSON both ways: WebDriver BiDi (Firefox) hands back an object met twice in the
  // result (a shape array shared by outputs) as undefined the second time; CDP copies it.
  const evaluate = async <T>(expression: string) =>
    JSON.parse((await p.evaluate(`(async () => JSON.stringify(await (${expression})))()`)) as string) as T;
  return {
    call: <T>(fn: string, ...args: unknown[]) =>
      evaluate<T>(`window.${o.global}.${fn}(${args.map((a) => JSON.stringify(a)).join(', ')})`),
    evaluate,
    problems: async () => [
      ...errors.splice(0),
      ...(o.global ? ((await p.evaluate(`window.${o.global}?.problems.splice(0) ?? []`)) as string[]) : []),
    ],
    async close() {
      await browser?.close();
      await server.close();
    },
  };
}
