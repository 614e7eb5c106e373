// Two builds from one config: the library (default mode) into dist/, and the demo page
// (`--mode demo`) into dist-demo/, outside dist/ so the package never ships it.
// The library has four entries, `cleave-gpu`, `cleave-gpu/core`, `cleave-gpu/ort` and `cleave-gpu/tfjs`; code they
// share goes into chunks next to them. No source maps: the package does not ship them, and a sourceMappingURL to a missing
// file makes consumers' dev servers warn. Not minified either: consumers' bundlers minify (to the
// same size, measured), and readable code gives readable stack traces. `webgpu` (Dawn for Node) is
// never bundled.
import { basename } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { compactWgsl } from './scripts/lib/compact-wgsl.mjs';
import { pipelineFiles } from './demo/pipeline-files.js';

const ENTRIES = { cleave: 'src/index.ts', core: 'src/core.ts', ort: 'src/ort.ts', tfjs: 'src/tfjs.ts' };

// The WebGPU types our .d.ts files name (GPUDevice, GPUBuffer) are in TypeScript's DOM lib from
// TypeScript 6 on, and @webgpu/types next to it is a wall of duplicate-identifier errors for any
// consumer without skipLibCheck. Before 6 they must come from @webgpu/types. So the .d.ts files
// tsc emits reference nothing, and package.json's `types@<6` condition sends older compilers to
// these wrappers, which add the reference.
function webgpuTypesBeforeTs6(): Plugin {
  return {
    name: 'cleave:webgpu-types-before-ts6',
    generateBundle() {
      for (const entry of Object.values(ENTRIES)) {
        const name = basename(entry, '.ts');
        const source = `/// <reference types="@webgpu/types" />\nexport * from '../${name}.js';\n`;
        this.emitFile({ type: 'asset', fileName: `ts5/${name}.d.ts`, source });
      }
    },
  };
}

export default defineConfig(({ mode }) =>
  mode === 'demo'
    ? {
        base: './',
        plugins: [compactWgsl(), pipelineFiles()],
        // ONNX Runtime Web finds its wasm next to its module (new URL(…, import.meta.url)): pre-bundling
        // would move the module away from it in the dev server. The build copies the wasm as an asset.
        // The dependency scan starts from the demo's page only (not the test fixtures' pages).
        optimizeDeps: { entries: ['index.html'], exclude: ['onnxruntime-web'] },
        build: { outDir: 'dist-demo', emptyOutDir: true, target: 'es2022' },
      }
    : {
        plugins: [compactWgsl(), webgpuTypesBeforeTs6()],
        build: {
          target: 'es2022',
          emptyOutDir: true,
          sourcemap: false,
          minify: false,
          lib: { entry: ENTRIES, formats: ['es'], fileName: (_format, name) => `${name}.js` },
          rollupOptions: { external: ['webgpu'] },
        },
      },
);
