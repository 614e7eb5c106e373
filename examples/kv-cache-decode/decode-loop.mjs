// A decoder step with a KV cache, run by ONNX Runtime Web with Cleave between its two halves, all on one
// GPUDevice (Cleave's engine's, handed to every ORT session):
//
//   session A   x [1, S, D] -> qkv [1, S, 3 H d]          the projection, a MatMul
//   Cleave      qkv seen as [1, S, 3, H, d], split along axis 2 `into` three places:
//               q into a buffer of its own [1, H, S, d], and k and v into slots t..t+S-1 of the
//               caches K and V [1, H, T, d] (strided destinations: the heads move to the front)
//   session B   q, K, V -> y [1, S, H, d]                   attention over the whole caches
//
// No Concat of the past and the new K and V, no cache copied per step: the split writes each token's k and
// v straight into its slots, and B reads the same three buffers every step. The slots not written yet hold
// zeros. The split is prepared once per step size (`engine.prepare`): each step gives its own slots, and the
// split checks only them and the input before it records its copies. The models: scripts/lib/decode-models.mjs
// (attention without softmax, so that the reference is exact).

import * as ort from 'onnxruntime-web/webgpu';
import { fromOrtTensor } from 'cleave-gpu/ort';

/** @import { GpuTensor, SplitEngine } from 'cleave-gpu' */
/** @typedef {import('onnxruntime-web').InferenceSession} Session */
/** @typedef {import('onnxruntime-web').Tensor} Tensor */

const USAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

/**
 * @typedef {object} DecodeOptions
 * @property {SplitEngine} engine  on `device`
 * @property {GPUDevice} device  the device both ORT sessions run on
 * @property {{ heads: number, headDim: number, tokens: number }} shape  H, d, and T: the caches' slots
 * @property {ReadonlyMap<number, { a: Uint8Array, b: Uint8Array }>} models  models A and B for each step size S
 * @property {boolean} [encode]  record the prepared split into an encoder of our own (its `encode`; else `split`)
 * @property {boolean} [graphCapture]  B's sessions with ORT's enableGraphCapture: their inputs never move
 */

/**
 * Opens the sessions (one at a time: ORT refuses to create a WebGPU session while it creates another)
 * and the buffers: the caches, and q for each step size.
 * @param {DecodeOptions} o
 */
export async function createDecodeLoop(o) {
  const { device } = o;
  const { heads: H, headDim: d, tokens: T } = o.shape;
  /** @type {GPUBuffer[]} */
  const buffers = [];
  /** @type {Session[]} */
  const sessions = [];
  const buffer = (/** @type {number} */ floats) => {
    buffers.push(device.createBuffer({ size: floats * 4, usage: USAGE }));
    return /** @type {GPUBuffer} */ (buffers.at(-1));
  };
  const release = async () => {
    for (const s of sessions.splice(0)) await s.release();
    for (const b of buffers.splice(0)) b.destroy();
  };
  const open = async (/** @type {Uint8Array} */ model, /** @type {boolean} */ capture) => {
    sessions.push(await openSession(model, device, capture));
    return /** @type {Session} */ (sessions.at(-1));
  };
  const caches = { k: buffer(H * T * d), v: buffer(H * T * d) };
  const gpu = (/** @type {GPUBuffer} */ b, /** @type {number[]} */ dims) =>
    ort.Tensor.fromGpuBuffer(b, { dataType: 'float32', dims });
  const kv = { k_cache: gpu(caches.k, [1, H, T, d]), v_cache: gpu(caches.v, [1, H, T, d]) };
  /** @type {Map<number, { a: Session, b: Session, q: GPUBuffer, feeds: Record<string, Tensor> }>} */
  const steps = new Map();
  try {
    for (const [S, m] of o.models) {
      const [a, b, q] = [await open(m.a, false), await open(m.b, !!o.graphCapture), buffer(H * S * d)];
      steps.set(S, { a, b, q, feeds: { q: gpu(q, [1, H, S, d]), ...kv } });
    }
  } catch (e) {
    await release();
    throw e;
  }
  const at = (/** @type {number} */ S) => {
    const s = steps.get(S);
    if (!s) throw new Error(`no models for steps of ${S} token(s)`);
    return s;
  };
  return loopOf(o, caches, at, release);
}

/**
 * The loop's calls: `step` is `project`, then `fill`, then `attend`.
 * @param {DecodeOptions} o @param {{ k: GPUBuffer, v: GPUBuffer }} caches
 * @param {(S: number) => { a: Session, b: Session, q: GPUBuffer, feeds: Record<string, Tensor> }} at
 * @param {() => Promise<void>} release
 */
function loopOf(o, caches, at, release) {
  const { device, engine } = o;
  const { heads: H, headDim: d, tokens: T } = o.shape;
  /** @type {Map<number, import('cleave-gpu').PreparedSplit<'float32'>>} the split of each step size, prepared once */
  const prepared = new Map();
  /**
   * One of q, k, v of a step of S tokens, written at slot t0 of a buffer laid out [1, H, L, d]: the
   * split's output [1, S, 1, H, d] as a strided view (a size-1 dimension's stride is never used).
   * @param {GPUBuffer} buffer @param {number} L @param {number} t0 @param {number} S
   */
  const slots = (buffer, L, t0, S) => ({
    dtype: /** @type {const} */ ('float32'),
    shape: [1, S, 1, H, d],
    buffer,
    byteOffset: t0 * d * 4,
    strides: [H * L * d, d, 0, L * d, 1],
  });
  const loop = {
    caches,
    /** Empties the caches: the start of a new sequence. */
    reset() {
      const encoder = device.createCommandEncoder();
      encoder.clearBuffer(caches.k);
      encoder.clearBuffer(caches.v);
      device.queue.submit([encoder.finish()]);
    },
    /** Session A: x [1, S, D] (on the GPU or not) -> qkv [1, S, 3 H d], left on the GPU. @param {Tensor} x */
    project: async (x) => /** @type {Tensor} */ ((await at(x.dims[1] ?? 0).a.run({ x }))['qkv']),
    /**
     * Cleave: q, and k and v into the caches from slot t0; qkv goes back to ORT once the split is recorded.
     * @param {Tensor} qkv @param {number} t0
     */
    async fill(qkv, t0) {
      const S = qkv.dims[1] ?? 0;
      /** @type {GpuTensor<'float32'>} */
      const x = { ...fromOrtTensor(qkv), dtype: 'float32', shape: [1, S, 3, H, d] }; // the same bytes, per head
      const into = [slots(at(S).q, S, 0, S), slots(caches.k, T, t0, S), slots(caches.v, T, t0, S)];
      let split = prepared.get(S);
      if (!split) prepared.set(S, (split = engine.prepare(x, { axis: 2, sizes: [1, 1, 1], into })));
      if (o.encode) {
        const encoder = device.createCommandEncoder();
        split.encode(encoder, x, into);
        device.queue.submit([encoder.finish()]);
      } else await split.split(x, into);
      qkv.dispose();
    },
    /** Session B over the whole caches: y [1, S, H, d], on the GPU. @param {number} S */
    attend: async (S) => /** @type {Tensor} */ ((await at(S).b.run(at(S).feeds))['y']),
    /** One step of x [1, S, D] whose tokens take slots t0..t0+S-1. @param {Tensor} x @param {number} t0 */
    async step(x, t0) {
      await loop.fill(await loop.project(x), t0);
      return loop.attend(x.dims[1] ?? 0);
    },
    /** Releases the sessions and destroys the buffers (the caches too). */
    release,
  };
  return loop;
}

/**
 * A session on `device` with its outputs left on the GPU, every node on WebGPU (no CPU fallback).
 * @param {Uint8Array} model @param {GPUDevice} device @param {boolean} graphCapture
 */
function openSession(model, device, graphCapture) {
  return ort.InferenceSession.create(model, {
    executionProviders: [{ name: 'webgpu', device }],
    preferredOutputLocation: 'gpu-buffer',
    enableGraphCapture: graphCapture,
    extra: { session: { disable_cpu_ep_fallback: '1' } },
  });
}
