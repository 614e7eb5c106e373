// A static file server on 127.0.0.1 for the bench page: the built library, the page itself and
// ONNX Runtime Web's files, plus the ONNX models the driver builds (served from memory). It sends
// COOP/COEP headers so the page is cross-origin isolated (5 µs performance.now() resolution).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json',
  '.wgsl': 'text/plain', '.css': 'text/css', '.onnx': 'application/octet-stream',
};

/** Only these folders of the repository are served. */
const ROOTS = ['/dist/', '/bench/page/', '/node_modules/onnxruntime-web/dist/'];

/**
 * Starts the server on a free port. `models` maps a name to model bytes, served at /model/<name>.
 * Resolves to { url, close }.
 */
export function serve(repoRoot, models) {
  const server = createServer(async (req, res) => {
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    };
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    try {
      if (path.startsWith('/model/')) {
        const bytes = models.get(path.slice('/model/'.length));
        if (!bytes) throw Object.assign(new Error('no such model'), { code: 'ENOENT' });
        res.writeHead(200, { ...headers, 'Content-Type': TYPES['.onnx'] });
        res.end(bytes);
        return;
      }
      const rel = normalize(path);
      if (rel.includes('..') || !ROOTS.some((r) => rel.startsWith(r))) throw Object.assign(new Error('not served'), { code: 'ENOENT' });
      const body = await readFile(join(repoRoot, rel.split('/').join(sep)));
      res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(rel)] ?? 'application/octet-stream' });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'EISDIR' ? 404 : 500, { ...headers, 'Content-Type': 'text/plain' });
      res.end(String(e.message));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
