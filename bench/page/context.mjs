// The page's shared state: ONE device (ONNX Runtime Web's, so every system runs on the same one),
// the engines, the copy kernel and the GPU timer every case uses, and the errors the device
// reports. `init` builds it once per page load; `finish` reads what the whole run left behind.
// The Node bench (bench/node) runs the same pipelines and decode loops on its own device: `provide`
// hands this module that state and the models, in memory (there is no server in Node).

import { createSplitEngine } from '/dist/cleave.js';
import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { GpuTimer } from './gpu-probe.mjs';
import { makeCopyPipeline } from './systems/limits.mjs';

import { now } from './log.mjs';

export { msg, now, progress } from './log.mjs';

/** @import { SplitEngine } from '/dist/cleave.js' */
/** @import { FinalState, PageEnv } from '../types.js' */

/**
 * @typedef {object} Shared
 * @property {GPUDevice} device  ORT's device, shared by every system
 * @property {GPUAdapter | undefined} adapter
 * @property {SplitEngine} engine  Cleave on the shared device
 * @property {SplitEngine} cpu  Cleave's CPU backend
 * @property {import('onnxruntime-web').InferenceSession} [keepAlive]  ORT destroys its device with its last session
 * @property {GPUDevice} [ortDevice]  handed to every ORT session; absent: ORT's own (the page's `device`)
 * @property {GPUComputePipeline} copyPipeline  the shader-copy limit's kernel
 * @property {GpuTimer} timer
 * @property {string[]} errors  uncaptured errors on the shared device since the case began
 * @property {() => string | undefined} lost
 */

/** @type {Shared | undefined} */
let state;

/** The page's shared state; `init` must have run. */
export function shared() {
  if (!state) throw new Error('bench.init() has not run');
  return state;
}

/** @type {ReadonlyMap<string, Uint8Array> | undefined} */
let inMemory;

/**
 * The Node bench's state and models, in place of `init` and the server's /model/ (the model's name is its key).
 * @param {Shared} s @param {ReadonlyMap<string, Uint8Array>} models
 */
export function provide(s, models) {
  state = s;
  inMemory = models;
}

/** @param {string} name */
export async function fetchModel(name) {
  if (inMemory) {
    const m = inMemory.get(name);
    if (!m) throw new Error(`model ${name}: not built`);
    return m;
  }
  const r = await fetch(`/model/${name}`);
  if (!r.ok) throw new Error(`model ${name}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

/**
 * @param {{ ortThreads: number }} opts
 * @returns {Promise<PageEnv>}
 */
export async function init(opts) {
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  ort.env.wasm.numThreads = opts.ortThreads;
  ort.env.logLevel = 'error';
  // Stays open all run: the native EP destroys its device with its last session.
  const keepAlive = await ort.InferenceSession.create(await fetchModel('keepalive'), {
    executionProviders: ['webgpu'],
  });
  const device = /** @type {unknown} */ (ort.env.webgpu.device);
  if (!(device instanceof GPUDevice)) throw new Error(`ort.env.webgpu.device is not a GPUDevice: ${String(device)}`);
  /** @type {string[]} */
  const errors = [];
  device.addEventListener('uncapturederror', (e) =>
    errors.push(/** @type {GPUUncapturedErrorEvent} */ (e).error.message),
  );
  /** @type {string | undefined} */
  let lost;
  void device.lost.then((i) => {
    lost = `${i.reason}: ${i.message}`;
  });
  state = {
    device,
    keepAlive,
    errors,
    lost: () => lost,
    adapter:
      /** @type {GPUAdapter | undefined} */ (ort.env.webgpu.adapter) ??
      (await navigator.gpu.requestAdapter()) ??
      undefined,
    engine: await createSplitEngine({ device }),
    cpu: await createSplitEngine({ backend: 'cpu' }),
    copyPipeline: makeCopyPipeline(device),
    timer: new GpuTimer(device),
  };
  // The planner's costs measured before any case, as a long-lived page has them (a cold case's
  // fresh device measures after its first split, off the clock's path).
  await state.engine.calibrate();
  return describe(state, await waitMs(device));
}

/**
 * How long a wait for the GPU takes: an empty command buffer submitted, then onSubmittedWorkDone; median ms of 5.
 * Firefox answers such a wait when it next polls the GPU, so its waits take tens of ms.
 * @param {GPUDevice} device
 */
async function waitMs(device) {
  const ms = [];
  for (let i = 0; i < 5; i++) {
    const t = now();
    device.queue.submit([device.createCommandEncoder().finish()]);
    await device.queue.onSubmittedWorkDone();
    ms.push(now() - t);
  }
  return /** @type {number} */ (ms.sort((a, b) => a - b)[2]);
}

/** @param {Shared} s @param {number} gpuWaitMs @returns {PageEnv} */
function describe(s, gpuWaitMs) {
  const names = /** @type {const} */ ([
    'maxStorageBufferBindingSize',
    'maxBufferSize',
    'minStorageBufferOffsetAlignment',
    'maxComputeWorkgroupsPerDimension',
    'maxStorageBuffersPerShaderStage',
  ]);
  const info = s.adapter?.info;
  return {
    userAgent: navigator.userAgent,
    crossOriginIsolated,
    adapter: {
      vendor: info?.vendor,
      architecture: info?.architecture,
      description: info?.description,
      device: info?.device,
    },
    features: [...s.device.features],
    limits: Object.fromEntries(names.map((k) => [k, s.device.limits[k]])),
    ort: { ...ort.env.versions },
    tfjs: /** @type {{ tf?: { version_core?: string } }} */ (/** @type {unknown} */ (window)).tf?.version_core,
    cleaveBackend: s.engine.backend,
    timestampQuery: s.timer.ok,
    gpuWaitMs,
  };
}

/** @returns {Promise<FinalState>} */
export async function finish() {
  const s = shared();
  return {
    cleavePipelines: s.engine.stats.pipelinesCreated,
    liveBuffers: s.engine.stats.liveBuffers,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
  };
}
