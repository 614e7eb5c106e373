// Tests use the one headless Chromium launcher of the repository (scripts/lib/browser.mjs, shared
// with the bench): Debian's chromium with WebGPU on, SwiftShader where there is no GPU.
export { CHROMIUM, CHROMIUM_ARGS, launchBrowser } from '../../scripts/lib/browser.mjs';
