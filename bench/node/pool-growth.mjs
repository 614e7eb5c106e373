// The buffer pool under sizes that never repeat, on Dawn in Node: a float32 [t + 1] uploaded and split into [1] and
// [t], everything released, for t = 1 to N. Prints the buffers created in the second half (and per 16 steps), the host
// time per step of each tenth, and the last tenth's over the second's: a pool that creates a buffer for every new
// size, or scans every size it has seen, shows here as a count near one a step, or a ratio that grows with N.
//
//   npm run build && node bench/node/pool-growth.mjs [N=20000] [DIST=dist/cleave.js]

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const N = Number(process.argv[2] ?? 20_000);
const dist = pathToFileURL(resolve(process.argv[3] ?? 'dist/cleave.js')).href;
const { createSplitEngine } = await import(dist);
const engine = await createSplitEngine({ backend: 'webgpu' });
const device = /** @type {GPUDevice} */ (engine.device);

let created = 0;
const create = device.createBuffer;
device.createBuffer = (d) => (created++, create.call(device, d));

// Every step's data is a view of one array: the bench allocates nothing that grows with t.
const data = Float32Array.from({ length: N + 1 }, (_, i) => i);

/** One step: the loop body. @param {number} t */
async function step(t) {
  const gx = engine.upload({ dtype: 'float32', shape: [t + 1], data: data.subarray(0, t + 1) });
  const outs = await engine.split(gx, { sizes: [1, t] });
  for (const o of [...outs, gx]) engine.release(o);
}

const tenth = Math.floor(N / 10);
/** @type {number[]} */
const msPerStep = [];
let firstHalf = 0;
for (let k = 0; k < 10; k++) {
  if (k === 5) firstHalf = created;
  const t0 = performance.now();
  for (let t = k * tenth + 1; t <= (k + 1) * tenth; t++) await step(t);
  msPerStep.push((performance.now() - t0) / tenth);
}
await device.queue.onSubmittedWorkDone();
const second = created - firstHalf;
const half = N - 5 * tenth;
console.log(`strategy ${engine.stats.strategy}, ${N} steps, ${created} buffers created in all`);
console.log(`second half: ${second} buffers created, ${((second * 16) / half).toFixed(3)} per 16 steps`);
console.log(`ms per step, each tenth: ${msPerStep.map((m) => m.toFixed(4)).join(' ')}`);
console.log(`last tenth / second tenth: ${(msPerStep[9] / msPerStep[1]).toFixed(3)}x`);
engine.destroy();
process.exit(0);
