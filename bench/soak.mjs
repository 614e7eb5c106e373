// Soak: fixed-shape upload -> split -> release loops on one engine (Node, Dawn; SwiftShader when
// there is no GPU), printing live buffers and RSS as it goes. A benchmark to read, not a test: it
// asserts nothing. Needs dist/ (`npm run build`).
//   node --expose-gc bench/soak.mjs [loops]     (--expose-gc: RSS is sampled after a full GC)
import { existsSync } from 'node:fs';
import { createSplitEngine } from 'cleave-gpu'; // the package itself: dist/ for node, src/ for tsc
import { SWIFTSHADER } from './lib/cli.mjs';

if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;

const loops = Number(process.argv[2] ?? 100_000);
const engine = await createSplitEngine({ backend: 'webgpu' });
/** @type {import('cleave-gpu').HostTensor<'float32'>} */
const x = { dtype: 'float32', shape: [64, 64], data: Float32Array.from({ length: 4096 }, (_, i) => i) };
const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc;
const rss = () => {
  gc?.();
  return `${(process.memoryUsage().rss / 2 ** 20).toFixed(1)} MiB`;
};

/** One loop: the upload, a strided split (one gather dispatch), both outputs and the input released. */
async function once() {
  const gx = engine.upload(x);
  const outs = await engine.split(gx, { axis: 1, sizes: [16, 48] });
  for (const t of [...outs, gx]) engine.release(t);
}

for (let i = 0; i < 100; i++) await once(); // warm: pipelines, pool, tables
const t0 = performance.now();
console.log(
  `soak: ${loops} loops of upload [64, 64] float32 -> split axis 1 [16, 48] -> release ` +
    `(${engine.adapterInfo?.architecture}${gc ? ', RSS after a full GC' : ''})`,
);
console.log(`start: ${engine.stats.liveBuffers} live buffers, RSS ${rss()}`);
for (let i = 1; i <= loops; i++) {
  await once();
  if (i % (loops / 10) === 0) {
    console.log(`${String(i).padStart(7)}: ${engine.stats.liveBuffers} live buffers, RSS ${rss()}`);
  }
}
const seconds = (performance.now() - t0) / 1000;
console.log(
  `end: ${engine.stats.liveBuffers} live buffers, RSS ${rss()} ` +
    `(${((seconds * 1e6) / loops).toFixed(0)} µs per loop, ${seconds.toFixed(1)} s)`,
);
engine.destroy();
process.exit(0);
