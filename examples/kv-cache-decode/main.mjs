// The example's page: reads the files serve.mjs made (the shape, models A and B per step size, the tokens,
// the reference), runs the whole sequence through the decode loop on this browser's WebGPU adapter (a prompt
// step, then one token per step), and checks every step's y and the final caches against the reference, bit
// for bit. What it found is printed on the page, and `window.kvCacheDecode.result()` gives it to scripts.

import * as ort from 'onnxruntime-web/webgpu';
import { createSplitEngine } from 'cleave-gpu';
import { createDecodeLoop } from './decode-loop.mjs';

ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/'; // where serve.mjs serves ORT's wasm
ort.env.logLevel = 'error';

/** GPU errors and a lost device: the page reports them, and the browser test fails on any. */
const problems = /** @type {string[]} */ ([]);

/** @param {string} name */
async function file(name) {
  const r = await fetch(`files/${name}`);
  if (!r.ok) throw new Error(`files/${name}: HTTP ${r.status} (is the page served by serve.mjs?)`);
  return new Uint8Array(await r.arrayBuffer());
}

/** @param {string} line */
function print(line) {
  /** @type {HTMLElement} */ (document.querySelector('#log')).textContent += `${line}\n`;
}

/** Runs the sequence; returns every step's y and the final caches. */
async function decode() {
  const shape = JSON.parse(new TextDecoder().decode(await file('case.json')));
  const { width: D, heads: H, headDim: d, tokens: T } = shape;
  const steps = /** @type {number[]} */ (shape.steps);
  const models = new Map();
  for (const S of new Set(steps)) models.set(S, { a: await file(`a-${S}.onnx`), b: await file(`b-${S}.onnx`) });
  const x = new Float32Array((await file('x.bin')).buffer);
  const engine = await createSplitEngine({ backend: 'webgpu' });
  const device = /** @type {GPUDevice} */ (engine.device); // one device for Cleave and ORT
  device.addEventListener('uncapturederror', (e) =>
    problems.push(/** @type {GPUUncapturedErrorEvent} */ (e).error.message),
  );
  const loop = await createDecodeLoop({ engine, device, models, shape: { heads: H, headDim: d, tokens: T } });
  try {
    const y = new Float32Array(T * H * d);
    let t = 0;
    loop.reset();
    for (const S of steps) {
      const out = await loop.step(new ort.Tensor('float32', x.slice(t * D, (t + S) * D), [1, S, D]), t);
      y.set(/** @type {Float32Array} */ (await out.getData()), t * H * d);
      out.dispose();
      print(`step of ${S} token(s): slots ${t}..${t + S - 1} of the caches written, y read back`);
      t += S;
    }
    const cache = (/** @type {GPUBuffer} */ buffer) =>
      engine.download({ dtype: 'float32', shape: [H, T, d], buffer, byteOffset: 0, byteLength: H * T * d * 4 });
    const [k, v] = [(await cache(loop.caches.k)).data, (await cache(loop.caches.v)).data];
    return { steps, y, k, v };
  } finally {
    await loop.release();
    engine.destroy();
  }
}

/**
 * The first place where `got` and the reference differ bit for bit, in words; undefined where none.
 * @param {string} what @param {Float32Array} got @param {Float32Array} want
 */
function differs(what, got, want) {
  const [g, w] = [
    new Uint32Array(got.buffer, got.byteOffset, got.length),
    new Uint32Array(want.buffer, want.byteOffset, want.length),
  ];
  if (g.length !== w.length) return `${what}: ${g.length} values, the reference has ${w.length}`;
  const i = w.findIndex((u, j) => g[j] !== u);
  return i < 0 ? undefined : `${what}: value ${i} is ${got[i]}, the reference says ${want[i]}`;
}

async function run() {
  const r = await decode();
  const ref = new Float32Array((await file('reference.bin')).buffer);
  const [ny, nk] = [r.y.length, r.k.length];
  const wrong = [
    differs("the steps' y", r.y, ref.subarray(0, ny)),
    differs('the K cache', r.k, ref.subarray(ny, ny + nk)),
    differs('the V cache', r.v, ref.subarray(ny + nk)),
  ].filter((x) => x !== undefined);
  print(
    wrong.length ? `DIFFERENT: ${wrong.join('; ')}` : "every step's y and both caches equal the reference, bit for bit",
  );
  for (const p of problems) print(`GPU: ${p}`);
  return {
    ok: wrong.length === 0 && problems.length === 0,
    wrong,
    steps: r.steps,
    y: [...r.y],
    k: [...r.k],
    v: [...r.v],
  };
}

const done = run().catch((e) => {
  print(`failed: ${e instanceof Error ? e.message : String(e)}`);
  throw e;
});
Object.assign(window, { kvCacheDecode: { result: () => done, problems } });
