// The one static file server (tests, bench, anything that needs a page): serves a folder on
// 127.0.0.1 on a free port. 127.0.0.1 is a secure context, so WebGPU is exposed there, and the
// MIME types are the ones browsers insist on for modules and wasm. Optionally only some folders of
// the root are served, and some paths are answered from memory (e.g. ONNX models built in Node).
// Plain Node ESM with JSDoc types: the bench runs it with `node`, the tests import it from TypeScript.

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, posix, resolve, sep } from 'node:path';

/** @type {Readonly<Record<string, string>>} */
export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.wgsl': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.onnx': 'application/octet-stream',
};

/**
 * Cross-origin isolation (COOP/COEP): `performance.now()` gets 5 µs resolution instead of 100 µs.
 * @type {Readonly<Record<string, string>>}
 */
export const ISOLATED = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * @typedef {object} Served
 * @property {string} url  base URL, ending in '/'
 * @property {() => Promise<void>} close
 */

/**
 * @typedef {object} ServeOptions
 * @property {string} root  the folder served at '/'
 * @property {Readonly<Record<string, string>>} [headers]  sent with every response
 * @property {readonly string[]} [only]  URL path prefixes served from `root` ('/dist/'); default all
 * @property {(path: string) => Uint8Array | undefined} [memory]  bytes for a URL path, tried before files
 */

/**
 * Serves `dir` until close(). `headers` go on every response, e.g. {@link ISOLATED}.
 * @param {string} dir
 * @param {Readonly<Record<string, string>>} [headers]
 * @returns {Promise<Served>}
 */
export function serveDir(dir, headers = {}) {
  return serve({ root: dir, headers });
}

/**
 * @param {ServeOptions} options
 * @returns {Promise<Served>}
 */
export async function serve(options) {
  const root = resolve(options.root);
  const headers = { ...options.headers, 'cache-control': 'no-store' };
  const server = createServer((req, res) => {
    void answer(req.url ?? '/', root, options).then(({ status, type, body }) => {
      res.writeHead(status, { ...headers, 'content-type': type });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/**
 * @param {string} url
 * @param {string} root
 * @param {ServeOptions} options
 * @returns {Promise<{ status: number, type: string, body: Uint8Array | string }>}
 */
async function answer(url, root, options) {
  const text = 'text/plain; charset=utf-8';
  let path;
  try {
    path = posix.normalize(decodeURIComponent(new URL(url, 'http://x').pathname));
  } catch {
    return { status: 400, type: text, body: 'bad path' };
  }
  const fromMemory = options.memory?.(path);
  if (fromMemory) return { status: 200, type: MIME[extname(path)] ?? 'application/octet-stream', body: fromMemory };
  let file = normalize(join(root, path));
  const inside = file === root || file.startsWith(root + sep);
  if (!inside || (options.only && !options.only.some((p) => path.startsWith(p))))
    return { status: 403, type: text, body: 'forbidden' };
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    return { status: 200, type: MIME[extname(file)] ?? 'application/octet-stream', body: await readFile(file) };
  } catch {
    return { status: 404, type: text, body: 'not found' };
  }
}
