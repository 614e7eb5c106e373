// Headless Chromium for browser tests: Debian's chromium (never a downloaded one) with WebGPU on,
// which runs on SwiftShader where there is no GPU.
import puppeteer, { type Browser } from 'puppeteer';

export const CHROMIUM = process.env.PUPPETEER_EXECUTABLE_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}
