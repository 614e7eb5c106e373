// Bundles test/hostile/child.ts with the library's current sources into one ES module, for the
// child processes of crash.test.ts (plain Node runs it; no TypeScript loader is needed). The
// output goes under node_modules/.cache so that the bundle's `import('webgpu')` resolves.
// Usage: node test/hostile/build-child.mjs <outDir>
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { compactWgsl } from '../../scripts/lib/compact-wgsl.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outDir = process.argv[2];
if (!outDir) throw new Error('usage: node test/hostile/build-child.mjs <outDir>');
await build({
  configFile: false,
  root,
  logLevel: 'warn',
  plugins: [compactWgsl()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    sourcemap: false,
    lib: { entry: { child: 'test/hostile/child.ts' }, formats: ['es'], fileName: (_format, name) => `${name}.js` },
    rollupOptions: { external: ['webgpu', /^node:/] },
  },
});
