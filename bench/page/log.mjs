// The clock, error text and progress line shared by the page and the Node bench (no browser-only
// globals: the progress hook is whatever the host put on globalThis, a page's exposed function or
// the Node bench's status line).

export const now = () => performance.now();

/** @param {unknown} e */
export const msg = (e) => (e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e));

/** @param {string} text */
export function progress(text) {
  const hook = /** @type {{ __benchProgress?: (text: string) => unknown }} */ (globalThis).__benchProgress;
  if (typeof hook === 'function') void hook(text);
}
