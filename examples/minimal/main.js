// Splits a [2, 3] tensor on the GPU into [2, 2] and [2, 1] and shows them. No bundler: the import map finds cleave-gpu.
import { SplitError, createSplitEngine } from 'cleave-gpu';

const out = /** @type {HTMLElement} */ (document.querySelector('#out'));
try {
  const engine = await createSplitEngine({ backend: 'webgpu' }); // a SplitError, NO_WEBGPU, where there is none
  const x = engine.upload({ dtype: 'float32', shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6]) });
  const lines = [];
  for (const t of await engine.split(x, { axis: 1, sizes: [2, 1] }))
    lines.push(`[${t.shape.join(', ')}]: ${[...(await engine.download(t)).data].join(', ')}`);
  out.textContent = lines.join('\n');
  engine.destroy(); // frees x and the outputs with it
} catch (e) {
  const noWebGpu = e instanceof SplitError && e.code === 'NO_WEBGPU';
  out.textContent = noWebGpu ? `No WebGPU in this browser, so nothing was split (${e.message})` : `Failed: ${e}`;
  if (!noWebGpu) throw e;
} finally {
  out.setAttribute('aria-busy', 'false');
}
