// A prepared encode's JavaScript alone: Cleave's dist/ on a stand-in device whose WebGPU calls do nothing (no Dawn, no
// GPU), in Node. A float32 [1, 1, 12288] split into 3, prepared with three destinations; each call records into a new
// encoder and releases its outputs. `into`: the prepared destinations; `moving`: at every call, the next of 8 slots of
// three caches, given at the call. Prints the fastest and the median of 9 rounds of N calls, in µs per call.
//
//   npm run build && node bench/node/js-alone.mjs [N=200000] [DIST=dist/cleave.js]

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const noop = () => {};
const buffer = (/** @type {GPUBufferDescriptor} */ d) => ({
  ...{ size: d.size, usage: d.usage, label: '', mapState: 'unmapped', destroy: noop, unmap: noop },
  mapAsync: async () => {},
  getMappedRange: () => new ArrayBuffer(d.size),
});
const pass = { setPipeline: noop, setBindGroup: noop, dispatchWorkgroups: noop, end: noop };
const encoder = () => ({ copyBufferToBuffer: noop, beginComputePass: () => pass, finish: () => ({}) });
const device = {
  label: '',
  features: new Set(),
  lost: new Promise(noop),
  limits: {
    ...{ minStorageBufferOffsetAlignment: 256, minUniformBufferOffsetAlignment: 256 },
    ...{ maxStorageBufferBindingSize: 1 << 30, maxBufferSize: 1 << 30, maxComputeWorkgroupsPerDimension: 65535 },
  },
  queue: { submit: noop, writeBuffer: noop, onSubmittedWorkDone: () => new Promise(noop) },
  createBuffer: buffer,
  createCommandEncoder: encoder,
  ...{ createBindGroupLayout: () => ({}), createPipelineLayout: () => ({}), createShaderModule: () => ({}) },
  ...{ createComputePipeline: () => ({}), createComputePipelineAsync: async () => ({}), createBindGroup: () => ({}) },
  ...{ pushErrorScope: noop, popErrorScope: async () => null, addEventListener: noop, destroy: noop },
};

const N = Number(process.argv[2] ?? 200_000);
const dist = pathToFileURL(resolve(process.argv[3] ?? 'dist/cleave.js')).href;
const { createSplitEngine } = await import(dist);
const engine = await createSplitEngine({ device });
const [n, k, S] = [12288, 4096, 8];
const x = engine.upload({ dtype: 'float32', shape: [1, 1, n], data: new Float32Array(n) });
const mk = (/** @type {number} */ size) => device.createBuffer({ size, usage: 0x80 | 0x8 | 0x4 });
const dest = (/** @type {unknown} */ b, /** @type {number} */ at) => ({
  dtype: 'float32',
  shape: [1, 1, k],
  buffer: b,
  byteOffset: at,
});
const into = [0, 1, 2].map(() => dest(mk(k * 4), 0));
const caches = [0, 1, 2].map(() => mk(k * 4 * S));
const slots = Array.from({ length: S }, (_, t) => caches.map((b) => dest(b, t * k * 4)));
const prepared = engine.prepare(x, { axis: -1, parts: 3, into });
const moving = engine.prepare(x, { axis: -1, parts: 3, into: slots[0] });

/** µs per call of N calls. @param {boolean} move */
function round(move) {
  let step = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const enc = device.createCommandEncoder();
    const outs = move ? moving.encode(enc, x, slots[++step % S]) : prepared.encode(enc, x);
    for (const o of outs) engine.release(o);
  }
  return ((performance.now() - t0) * 1000) / N;
}

for (let r = 0; r < 2; r++) for (const move of [false, true]) round(move);
const us = { into: /** @type {number[]} */ ([]), moving: /** @type {number[]} */ ([]) };
for (let r = 0; r < 9; r++) [us.into[r], us.moving[r]] = [round(false), round(true)];
const median = (/** @type {number[]} */ a) => [...a].sort((p, q) => p - q)[a.length >> 1] ?? NaN;
for (const [name, a] of Object.entries(us))
  console.log(`${name.padEnd(7)} fastest ${Math.min(...a).toFixed(3)} µs, median ${median(a).toFixed(3)} µs per call`);
process.exit(0);
