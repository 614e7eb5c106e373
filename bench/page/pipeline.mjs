// A pipeline case: ONNX Runtime Web's whole graph (MatMul -> Split -> attention) against
// ORT A (the MatMul, its output left on the GPU) -> Cleave (engine.split of A's output with layout
// 'separate', each part handed on with toOrtTensor) -> ORT B (the attention). GPU-resident: x goes
// in as a GPU buffer, y stays on the GPU, nothing is read back in between; all on the page's one
// device, timed side by side like the split cases. ORT's whole graph on its CPU EP (host in/out)
// runs beside them as the other way an ORT user could go. Every system's y is checked against the
// reference computed in Node, bit for bit.

import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { fromOrtTensor, toOrtTensor } from '/dist/ort.js';
import { fetchModel, now, progress, shared } from './context.mjs';
import { resultOf, verify } from './verify.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { openSession } from './systems/ort.mjs';
import { measureAll, summary } from './timing.mjs';

/** @import { BenchPipeline, PipelineKey, PipelineResult, Runner, Settings, Slot, System } from '../types.js' */
/** @typedef {import('onnxruntime-web').InferenceSession} Session */
/** @typedef {import('onnxruntime-web').Tensor} Tensor */

/**
 * What a pipeline's systems share: its input on the GPU and on the host, and the check of a y.
 * @typedef {object} Inputs
 * @property {Tensor} xGpu
 * @property {Tensor} xHost
 * @property {(key: PipelineKey, y: Float32Array) => string | undefined} check
 * @property {number} yBytes
 */

/**
 * @param {BenchPipeline} p @param {Settings} settings
 * @returns {Promise<PipelineResult>}
 */
export async function runPipeline(p, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  progress(`${p.id}: preparing`);
  const [a, b, whole, xBytes, refBytes] = await Promise.all(
    [p.files.a, p.files.b, p.files.whole, p.files.x, p.files.ref].map(fetchModel),
  );
  const xBuffer = createBuffer(s.device, { size: xBytes.byteLength, usage: STORAGE, mappedAtCreation: true });
  new Uint8Array(xBuffer.getMappedRange()).set(xBytes);
  xBuffer.unmap();
  const dims = [1, p.seq, p.width];
  const ref = new Uint32Array(refBytes.buffer, refBytes.byteOffset, refBytes.byteLength / 4);
  /** @type {Inputs} */
  const inputs = {
    xGpu: ort.Tensor.fromGpuBuffer(xBuffer, { dataType: 'float32', dims }),
    xHost: new ort.Tensor('float32', new Float32Array(xBytes.buffer, xBytes.byteOffset, xBytes.byteLength / 4), dims),
    check: (key, y) => compareY(y, ref, key),
    yBytes: refBytes.byteLength,
  };
  progress(`${p.id}: creating sessions`);
  // One session at a time: ORT 1.30 refuses to create a WebGPU session while another is being created.
  const systems = [await wholeGpu(whole, inputs), await viaCleave(p, a, b, inputs), await wholeCpu(whole, inputs)];
  /** @type {Slot<PipelineKey>[]} */
  const slots = [];
  for (const sys of systems) slots.push(await verify(sys, p.id, settings.probes));
  const reps = await measureAll(
    slots,
    { ...settings, minReps: Math.max(settings.minReps, settings.pipelineMinReps) },
    p.id,
    s.timer,
  );
  for (const sys of systems) await sys.run?.close?.();
  xBuffer.destroy();
  await s.device.queue.onSubmittedWorkDone();
  return {
    id: p.id,
    ...outcome(slots),
    reps,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
    seconds: (now() - t0) / 1000,
  };
}

/**
 * Each system's result, and the pipeline's time over the whole graph's batch by batch (each rep runs them
 * back to back, so a load change on the machine hits both).
 * @param {Slot<PipelineKey>[]} slots @returns {Pick<PipelineResult, 'systems' | 'pairedRatio'>}
 */
function outcome(slots) {
  const [ws, cs] = ['ort-whole', 'cleave-pipeline'].map((k) => slots.find((x) => x.sys.key === k)?.wall ?? []);
  return {
    systems: Object.fromEntries(slots.map((x) => [x.sys.key, resultOf(x)])),
    pairedRatio:
      ws?.length && ws.length === cs?.length ? summary(cs.map((t, i) => t / /** @type {number} */ (ws[i]))) : undefined,
  };
}

/**
 * y against the reference, bit for bit (lib/pipelines.mjs refuses a pipeline where float32 is not exact).
 * @param {Float32Array} y @param {Uint32Array} ref @param {string} what
 */
function compareY(y, ref, what) {
  const got = new Uint32Array(y.buffer, y.byteOffset, y.length);
  if (got.length !== ref.length) return `${what}: y has ${got.length} values, expected ${ref.length}`;
  const first = ref.findIndex((u, i) => got[i] !== u);
  const r = new Float32Array(ref.buffer, ref.byteOffset, ref.length);
  return first < 0 ? undefined : `${what}: y differs from the reference at ${first}: ${y[first]} vs ${r[first]}`;
}

/**
 * A system around ORT sessions: `iter` gives y; `check` reads it; GPU outputs are disposed by `free`.
 * @param {PipelineKey} key @param {Session[]} sessions @param {() => Promise<Tensor>} iter @param {Inputs} inputs
 * @param {boolean} gpu
 * @param {Partial<Runner<Tensor>>} [extra]
 * @returns {System<PipelineKey>}
 */
function ortRunner(key, sessions, iter, inputs, gpu, extra = {}) {
  const { device } = shared();
  /** @type {Runner<Tensor>} */
  const run = {
    iter,
    sync: () => (gpu ? device.queue.onSubmittedWorkDone() : Promise.resolve()),
    check: async (y) => inputs.check(key, /** @type {Float32Array} */ (gpu ? await y.getData() : y.data)),
    free: (y) => {
      if (gpu) y.dispose();
    },
    close: async () => {
      for (const x of sessions) await x.release();
    },
    ...extra,
  };
  return { key, gpuTimed: gpu, outputBytes: gpu ? inputs.yBytes : 0, run };
}

/**
 * ORT's whole graph on its WebGPU EP, x and y on the GPU.
 * @param {Uint8Array} model @param {Inputs} inputs @returns {Promise<System<PipelineKey>>}
 */
async function wholeGpu(model, inputs) {
  const opened = await openSession(model, { ortDevice: shared().ortDevice }, true);
  if (!opened.session)
    return { key: 'ort-whole', gpuTimed: true, outputBytes: 0, error: opened.error, webgpuError: opened.webgpuError };
  const session = opened.session;
  const sys = ortRunner(
    'ort-whole',
    [session],
    async () => /** @type {Tensor} */ ((await session.run({ x: inputs.xGpu }))['y']),
    inputs,
    true,
  );
  return { ...sys, webgpuError: opened.webgpuError, fallback: opened.webgpuError ? 'cpu-ep' : undefined };
}

/**
 * ORT's whole graph on its CPU EP, host in/out.
 * @param {Uint8Array} model @param {Inputs} inputs @returns {Promise<System<PipelineKey>>}
 */
async function wholeCpu(model, inputs) {
  const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
  return ortRunner(
    'ort-whole-cpu',
    [session],
    async () => /** @type {Tensor} */ ((await session.run({ x: inputs.xHost }))['y']),
    inputs,
    false,
  );
}

/**
 * ORT A -> Cleave -> ORT B: A's output stays on the GPU; Cleave copies its parts into buffers of
 * their own (ORT takes whole buffers) and A's tensor is disposed at once, so ORT may reuse it; B
 * reads the parts, which go back to Cleave's pool as soon as B has run.
 * @param {BenchPipeline} p @param {Uint8Array} modelA @param {Uint8Array} modelB @param {Inputs} inputs
 * @returns {Promise<System<PipelineKey>>}
 */
async function viaCleave(p, modelA, modelB, inputs) {
  const { engine, ortDevice } = shared();
  const a = await openSession(modelA, { ortDevice }, true);
  const b = a.session && (await openSession(modelB, { ortDevice }, true));
  if (!a.session || !b?.session) {
    await a.session?.release();
    return {
      key: 'cleave-pipeline',
      gpuTimed: true,
      outputBytes: 0,
      error: `A: ${a.session ? 'opened' : a.error}; B: ${b?.session ? 'opened' : (b?.error ?? 'not tried')}`,
    };
  }
  const [sa, sb] = [a.session, b.session];
  const options = { axis: -1, parts: p.parts, layout: /** @type {const} */ ('separate') };
  const iter = async () => {
    const qkv = /** @type {Tensor} */ ((await sa.run({ x: inputs.xGpu }))['qkv']);
    const parts = await engine.split(fromOrtTensor(qkv), options);
    qkv.dispose();
    const feeds = Object.fromEntries(
      p.names.map((n, i) => [
        n,
        /** @type {Tensor} */ (toOrtTensor(ort, /** @type {import('/dist/cleave.js').GpuTensor} */ (parts[i]))),
      ]),
    );
    const y = /** @type {Tensor} */ ((await sb.run(feeds))['y']);
    for (const t of parts) engine.release(t);
    return y;
  };
  const sys = ortRunner('cleave-pipeline', [sa, sb], iter, inputs, true, { stats: () => statsOf(engine) });
  const webgpuError =
    [a.webgpuError && `A: ${a.webgpuError}`, b.webgpuError && `B: ${b.webgpuError}`].filter(Boolean).join('; ') ||
    undefined;
  return { ...sys, webgpuError, fallback: webgpuError ? 'cpu-ep' : undefined };
}
