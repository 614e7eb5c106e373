// Two builds from one config: the library (default mode) into dist/, and the demo page
// (`--mode demo`) into dist/demo/. `webgpu` (Dawn for Node) is never bundled.
import { defineConfig } from 'vite';

export default defineConfig(({ mode }) =>
  mode === 'demo'
    ? {
        base: './',
        build: { outDir: 'dist/demo', emptyOutDir: true, target: 'es2022' },
      }
    : {
        build: {
          target: 'es2022',
          emptyOutDir: true,
          sourcemap: true,
          lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'cleave.js' },
          rollupOptions: { external: ['webgpu'] },
        },
      },
);
