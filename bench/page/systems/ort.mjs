// ONNX Runtime Web (its native WebGPU EP) running the case's one-node model, GPU-resident
// (Tensor.fromGpuBuffer in, 'gpu-buffer' outputs) or host in/out. Sessions refuse the CPU EP
// fallback first; when the WebGPU EP refuses the graph, the case runs with ORT's default and is
// marked (fallback 'cpu-ep', with ORT's own words), never silently.

import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { msg } from '../context.mjs';
import { checkOutputs, readBuffers } from '../data.mjs';

/** @import { Env, Prepared, Runner, System } from '../../types.js' */
/** @typedef {import('onnxruntime-web').InferenceSession} Session */
/** @typedef {import('onnxruntime-web').InferenceSession.OnnxValueMapType} Outputs */

/**
 * @param {Prepared} c @param {Env} env @param {boolean} gpu
 * @returns {Promise<System>}
 */
export async function ortSystem(c, env, gpu) {
  /** @type {System} */
  const base = { key: gpu ? 'ort-gpu' : 'ort-host', gpuTimed: true, outputBytes: gpu ? c.bytes : 0 };
  if (!c.modelBytes) return { ...base, skip: c.ortSkip ?? 'no ONNX model for this case' };
  const opened = await openSession(c.modelBytes, env, gpu);
  if (!opened.session) return { ...base, error: opened.error, webgpuError: opened.webgpuError };
  const { session, webgpuError } = opened;
  let feeds;
  try {
    feeds = { x: inputTensor(c, env, gpu) };
  } catch (e) {
    await session.release();
    return { ...base, error: `ort.Tensor failed: ${msg(e)}`, webgpuError };
  }
  return {
    ...base,
    run: runner(c, env, session, feeds, gpu),
    webgpuError,
    fallback: webgpuError ? 'cpu-ep' : undefined,
  };
}

/**
 * @param {Prepared} c @param {Env} env @param {Session} session
 * @param {Record<string, import('onnxruntime-web').Tensor>} feeds @param {boolean} gpu
 * @returns {Runner<Outputs>}
 */
function runner(c, env, session, feeds, gpu) {
  const names = session.outputNames;
  return {
    iter: () => session.run(feeds),
    sync: () => env.device.queue.onSubmittedWorkDone(),
    async check(r) {
      const got = gpu
        ? await readGpuOutputs(c, env, names, r)
        : names.map((n) => /** @type {ArrayBufferView} */ (r[n].data));
      return checkOutputs(
        c,
        `ORT ${gpu ? 'GPU-resident' : 'host'}`,
        got,
        names.map((n) => r[n].dims),
      );
    },
    free: (r) => {
      if (gpu) for (const n of names) r[n].dispose();
    },
    close: () => session.release(),
  };
}

/**
 * GPU-resident outputs' bytes, read together (readBuffers) where each has the shape and so the bytes of its
 * reference, else one by one through ORT.
 * @param {Prepared} c @param {Env} env @param {readonly string[]} names @param {Outputs} r
 * @returns {Promise<ArrayBufferView[]>}
 */
async function readGpuOutputs(c, env, names, r) {
  if (names.some((n, i) => String(r[n].dims) !== String(c.outShapes[i]))) {
    const got = [];
    for (const n of names) got.push(/** @type {ArrayBufferView} */ (await r[n].getData()));
    return got;
  }
  const parts = names.map((n, i) => ({
    buffer: /** @type {GPUBuffer} */ (r[n].gpuBuffer),
    offset: 0,
    size: /** @type {Uint8Array} */ (c.ref[i]).byteLength,
  }));
  return readBuffers(env.device, parts);
}

/**
 * A session without CPU fallback, else (visibly) with it.
 * @param {Uint8Array} model @param {Pick<Env, 'ortDevice'>} env @param {boolean} gpu  outputs left on the GPU
 * @returns {Promise<{ session: Session, webgpuError?: string }
 *   | { session?: undefined, error: string, webgpuError?: string }>}
 */
export async function openSession(model, env, gpu) {
  const providers = env.ortDevice ? [{ name: /** @type {const} */ ('webgpu'), device: env.ortDevice }] : ['webgpu'];
  /** @param {boolean} fallback @returns {import('onnxruntime-web').InferenceSession.SessionOptions} */
  const options = (fallback) => ({
    executionProviders: providers,
    ...(gpu ? { preferredOutputLocation: 'gpu-buffer' } : {}),
    ...(fallback ? {} : { extra: { session: { disable_cpu_ep_fallback: '1' } } }),
  });
  let webgpuError;
  try {
    return { session: await ort.InferenceSession.create(model, options(false)) };
  } catch (e) {
    webgpuError = msg(e);
  }
  try {
    return { session: await ort.InferenceSession.create(model, options(true)), webgpuError };
  } catch (e) {
    return { error: `InferenceSession.create failed: ${msg(e)}`, webgpuError };
  }
}

/** @param {Prepared} c @param {Env} env @param {boolean} gpu */
function inputTensor(c, env, gpu) {
  const dims = [...c.shape];
  if (gpu) {
    const dataType = /** @type {import('onnxruntime-web').Tensor.GpuBufferDataTypes} */ (c.dtype);
    return ort.Tensor.fromGpuBuffer(env.gx.buffer, { dataType, dims });
  }
  const type = /** @type {'float32'} */ (c.dtype);
  return new ort.Tensor(type, /** @type {Float32Array} */ (c.host.data), dims);
}
