// The peers in Node, on the bench's device (bench/node/device.mjs): ONNX Runtime Web's WebGPU EP and TensorFlow.js's
// WebGPU backend, loaded as ../../shared/PEERS-IN-NODE.md found they must be: ORT from its WebGPU entry with one wasm
// thread, the device handed to each session; shared memory copied out before Dawn's writeBuffer sees it; TF.js's
// namespace on globalThis (where page/systems/tfjs.mjs finds the page's bundle). Each is run once, off the clock,
// before anything is timed: ORT's first run waits until V8 has compiled its wasm (tens of seconds on 2 cores), and
// until then Dawn resolves no asynchronous pipeline, Cleave's included. A peer that is not installed or cannot load
// is reported with the reason, and the run goes on without it. And where ORT placed a model's nodes, read from its
// own verbose log (its wasm writes it with fs.writeSync), for the report.

import fs from 'node:fs';
import { msg } from '../page/log.mjs';

/**
 * What loaded: each peer's module, version and warm-up, or why it is absent.
 * @typedef {object} Peers
 * @property {typeof import('onnxruntime-web')} [ort]
 * @property {unknown} [tf]  TF.js's namespace, also at globalThis.tf
 * @property {import('../types.js').PeerInfo} info
 */

/**
 * Loads and warms up the peers named in `want` on `device`; never throws.
 * @param {GPUDevice} device @param {readonly ('ort' | 'tfjs')[]} want @param {(line: string) => void} log
 * @returns {Promise<Peers>}
 */
export async function loadPeers(device, want, log) {
  /** @type {Peers} */
  const peers = { info: {} };
  if (want.length === 0) return peers;
  copySharedWrites();
  if (want.includes('ort')) {
    const t0 = performance.now();
    const ort = await loadOrt(device).catch((e) => msg(e));
    if (typeof ort === 'string') peers.info.ort = { error: ort };
    else {
      const [version, warmUpS] = [ort.ort.env.versions.web, (performance.now() - t0) / 1000];
      [peers.ort, peers.info.ort] = [ort.ort, { version, warmUpS, firstRunS: ort.firstRunS }];
      const first = `its first run ${s(ort.firstRunS)} (V8 compiling its wasm meanwhile)`;
      log(`ORT Web ${version}: loaded in ${s(warmUpS - ort.firstRunS)}, ${first}, off the clock`);
    }
  }
  if (want.includes('tfjs')) {
    const t0 = performance.now();
    const tf = await loadTf(device).catch((e) => msg(e));
    if (typeof tf === 'string') peers.info.tfjs = { error: tf };
    else {
      const warmUpS = (performance.now() - t0) / 1000;
      [peers.tf, peers.info.tfjs] = [tf.tf, { version: tf.version, warmUpS }];
      log(`TF.js ${tf.version}: WebGPU backend on the bench's device, run once in ${s(warmUpS)}`);
    }
  }
  for (const [name, i] of Object.entries(peers.info)) if (i?.error) log(`${name}: not loaded (${i.error}): n/a`);
  return peers;
}

/** @param {number} x */
const s = (x) => `${x.toFixed(1)} s`;

/** Whether copySharedWrites has wrapped writeBuffer (once per process). */
let copying = false;

/**
 * Dawn in Node cannot take views of a SharedArrayBuffer (ORT's wasm memory) in writeBuffer: it refuses a bare
 * one and crashes on a typed array over one. Such data is copied into a plain buffer first; other data passes.
 */
function copySharedWrites() {
  if (copying) return;
  copying = true;
  const proto = GPUQueue.prototype;
  const write = proto.writeBuffer;
  /**
   * @this {GPUQueue} @param {GPUBuffer} buffer @param {number} offset @param {any} data
   * @param {number} [dataOffset] @param {number} [size]
   */
  function copied(buffer, offset, data, dataOffset, size) {
    const view = ArrayBuffer.isView(data);
    if (!((view ? data.buffer : data) instanceof SharedArrayBuffer))
      return write.call(this, buffer, offset, data, dataOffset, size);
    // dataOffset and size count elements of a typed array, bytes of anything else.
    const unit = view ? (/** @type {{ BYTES_PER_ELEMENT?: number }} */ (data).BYTES_PER_ELEMENT ?? 1) : 1;
    const bytes = view
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice()
      : new Uint8Array(data).slice();
    const at = dataOffset === undefined ? undefined : dataOffset * unit;
    return write.call(this, buffer, offset, bytes, at, size === undefined ? undefined : size * unit);
  }
  proto.writeBuffer = copied;
}

/** A model of one Split node that every run starts with (the first run pays V8's compile of ORT's wasm). */
async function warmUpModel() {
  const { splitModel } = await import('../../scripts/lib/onnx-model.mjs');
  return splitModel({ dtype: 'float32', shape: [2, 4], axis: 1, sizes: [1, 3] });
}

/** @param {GPUDevice} device */
async function loadOrt(device) {
  const ort = /** @type {typeof import('onnxruntime-web')} */ (await import('onnxruntime-web/webgpu'));
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(await warmUpModel(), {
    executionProviders: [{ name: 'webgpu', device }],
    preferredOutputLocation: 'gpu-buffer',
  });
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const buffer = device.createBuffer({ size: 32, usage });
  const t0 = performance.now();
  try {
    const x = ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims: [2, 4] });
    const r = await session.run({ x });
    for (const t of Object.values(r)) t.dispose();
  } finally {
    await session.release();
    buffer.destroy();
  }
  // Its session.run calls are counted with the GPU calls, where the bench counts them (per step of a decode loop).
  const { countAlso } = await import('../page/gpu-probe.mjs');
  countAlso(
    /** @type {{ prototype: object }} */ (/** @type {unknown} */ (ort.InferenceSession)).prototype,
    'run',
    'sessionRuns',
  );
  return { ort, firstRunS: (performance.now() - t0) / 1000 };
}

/** @param {GPUDevice} device */
async function loadTf(device) {
  const core = await import('@tensorflow/tfjs-core');
  const { WebGPUBackend } = await import('@tensorflow/tfjs-backend-webgpu');
  const tf = { ...core, WebGPUBackend };
  Object.assign(globalThis, { tf });
  const { tfOn } = await import('../page/systems/tfjs.mjs');
  await tfOn(device);
  const x = tf.tensor([1, 2, 3, 4], [4]);
  const parts = tf.split(x, 2);
  await Promise.all(parts.map((p) => p.data()));
  tf.dispose([x, ...parts]);
  return { tf, version: core.version_core };
}

/** ORT's log lines, as its wasm writes them to stdout or stderr: '2026-... [V:onnxruntime:, file:line Fn] text'. */
const ORT_LINE = /\[[VIWEF]:onnxruntime:/;

/**
 * Where ORT places the nodes of `model` on `device` (fallback to its CPU EP allowed, so the log says where each
 * went): the lines of its verbose log that name an EP and a count of nodes, e.g. 'All nodes placed on
 * [WebGpuExecutionProvider]. Number of nodes: 1'. ORT's log is kept off the run's output while it is read.
 * @param {typeof import('onnxruntime-web')} ort @param {GPUDevice} device @param {Uint8Array} model
 * @returns {Promise<string>}
 */
export async function placementOf(ort, device, model) {
  /** @type {string[]} */
  const lines = [];
  const write = fs.writeSync;
  /** @type {(fd: number, data: unknown, ...rest: unknown[]) => number} */
  const capture = (fd, data, ...rest) => {
    const text =
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString()
          : '';
    if ((fd === 1 || fd === 2) && ORT_LINE.test(text)) {
      lines.push(text);
      return text.length;
    }
    return /** @type {(...a: unknown[]) => number} */ (write)(fd, data, ...rest);
  };
  fs.writeSync = /** @type {typeof fs.writeSync} */ (capture);
  try {
    const session = await ort.InferenceSession.create(model, {
      executionProviders: [{ name: 'webgpu', device }],
      logSeverityLevel: 0,
      logVerbosityLevel: 0,
    });
    await session.release();
  } catch (e) {
    return `no session: ${msg(e)}`;
  } finally {
    fs.writeSync = write;
  }
  const placed = lines
    .flatMap((l) => l.split('\n'))
    .flatMap((l) => {
      const m = /((?:All nodes|Node\(s\)) placed on \[\w+\]\. Number of nodes: \d+)/.exec(l);
      return m ? [/** @type {string} */ (m[1])] : [];
    });
  return placed.length ? placed.join('; ') : 'ORT logged no placement';
}
