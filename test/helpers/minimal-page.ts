// The minimal example (examples/minimal/) in a headless browser, as a user opens it: its page, served from the
// repository's root or from an installed package's folder (the page reaches dist/ by a relative path that holds in
// both). It is done when its output stops being busy; `shown` is what it shows then.

import type { BrowserName } from './browser.js';
import { type FixturePage, openFixture } from './fixture-page.js';

/** The page's URL path, from the repository's root or the package's. */
export const MINIMAL_PAGE = '/examples/minimal/';

/** What the page shows after its split: each output's shape and values. */
export const MINIMAL_OUTPUTS = '[2, 2]: 1, 2, 4, 5\n[2, 1]: 3, 6';

/** Runs before the page's own scripts: a browser without WebGPU. */
export const WITHOUT_WEBGPU = "Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined });";

/** Opens the page and waits until it is done; `root` is the folder served at '/' (default the repository). */
export function openMinimal(o: { browser?: BrowserName; root?: string; preload?: string }): Promise<FixturePage> {
  return openFixture({
    ...o,
    name: 'minimal',
    page: MINIMAL_PAGE,
    ready: "document.querySelector('#out')?.getAttribute('aria-busy') === 'false'",
    dist: ['cleave.js'],
    only: [MINIMAL_PAGE],
  });
}

/** The text the page shows. */
export const shown = (page: FixturePage): Promise<string> =>
  page.evaluate("document.querySelector('#out').textContent");
