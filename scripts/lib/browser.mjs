// The one headless browser launcher (tests, bench): Debian's chromium (Dawn) or Debian's
// firefox-esr (wgpu), never a downloaded browser, with WebGPU on. Chromium flags and Firefox prefs
// live here and nowhere else; callers add extras (the bench: developer features).
//
// Where there is no GPU, Chromium falls back to the SwiftShader it ships. Firefox has no fallback
// of its own: its adapter is whichever Vulkan driver the loader finds, so VK_ICD_FILENAMES (which
// the browser inherits from this process; vitest.config.ts sets it for the tests) picks SwiftShader
// there. Puppeteer drives Chromium over CDP and Firefox over WebDriver BiDi.

import puppeteer from 'puppeteer';

/** @typedef {'chromium' | 'firefox'} BrowserName */

/** Every browser the tests run in, Chromium first (the bench's). */
export const BROWSER_NAMES = /** @type {readonly BrowserName[]} */ (Object.freeze(['chromium', 'firefox']));

/** The browser to run: `PUPPETEER_EXECUTABLE_PATH`, else Debian's chromium. */
export const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH || '/usr/bin/chromium';

/** Debian's firefox-esr (scripts/setup.mjs installs it). */
export const FIREFOX = '/usr/bin/firefox-esr';

/** @type {readonly string[]} */
export const CHROMIUM_ARGS = Object.freeze([
  '--headless',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]);

/**
 * WebGPU is behind a pref in Firefox ESR, and its blocklist refuses a software Vulkan driver. The
 * demo's test reads the clipboard: WebDriver BiDi cannot grant Firefox 'clipboard-read' (Chromium
 * gets it as a permission over CDP), so a testing pref lets pages read it. Firefox records an async
 * stack for every promise of a page a debugger watches, and WebDriver BiDi watches every page it
 * drives: a `Promise.resolve` then cost 857 ns here against 67 ns without (measured in Firefox 153
 * ESR), so timings of promise-returning calls would say more about the automation than about the
 * browser users run, which records them only while its developer tools are open.
 * @type {Readonly<Record<string, boolean>>}
 */
export const FIREFOX_PREFS = Object.freeze({
  'dom.webgpu.enabled': true,
  'gfx.webgpu.ignore-blocklist': true,
  'dom.events.testing.asyncClipboard': true,
  'javascript.options.asyncstack': false,
});

/** Full-resolution timestamp queries (Chrome quantizes them to 100 µs otherwise). */
export const WEBGPU_DEVELOPER_ARGS = Object.freeze(['--enable-webgpu-developer-features']);

/**
 * @typedef {object} LaunchOptions
 * @property {BrowserName} [browser]  default 'chromium'
 * @property {string} [executablePath]  default {@link CHROMIUM} or {@link FIREFOX}
 * @property {readonly string[]} [extraArgs]  Chromium: flags after {@link CHROMIUM_ARGS}; Firefox: command-line args
 * @property {number} [protocolTimeout]  ms a single page.evaluate may take (puppeteer's default: 180 s)
 */

/**
 * @param {LaunchOptions} [options]
 * @returns {Promise<import('puppeteer').Browser>}
 */
export function launchBrowser(options = {}) {
  const timeout = options.protocolTimeout === undefined ? {} : { protocolTimeout: options.protocolTimeout };
  if (options.browser === 'firefox') {
    return puppeteer.launch({
      browser: 'firefox',
      executablePath: options.executablePath ?? FIREFOX,
      args: [...(options.extraArgs ?? [])],
      extraPrefsFirefox: { ...FIREFOX_PREFS },
      headless: true,
      ...timeout,
    });
  }
  return puppeteer.launch({
    executablePath: options.executablePath ?? CHROMIUM,
    args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? [])],
    headless: true,
    ...timeout,
  });
}
