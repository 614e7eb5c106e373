// A decode loop, timed: ORT's whole graph the usual ONNX way (past K and V in, present K and V out: a
// Concat of past and new every step) against the example's loop (examples/kv-cache-decode/decode-loop.mjs:
// ORT A -> Cleave `into` the KV caches -> ORT B) with engine.split, with encodeSplit, and with B under ORT's
// graph capture, all on the page's one device. One timed iteration is the whole sequence, the caches
// cleared first. Every step's y and the final caches are checked against the reference, bit for bit,
// before timing and after it. The JavaScript of Cleave's part of each step (the loop's `fill`:
// fromOrtTensor and the split call) is clocked with performance.now in the timed sequences.

import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { createDecodeLoop } from '../../examples/kv-cache-decode/decode-loop.mjs';
import { fetchModel, msg, now, progress, shared } from './context.mjs';
import { readBuffer } from './data.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { openSession } from './systems/ort.mjs';
import { measureAll, summary } from './timing.mjs';
import { resultOf, verify } from './verify.mjs';

/** @import { BenchDecode, DecodeKey, DecodeResult, Runner, Settings, Slot, System } from '../types.js' */
/** @typedef {import('onnxruntime-web').InferenceSession} Session */
/** @typedef {import('onnxruntime-web').Tensor} Tensor */
/** Each step's y [T, H d], the final caches [H, T, d], as bits. @typedef {Record<'y' | 'k' | 'v', Uint32Array>} Bits */
/** Cleave's JavaScript per step, µs, one entry per timed sequence. @typedef {{ sync: number[], call: number[] }} Js */

/**
 * What a loop's systems share: each step's x on the GPU and first slot, each step size's models, the reference.
 * @typedef {object} Loop
 * @property {BenchDecode} p
 * @property {GPUDevice} device
 * @property {Tensor[]} xs
 * @property {number[]} starts
 * @property {Map<number, Record<'a' | 'b' | 'whole', Uint8Array>>} models
 * @property {Bits} ref
 */

const CLEAVE_KEYS = /** @type {const} */ (['cleave-pipeline', 'cleave-encode', 'cleave-capture']);

/** @param {ArrayBufferView} a */
const bitsOf = (a) => new Uint32Array(a.buffer, a.byteOffset, a.byteLength / 4);
/** A float32 tensor's data (from Tensor.getData) as bits. @param {unknown} data */
const floatBits = (data) => bitsOf(/** @type {Float32Array} */ (data));

/** @param {BenchDecode} p @param {Settings} settings @returns {Promise<DecodeResult>} */
export async function runDecode(p, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  progress(`${p.id}: preparing`);
  const loop = await prepare(p, s.device);
  // One session at a time: ORT refuses to create a WebGPU session while it creates another.
  /** @type {Map<DecodeKey, Js>} */
  const js = new Map();
  const systems = [await wholeSystem(loop)];
  for (const key of CLEAVE_KEYS) systems.push(await cleaveSystem(loop, key, js));
  /** @type {Slot<DecodeKey>[]} */
  const slots = [];
  for (const sys of systems) slots.push(await verify(sys, p.id, settings.probes));
  // The checking sequences are not Cleave's cost in a loop: only the timed ones count.
  for (const x of js.values()) [x.sync.length, x.call.length] = [0, 0];
  const minReps = Math.max(settings.minReps, settings.pipelineMinReps);
  const reps = await measureAll(slots, { ...settings, minReps }, p.id, s.timer);
  /** @type {DecodeResult['afterTiming']} */
  const afterTiming = {};
  for (const slot of slots) {
    const failed = slot.failed ? undefined : await slot.sys.run?.check(undefined).catch(msg);
    if (failed) [afterTiming[slot.sys.key], slot.failed, slot.verified] = [failed, `after timing: ${failed}`, false];
  }
  for (const sys of systems) await sys.run?.close?.();
  for (const x of loop.xs) x.dispose();
  await s.device.queue.onSubmittedWorkDone();
  return {
    id: p.id,
    ...outcome(slots, js),
    afterTiming,
    reps,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
    seconds: (now() - t0) / 1000,
  };
}

/** @param {BenchDecode} p @param {GPUDevice} device @returns {Promise<Loop>} */
async function prepare(p, device) {
  const file = (/** @type {string} */ name) => fetchModel(`${p.id}/${name}`);
  const [xBytes, refBytes] = [await file('x.bin'), await file('reference.bin')];
  const models = new Map();
  for (const S of new Set(p.steps))
    models.set(S, { a: await file(`a-${S}.onnx`), b: await file(`b-${S}.onnx`), whole: await file(`whole-${S}.onnx`) });
  const starts = p.steps.map((_, i) => p.steps.slice(0, i).reduce((a, b) => a + b, 0));
  const row = p.width * 4;
  const xs = p.steps.map((S, i) => {
    const buffer = createBuffer(device, { size: S * row, usage: STORAGE, mappedAtCreation: true });
    const at = /** @type {number} */ (starts[i]) * row;
    new Uint8Array(buffer.getMappedRange()).set(xBytes.subarray(at, at + S * row));
    buffer.unmap();
    // A buffer given to fromGpuBuffer is destroyed by dispose() only through `dispose`.
    const dispose = () => buffer.destroy();
    return ort.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims: [1, S, p.width], dispose });
  });
  const all = bitsOf(refBytes);
  const [ny, nc] = [p.tokens * p.heads * p.headDim, p.heads * p.tokens * p.headDim];
  const ref = { y: all.subarray(0, ny), k: all.subarray(ny, ny + nc), v: all.subarray(ny + nc) };
  return { p, device, xs, starts, models, ref };
}

/**
 * Every step's y and the final caches against the reference, bit for bit; the first difference named.
 * @param {Bits} got @param {Loop} loop @returns {string | undefined}
 */
function compareLoop(got, loop) {
  for (const k of /** @type {const} */ (['y', 'k', 'v'])) {
    const [g, r] = [got[k], loop.ref[k]];
    if (g.length !== r.length) return `${k}: ${g.length} values, expected ${r.length}`;
    const first = r.findIndex((u, i) => g[i] !== u);
    if (first < 0) continue;
    const f = (/** @type {Uint32Array} */ u) => new Float32Array(u.buffer, u.byteOffset, u.length)[first];
    const token = Math.floor(first / (k === 'y' ? loop.p.heads * loop.p.headDim : loop.p.headDim)) % loop.p.tokens;
    return `${k}: differs from the reference at token ${token} (value ${first}): ${f(g)} vs ${f(r)}`;
  }
  return undefined;
}

/**
 * Each system's result, each Cleave system's time over the whole graph's batch by batch, and its JavaScript.
 * @param {Slot<DecodeKey>[]} slots @param {Map<DecodeKey, Js>} js
 * @returns {Pick<DecodeResult, 'systems' | 'pairedRatio' | 'jsCost'>}
 */
function outcome(slots, js) {
  const whole = slots[0]?.wall ?? [];
  /** @type {Pick<DecodeResult, 'systems' | 'pairedRatio' | 'jsCost'>} */
  const out = { systems: {}, pairedRatio: {}, jsCost: {} };
  for (const [i, slot] of slots.entries()) {
    const key = slot.sys.key;
    out.systems[key] = resultOf(slot);
    if (i > 0 && slot.wall.length && slot.wall.length === whole.length)
      out.pairedRatio[key] = summary(slot.wall.map((t, j) => t / /** @type {number} */ (whole[j])));
    const [syncUs, callUs] = [summary(js.get(key)?.sync ?? []), summary(js.get(key)?.call ?? [])];
    if (syncUs && callUs) out.jsCost[key] = { syncUs, callUs };
  }
  return out;
}

/**
 * ORT's whole graph: the first step's past K and V are empty host tensors [1, H, 0, d]; each step's present
 * K and V, left on the GPU, are the next step's past. `check` records a sequence of its own.
 * @param {Loop} loop @returns {Promise<System<DecodeKey>>}
 */
async function wholeSystem(loop) {
  const { p, device } = loop;
  const base = { key: /** @type {const} */ ('ort-whole'), gpuTimed: true, outputBytes: 0 };
  /** @type {Map<number, Session>} */
  const sessions = new Map();
  const close = async () => {
    for (const x of sessions.values()) await x.release();
  };
  let webgpuError;
  for (const [S, m] of loop.models) {
    const opened = await openSession(m.whole, { ortDevice: device }, true);
    if (!opened.session) return close().then(() => ({ ...base, error: `S = ${S}: ${opened.error}` }));
    webgpuError ??= opened.webgpuError;
    sessions.set(S, opened.session);
  }
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, p.heads, 0, p.headDim]);
  /** @param {Uint32Array} [ys] */
  const sequence = async (ys) => {
    let [k, v] = /** @type {Tensor[]} */ ([empty, empty]);
    for (const [i, S] of p.steps.entries()) {
      const r = await /** @type {Session} */ (sessions.get(S)).run({ x: loop.xs[i], past_k: k, past_v: v });
      if (i > 0) [k, v].forEach((t) => t.dispose());
      [k, v] = [/** @type {Tensor} */ (r['present_k']), /** @type {Tensor} */ (r['present_v'])];
      const y = /** @type {Tensor} */ (r['y']);
      if (ys) ys.set(floatBits(await y.getData()), /** @type {number} */ (loop.starts[i]) * p.heads * p.headDim);
      y.dispose();
    }
    return { k, v };
  };
  const free = (/** @type {{ k: Tensor, v: Tensor }} */ o) => [o.k, o.v].forEach((t) => t.dispose());
  const check = async () => {
    const y = new Uint32Array(p.tokens * p.heads * p.headDim);
    const o = await sequence(y);
    const [k, v] = [floatBits(await o.k.getData()).slice(), floatBits(await o.v.getData()).slice()];
    free(o);
    return compareLoop({ y, k, v }, loop);
  };
  const sync = () => device.queue.onSubmittedWorkDone();
  /** @type {Runner<{ k: Tensor, v: Tensor }>} */
  const run = { iter: () => sequence(), sync, check, free, close };
  return { ...base, run, webgpuError, fallback: webgpuError ? 'cpu-ep' : undefined };
}

/**
 * The example's loop: 'cleave-pipeline' with engine.split, 'cleave-encode' with encodeSplit into an encoder
 * of its own, 'cleave-capture' with split and B's sessions under ORT's enableGraphCapture. `check` records
 * a sequence of its own; the timed ones add Cleave's JavaScript per step to `js`.
 * @param {Loop} loop @param {(typeof CLEAVE_KEYS)[number]} key @param {Map<DecodeKey, Js>} js
 * @returns {Promise<System<DecodeKey>>}
 */
async function cleaveSystem(loop, key, js) {
  const { p, device } = loop;
  const { engine } = shared();
  const shape = { heads: p.heads, headDim: p.headDim, tokens: p.tokens };
  const [encode, graphCapture] = [key === 'cleave-encode', key === 'cleave-capture'];
  const options = { engine, device, shape, models: loop.models, encode, graphCapture };
  const d = await createDecodeLoop(options).catch((/** @type {unknown} */ e) => msg(e));
  if (typeof d === 'string') return { key, gpuTimed: true, outputBytes: 0, error: `the loop: ${d}` };
  const cost = { sync: /** @type {number[]} */ ([]), call: /** @type {number[]} */ ([]) };
  js.set(key, cost);
  /** @param {Uint32Array} [ys] */
  const sequence = async (ys) => {
    d.reset();
    let [sync, call] = [0, 0];
    for (const [i, S] of p.steps.entries()) {
      const [qkv, t0] = [await d.project(/** @type {Tensor} */ (loop.xs[i])), /** @type {number} */ (loop.starts[i])];
      const c0 = now();
      const filled = d.fill(qkv, t0);
      sync += now() - c0;
      await filled;
      call += now() - c0;
      const y = await d.attend(S);
      if (ys) ys.set(floatBits(await y.getData()), t0 * p.heads * p.headDim);
      y.dispose();
    }
    if (ys) return;
    cost.sync.push((sync * 1000) / p.steps.length);
    cost.call.push((call * 1000) / p.steps.length);
  };
  const read = async (/** @type {GPUBuffer} */ b) => bitsOf(await readBuffer(device, b, 0, b.size));
  const check = async () => {
    const y = new Uint32Array(p.tokens * p.heads * p.headDim);
    await sequence(y);
    return compareLoop({ y, k: await read(d.caches.k), v: await read(d.caches.v) }, loop);
  };
  const [sync, stats] = [() => device.queue.onSubmittedWorkDone(), () => statsOf(engine)];
  /** @type {Runner<void>} */
  const run = { iter: () => sequence(), sync, check, free: () => {}, stats, close: () => d.release() };
  return { key, gpuTimed: true, outputBytes: 0, run };
}
