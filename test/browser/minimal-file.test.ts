// The minimal example (examples/minimal/) opened as a file (file://), as a user who double-clicks it would, in
// headless Chromium and Firefox. Chromium loads no ES module from file://: the page must then say at once, in the
// page, that it must be served over http(s), and how, with the command and the address the README gives. Firefox
// loads the page's modules from file:// and splits as it does when served; if that ever changes, it must show the
// same hint. An uncaught error fails the test; the console errors allowed are Chromium's refusals to load the modules.

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer';
import { afterEach, describe, expect, test } from 'vitest';
import { BROWSER_NAMES, type BrowserName, launchBrowser } from '../helpers/browser.js';
import { MINIMAL_OUTPUTS } from '../helpers/minimal-page.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = pathToFileURL(join(ROOT, 'examples/minimal/index.html')).href;
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** What the README says serves the page: the command, and the address to open. */
const SERVE_COMMAND = /`(python3 -m http\.server)`/.exec(README)?.[1];
const ADDRESS = /(http:\/\/localhost:\d+\/examples\/minimal\/)/.exec(README)?.[1];

/** The hint, as the page shows it: served over http(s), how, and where to open it. */
const HINT =
  "This page's modules did not load: serve it over http(s), from the package's folder. Run python3 -m http.server " +
  'in node_modules/cleave-gpu/ and open http://localhost:8000/examples/minimal/';

/** How each browser answers: Chromium with the hint, Firefox with the split's outputs. */
const EXPECTED: Record<BrowserName, string> = { chromium: HINT, firefox: MINIMAL_OUTPUTS };

/** Chromium's console errors for a module it refuses to load from file://: the only ones allowed. */
const MODULE_REFUSED = /blocked by CORS policy|Failed to load resource: net::ERR_FAILED/;

describe.each(BROWSER_NAMES)('%s', (browser) => {
  let opened: Browser | undefined;

  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  test('opened from file://, the page says at once how to serve it (or, where modules load, splits)', async () => {
    if (!existsSync(join(ROOT, 'dist/cleave.js')))
      throw new Error("dist/cleave.js is missing: run 'npm run build' first (npm test does)");
    opened = await launchBrowser({ browser });
    const page: Page = await opened.newPage();
    const errors: string[] = [];
    const consoleErrors: string[] = [];
    page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(PAGE);
    // Not done in 30 s: what the page still shows says why.
    await page
      .waitForFunction("document.querySelector('#out')?.getAttribute('aria-busy') === 'false'", { timeout: 30_000 })
      .catch(() => undefined);
    const shown = (await page.evaluate("document.querySelector('#out').textContent")) as string;
    expect(shown).toBe(EXPECTED[browser]);
    expect(errors).toEqual([]);
    expect(consoleErrors.filter((e) => !MODULE_REFUSED.test(e))).toEqual([]);
  });
});

test('the hint gives the command and the address the README gives', () => {
  expect(SERVE_COMMAND, "the README's command that serves the minimal page").toBeDefined();
  expect(ADDRESS, "the README's address of the minimal page").toBeDefined();
  expect(HINT).toContain('http(s)');
  expect(HINT).toContain(SERVE_COMMAND);
  expect(HINT).toContain(ADDRESS);
});
