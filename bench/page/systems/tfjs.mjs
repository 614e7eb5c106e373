// TensorFlow.js 4.22 on its WebGPU backend, run on the shared device: tf.split of the case's input,
// GPU-resident in and out. The input is the bench's upload wrapped without a copy by cleave-gpu/tfjs's
// toTfTensor (tf.tensor({ buffer, zeroCopy: true })); tf.split's outputs are TF.js tensors on the
// GPU, read back only to verify them. TF.js records its commands and submits every 15 dispatches
// or when read: `sync` submits what it holds, then waits for the queue, so a batch is timed as
// every other GPU-resident system's (K iterations, one drain). TF.js keeps only float32, int32 and
// bool (as 32-bit words) on the GPU: other dtypes are n/a.

import { toTfTensor } from '/dist/tfjs.js';
import { checkOutputs, readBuffers } from '../data.mjs';

/** @import { Env, Prepared, Runner, System } from '../../types.js' */
/** @typedef {import('@tensorflow/tfjs-core').Tensor} Tensor */
/**
 * TF.js's namespace at globalThis.tf: in the page the UMD bundles' (page/index.html loads them), in Node the
 * packages' (bench/node/peers.mjs puts it there): tfjs-core, with the WebGPU backend's class.
 * @typedef {typeof import('@tensorflow/tfjs-core')
 *   & { WebGPUBackend: typeof import('@tensorflow/tfjs-backend-webgpu').WebGPUBackend }} Tf
 */

/** @returns {Tf} */
export function tfjs() {
  const tf = /** @type {{ tf?: Tf }} */ (/** @type {unknown} */ (globalThis)).tf;
  if (!tf?.WebGPUBackend) throw new Error('TF.js (tf-core, tf-backend-webgpu) is not loaded');
  return tf;
}

/** @type {WeakMap<GPUDevice, Promise<void>>} */
const onDevice = new WeakMap();
/**
 * Runs TF.js's WebGPU backend on `device` (once per device). Its bundle registered 'webgpu' on a
 * device of its own, created only when first used: that registration is replaced, never used.
 * @param {GPUDevice} device
 */
export function tfOn(device) {
  const tf = tfjs();
  let ready = onDevice.get(device);
  if (!ready) {
    if (tf.findBackendFactory('webgpu')) tf.removeBackend('webgpu');
    tf.registerBackend('webgpu', async () => new tf.WebGPUBackend(device));
    tf.env().set('WEBGPU_CPU_FORWARD', false);
    ready = tf.setBackend('webgpu').then((ok) => {
      if (!ok) throw new Error("TF.js could not start its 'webgpu' backend");
    });
    onDevice.set(device, ready);
  }
  return ready;
}

/** @param {Prepared} c @param {Env} env @returns {Promise<System>} */
export async function tfjsGpu(c, env) {
  // No GPU time: the timestamp spans of TF.js's command buffers have summed to more than its wall
  // time (bench/RESULTS.md), so that figure would mislead; its wall time follows every system's rule.
  /** @type {System} */
  const base = { key: 'tfjs-gpu', gpuTimed: false, outputBytes: c.bytes };
  if (c.dtype !== 'float32' && c.dtype !== 'int32')
    return { ...base, skip: `TF.js keeps float32, int32 and bool (as 32-bit words) on the GPU, not ${c.dtype}` };
  await tfOn(env.device);
  const tf = tfjs();
  const x = toTfTensor(tf, env.gx);
  const backend = /** @type {import('@tensorflow/tfjs-backend-webgpu').WebGPUBackend} */ (tf.backend());
  /** @type {Runner<Tensor[]>} */
  const run = {
    iter: () => tf.split(x, [...c.sizes], c.axis),
    sync: () => {
      backend.ensureCommandEncoderReady();
      backend.endComputePassEncoder();
      backend.submitQueue();
      return env.device.queue.onSubmittedWorkDone();
    },
    // Each output copied on the GPU (dataToGPU), then all read together: one wait for the GPU, not one each.
    async check(outs) {
      const copies = outs.map((o) => o.dataToGPU());
      const parts = copies.map((d, i) => ({
        buffer: /** @type {GPUBuffer} */ (d.buffer),
        offset: 0,
        size: /** @type {Tensor} */ (outs[i]).size * 4,
      }));
      const got = await readBuffers(env.device, parts).finally(() => copies.forEach((d) => d.tensorRef.dispose()));
      return checkOutputs(
        c,
        'TF.js tf.split',
        got,
        outs.map((o) => o.shape),
      );
    },
    free: (outs) => tf.dispose(outs),
    close: () => x.dispose(),
  };
  return { ...base, run };
}
