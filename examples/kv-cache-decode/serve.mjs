// Serves the example on 127.0.0.1 with the repository's static server: the page and its modules, the built
// bundle (dist/), ONNX Runtime Web's files, and the files of files.mjs from memory under files/.
//   npm run build && node examples/kv-cache-decode/serve.mjs     then open the address it prints

import { fileURLToPath, pathToFileURL } from 'node:url';
import { ISOLATED, serve } from '../../scripts/lib/serve.mjs';
import { EXAMPLE, decodeFiles } from './files.mjs';

/** The page's URL path. */
export const PAGE = '/examples/kv-cache-decode/';

/** What the server serves: the folders the page needs, and the example's files from memory. */
export function served() {
  const { files } = decodeFiles(EXAMPLE);
  return {
    only: [PAGE, '/dist/', '/node_modules/onnxruntime-web/dist/'],
    /** @param {string} path */
    memory: (path) => (path.startsWith(`${PAGE}files/`) ? files.get(path.slice(PAGE.length + 6)) : undefined),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const server = await serve({ root, headers: ISOLATED, ...served() });
  console.log(`open ${server.url}${PAGE.slice(1)} in a browser with WebGPU (Ctrl-C stops the server)`);
}
