// Tests use the one headless browser launcher of the repository (scripts/lib/browser.mjs, shared
// with the bench): Debian's chromium (Dawn) or firefox-esr (wgpu) with WebGPU on, SwiftShader
// where there is no GPU. `BROWSER_NAMES` is what a browser-tier test runs in, each by name.
export {
  BROWSER_NAMES,
  type BrowserName,
  CHROMIUM,
  CHROMIUM_ARGS,
  FIREFOX,
  launchBrowser,
} from '../../scripts/lib/browser.mjs';
