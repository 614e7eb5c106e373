// The one headless Chromium launcher (tests, bench): Debian's chromium, never a downloaded one,
// with WebGPU on. Without a GPU the browser's adapter is SwiftShader, which runs shaders on the CPU.
// The flags live here and nowhere else; callers add extras (the bench: developer features).

import puppeteer from 'puppeteer';

/** The browser to run: `PUPPETEER_EXECUTABLE_PATH`, else Debian's chromium. */
export const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH || '/usr/bin/chromium';

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

/** Full-resolution timestamp queries (Chrome quantizes them to 100 µs otherwise). */
export const WEBGPU_DEVELOPER_ARGS = Object.freeze(['--enable-webgpu-developer-features']);

/**
 * @typedef {object} LaunchOptions
 * @property {string} [executablePath]  default {@link CHROMIUM}
 * @property {readonly string[]} [extraArgs]  flags after {@link CHROMIUM_ARGS}
 * @property {number} [protocolTimeout]  ms a single page.evaluate may take (puppeteer's default: 180 s)
 */

/**
 * @param {LaunchOptions} [options]
 * @returns {Promise<import('puppeteer').Browser>}
 */
export function launchBrowser(options = {}) {
  return puppeteer.launch({
    executablePath: options.executablePath ?? CHROMIUM,
    args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? [])],
    headless: true,
    ...(options.protocolTimeout === undefined ? {} : { protocolTimeout: options.protocolTimeout }),
  });
}
