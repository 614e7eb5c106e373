// A decode loop: a decoder step with a KV cache, run for a whole sequence of steps (one timed
// iteration = the sequence), GPU-resident, all on the page's one device.
//   ort-whole        ORT's whole graph the usual ONNX way: x, past K/V in; y, present K/V out (Split,
//                    then Concat of past and new), present fed back as the next step's past.
//   cleave-pipeline  ORT A (x -> qkv, left on the GPU) -> Cleave: engine.split of qkv viewed as
//                    [1, S, 3, H, d] along axis 2, `into` q [1, H, S, d] (a buffer of its own) and slot
//                    t.. of the caches K, V [1, H, T, d] (strided destinations) -> ORT B (attention over
//                    the whole caches). The caches are cleared at the start of each sequence.
//   cleave-encode    the same with engine.encodeSplit recorded into an encoder of its own, submitted at once.
//   cleave-capture   the same as cleave-pipeline, B's sessions created with ORT's enableGraphCapture (its inputs q and the
//                    caches are the same buffers every step; y is ORT's). When ORT refuses, its words
//                    are kept and reported. Probes beside the loop try graph capture on B ending in a
//                    Reshape and on B with y pre-allocated, and say what ORT did.
// Every step's y and the final caches are checked against the reference computed in Node, bit
// for bit, before timing and again after it. The JavaScript cost of Cleave's part of each step
// (fromOrtTensor and engine.split until it resolves, or encodeSplit with its encoder and submit;
// performance.now around them) is recorded in the timed sequences.

import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { fetchModel, msg, now, progress, shared } from './context.mjs';
import { resultOf } from './case.mjs';
import { readBuffer } from './data.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { openSession } from './systems/ort.mjs';
import { measureAll, summary } from './timing.mjs';

/** @import { BenchDecode, DecodeKey, DecodeResult, Settings, Slot, System, SystemResult } from '../types.js' */
/** @typedef {import('onnxruntime-web').InferenceSession} Session */
/** @typedef {import('onnxruntime-web').Tensor} Tensor */

// cleave/ort, the bundle's second entry, typed from its source (tsconfig maps only /dist/cleave.js).
const ORT_HELPERS = '/dist/ort.js';
/** @type {typeof import('../../src/ort.js')} */
const { fromOrtTensor } = await import(ORT_HELPERS);

/**
 * What every system of a loop shares: the loop, each step's x on the GPU and first cache slot, each
 * step size's model bytes, and the reference bits.
 * @typedef {object} Loop
 * @property {BenchDecode} p
 * @property {GPUDevice} device
 * @property {Tensor[]} xs
 * @property {number[]} starts
 * @property {Map<number, { a: Uint8Array, b: Uint8Array, bFlat: Uint8Array, whole: Uint8Array }>} models
 * @property {{ y: Uint32Array, k: Uint32Array, v: Uint32Array }} ref
 */

/** Every step's y ([T, H d]) and the final caches ([H, T, d]), as float32 bits. @typedef {{ y: Uint32Array, k: Uint32Array, v: Uint32Array }} Recorded */

/**
 * A system of a loop: its runner (one iteration: one sequence), a sequence with every step's y read
 * back, what Cleave's calls cost, and ORT's words if it refused graph capture.
 * @typedef {object} DecodeSystem
 * @property {System<DecodeKey>} sys
 * @property {() => Promise<Recorded>} [record]
 * @property {{ sync: number[], call: number[] }} [js]  µs per step, one entry per timed sequence
 * @property {() => string | undefined} [captureError]
 * @property {() => void} [destroy]
 */

/** @param {ArrayBufferView} a */
const bitsOf = (a) => new Uint32Array(a.buffer, a.byteOffset, a.byteLength / 4);

/**
 * @param {BenchDecode} p @param {Settings} settings
 * @returns {Promise<DecodeResult>}
 */
export async function runDecode(p, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  progress(`${p.id}: preparing`);
  const loop = await prepare(p, s.device);
  progress(`${p.id}: creating sessions`);
  // One session at a time: ORT 1.30 refuses to create a WebGPU session while another is being created.
  const systems = [
    await wholeSystem(loop),
    await cleaveSystem(loop, 'split'),
    await cleaveSystem(loop, 'encode'),
    await cleaveSystem(loop, 'capture'),
  ];
  /** @type {Slot<DecodeKey>[]} */
  const slots = [];
  for (const d of systems) slots.push(await verifyLoop(d, loop, 'before timing'));
  // The recorded (checking) sequences are not Cleave's cost in a loop: only the timed ones count.
  for (const d of systems) if (d.js) [d.js.sync.length, d.js.call.length] = [0, 0];
  // As many reps as a pipeline's: a sequence takes long, and the systems differ by little.
  const minReps = Math.max(settings.minReps, settings.pipelineMinReps);
  const reps = await measureAll(slots, { ...settings, minReps }, p.id, s.timer);
  /** @type {Partial<Record<DecodeKey, string | undefined>>} */
  const afterTiming = {};
  for (const [i, d] of systems.entries()) {
    const slot = /** @type {Slot<DecodeKey>} */ (slots[i]);
    if (slot.failed || !d.record) continue;
    afterTiming[d.sys.key] = await checkLoop(d, loop, 'after timing');
    if (afterTiming[d.sys.key]) [slot.failed, slot.verified] = [afterTiming[d.sys.key], false];
  }
  for (const d of systems) {
    await d.sys.run?.close?.();
    d.destroy?.();
  }
  progress(`${p.id}: probing graph capture`);
  const captureProbes = await probeCapture(loop).catch((e) => [`the probe failed: ${msg(e)}`]);
  for (const x of loop.xs) x.dispose();
  await s.device.queue.onSubmittedWorkDone();
  return {
    id: p.id,
    ...outcome(systems, slots),
    afterTiming,
    captureProbes,
    notes: notesOf(p),
    reps,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
    seconds: (now() - t0) / 1000,
  };
}

/** @param {BenchDecode} p @param {GPUDevice} device @returns {Promise<Loop>} */
async function prepare(p, device) {
  const [xBytes, refBytes] = await Promise.all([p.files.x, p.files.ref].map(fetchModel));
  const models = new Map();
  for (const m of p.models) {
    const [a, b, bFlat, whole] = await Promise.all([m.a, m.b, m.bFlat, m.whole].map(fetchModel));
    models.set(m.seq, { a, b, bFlat, whole });
  }
  const hd = p.heads * p.headDim;
  const starts = p.steps.map((_, i) => p.steps.slice(0, i).reduce((a, b) => a + b, 0));
  const rowBytes = p.width * 4;
  const xs = p.steps.map((S, i) => {
    const buffer = createBuffer(device, { size: S * rowBytes, usage: STORAGE, mappedAtCreation: true });
    const at = /** @type {number} */ (starts[i]) * rowBytes;
    new Uint8Array(buffer.getMappedRange()).set(xBytes.subarray(at, at + S * rowBytes));
    buffer.unmap();
    // dispose() destroys a buffer given to fromGpuBuffer only through `dispose`: say so.
    return ort.Tensor.fromGpuBuffer(buffer, {
      dataType: 'float32',
      dims: [1, S, p.width],
      dispose: () => buffer.destroy(),
    });
  });
  const all = bitsOf(refBytes);
  const [ny, nc] = [p.tokens * hd, p.heads * p.tokens * p.headDim];
  const ref = { y: all.subarray(0, ny), k: all.subarray(ny, ny + nc), v: all.subarray(ny + nc, ny + 2 * nc) };
  return { p, device, xs, starts, models, ref };
}

/**
 * Every step's y and the final caches against the reference, bit for bit; the first difference named.
 * @param {Recorded} got @param {Loop} loop @returns {string | undefined}
 */
function compareLoop(got, loop) {
  const hd = loop.p.heads * loop.p.headDim;
  for (const k of /** @type {const} */ (['y', 'k', 'v'])) {
    const [g, r] = [got[k], loop.ref[k]];
    if (g.length !== r.length) return `${k}: ${g.length} values, expected ${r.length}`;
    let differ = 0,
      first = -1;
    for (let i = 0; i < r.length; i++) if (g[i] !== r[i] && differ++ === 0) first = i;
    if (differ === 0) continue;
    const f = (/** @type {Uint32Array} */ u) => new Float32Array(u.buffer, u.byteOffset, u.length)[first];
    const token = Math.floor(first / (k === 'y' ? hd : loop.p.headDim)) % loop.p.tokens;
    let step = 0;
    while (step + 1 < loop.starts.length && /** @type {number} */ (loop.starts[step + 1]) <= token) step++;
    const where = k === 'y' ? `step ${step} (token ${token})` : `the final ${k} cache (slot ${token})`;
    return `${k}: ${differ} of ${r.length} values differ from the reference bit for bit; first in ${where}: ${f(g)} vs ${f(r)}`;
  }
  return undefined;
}

/** One recorded sequence checked; a throw is a failure too. @param {DecodeSystem} d @param {Loop} loop @param {string} when */
async function checkLoop(d, loop, when) {
  if (!d.record) return `${when}: no recorder`;
  progress(`${loop.p.id}: checking ${d.sys.key} ${when}`);
  try {
    const failure = compareLoop(await d.record(), loop);
    return failure && `${when}: ${failure}`;
  } catch (e) {
    return `${when}: ${msg(e)}`;
  }
}

/** @param {DecodeSystem} d @param {Loop} loop @param {string} when @returns {Promise<Slot<DecodeKey>>} */
async function verifyLoop(d, loop, when) {
  const { sys } = d;
  /** @type {Slot<DecodeKey>} */
  const slot = { sys, verified: false, wall: [], gpu: [], failed: sys.error ?? sys.skip };
  if (!sys.run || slot.failed) return slot;
  slot.failed = await checkLoop(d, loop, when);
  slot.verified = !slot.failed;
  slot.stats = sys.run.stats?.();
  return slot;
}

/**
 * Each system's result, each Cleave system's time over the whole graph's batch by batch, its
 * JavaScript cost per step, and ORT's words if it refused graph capture.
 * @param {DecodeSystem[]} systems @param {Slot<DecodeKey>[]} slots
 * @returns {Pick<DecodeResult, 'systems' | 'pairedRatio' | 'jsCost' | 'captureError'>}
 */
function outcome(systems, slots) {
  /** @type {Partial<Record<DecodeKey, SystemResult>>} */
  const results = {};
  for (const slot of slots) results[slot.sys.key] = resultOf(slot);
  const whole = slots.find((x) => x.sys.key === 'ort-whole')?.wall ?? [];
  /** @type {DecodeResult['pairedRatio']} */
  const pairedRatio = {};
  /** @type {DecodeResult['jsCost']} */
  const jsCost = {};
  for (const [i, d] of systems.entries()) {
    const wall = /** @type {Slot<DecodeKey>} */ (slots[i]).wall;
    if (d.sys.key !== 'ort-whole' && wall.length && wall.length === whole.length)
      pairedRatio[d.sys.key] = summary(wall.map((t, j) => t / /** @type {number} */ (whole[j])));
    const [syncUs, callUs] = [summary(d.js?.sync ?? []), summary(d.js?.call ?? [])];
    if (syncUs && callUs) jsCost[d.sys.key] = { syncUs, callUs };
  }
  return {
    systems: results,
    pairedRatio,
    jsCost,
    captureError: systems.map((d) => d.captureError?.()).find(Boolean),
  };
}

/** @param {BenchDecode} p */
function notesOf(p) {
  const H = p.heads,
    d = p.headDim,
    T = p.tokens;
  return [
    `one timed iteration is the whole sequence of ${p.steps.length} step(s) (${p.steps.length > 1 && p.prefill ? `one of ${p.prefill} tokens, then ${p.decodeSteps} of one token` : `${p.prefill || 1} token(s) each`}); per-step times are its time over ${p.steps.length}`,
    `Cleave: engine.split(qkv viewed as [1, S, 3, ${H}, ${d}], { axis: 2, sizes: [1, 1, 1], into }): q into [1, ${H}, S, ${d}], K and V into slot t.. of caches [1, ${H}, ${T}, ${d}] (strides [${H * T * d}, ${d}, 0, ${T * d}, 1]); the caches are cleared (clearBuffer) at the start of each sequence, inside the clock`,
    `B reads q and the caches from the same buffers every step and returns y [1, S, ${H}, ${d}] (the whole graph's y [1, S, ${H * d}]: the same bytes); with graph capture too, y is left to ORT (a pre-allocated y is what the second probe tries)`,
    `every step's y and the final caches checked against the reference (doubles, in Node) bit for bit, before timing and after it; largest sum of |terms| of any dot product ${p.maxTermSum} (< 2^24: float32 exact)`,
  ];
}

/**
 * ORT's whole graph, the usual ONNX way: the first step's past K/V are empty host tensors
 * [1, H, 0, d]; each step's present K/V (on the GPU) are the next step's past.
 * @param {Loop} loop @returns {Promise<DecodeSystem>}
 */
async function wholeSystem(loop) {
  const { p, device } = loop;
  const sessions = await openAll(loop, 'whole', false);
  if (typeof sessions === 'string')
    return { sys: { key: 'ort-whole', gpuTimed: true, outputBytes: 0, error: sessions } };
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, p.heads, 0, p.headDim]);
  const hd = p.heads * p.headDim;
  /** @param {Uint32Array | undefined} ys */
  const sequence = async (ys) => {
    /** @type {[Tensor, Tensor]} */
    let [k, v] = [empty, empty];
    for (const [i, S] of p.steps.entries()) {
      const x = /** @type {Tensor} */ (loop.xs[i]);
      const r = await sessionFor(sessions.map, S).run({ x, past_k: k, past_v: v });
      if (i > 0) [k, v].forEach((t) => t.dispose());
      [k, v] = [/** @type {Tensor} */ (r['present_k']), /** @type {Tensor} */ (r['present_v'])];
      const y = /** @type {Tensor} */ (r['y']);
      if (ys)
        ys.set(bitsOf(/** @type {Float32Array} */ (await y.getData())), /** @type {number} */ (loop.starts[i]) * hd);
      y.dispose();
    }
    return { k, v };
  };
  /** @type {import('../types.js').Runner<{ k: Tensor, v: Tensor }>} */
  const run = {
    iter: () => sequence(undefined),
    sync: () => device.queue.onSubmittedWorkDone(),
    check: async () => undefined,
    free: (o) => [o.k, o.v].forEach((t) => t.dispose()),
    close: sessions.close,
  };
  return {
    sys: { key: 'ort-whole', gpuTimed: true, outputBytes: 0, run, webgpuError: sessions.webgpuError },
    async record() {
      const y = new Uint32Array(p.tokens * hd);
      const o = await sequence(y);
      const [k, v] = [await o.k.getData(), await o.v.getData()].map((a) =>
        bitsOf(/** @type {Float32Array} */ (a)).slice(),
      );
      run.free(o);
      return { y, k: /** @type {Uint32Array} */ (k), v: /** @type {Uint32Array} */ (v) };
    },
  };
}

/** @param {Map<number, Session>} map @param {number} S */
function sessionFor(map, S) {
  const s = map.get(S);
  if (!s) throw new Error(`no session for S = ${S}`);
  return s;
}

/**
 * Opens one session per step size of model `which`, one at a time; a string: why not.
 * @param {Loop} loop @param {'a' | 'b' | 'whole'} which @param {boolean} capture  enableGraphCapture
 * @returns {Promise<string | { map: Map<number, Session>, close: () => Promise<void>, webgpuError?: string | undefined }>}
 */
async function openAll(loop, which, capture) {
  /** @type {Map<number, Session>} */
  const map = new Map();
  const close = async () => {
    for (const x of map.values()) await x.release();
  };
  let webgpuError;
  for (const [S, m] of loop.models) {
    const opened = capture
      ? await openCaptured(m[which], loop.device)
      : await openSession(m[which], { ortDevice: loop.device }, true);
    if (!opened.session) {
      await close();
      return `${which} (S = ${S}): ${opened.error}`;
    }
    webgpuError ??= opened.webgpuError;
    map.set(S, opened.session);
  }
  return { map, close, webgpuError };
}

/**
 * A session with enableGraphCapture on the loop's device (no CPU EP fallback: graph capture needs
 * every node on WebGPU); ORT's own words when it refuses.
 * @param {Uint8Array} model @param {GPUDevice} device
 * @returns {Promise<{ session: Session, webgpuError?: undefined } | { session?: undefined, error: string, webgpuError?: undefined }>}
 */
async function openCaptured(model, device) {
  try {
    return {
      session: await ort.InferenceSession.create(model, {
        executionProviders: [{ name: 'webgpu', device }],
        preferredOutputLocation: 'gpu-buffer',
        enableGraphCapture: true,
        extra: { session: { disable_cpu_ep_fallback: '1' } },
      }),
    };
  } catch (e) {
    return { error: `InferenceSession.create with enableGraphCapture failed: ${msg(e)}` };
  }
}

/**
 * Where Cleave writes one of q, K, V of a step of S tokens at slot t0 of a buffer of L slots laid
 * out [1, H, L, d]: the split's output [1, S, 1, H, d] as a strided view (the size-1 dims' strides
 * are ignored).
 * @param {BenchDecode} p @param {GPUBuffer} buffer @param {number} L @param {number} t0 @param {number} S
 */
function destination(p, buffer, L, t0, S) {
  const { heads: H, headDim: d } = p;
  return {
    dtype: /** @type {const} */ ('float32'),
    shape: [1, S, 1, H, d],
    buffer,
    byteOffset: t0 * d * 4,
    strides: [H * L * d, d, 0, L * d, 1],
  };
}

/**
 * ORT A -> Cleave (into q and the caches) -> ORT B: 'split' awaits engine.split; 'encode' records
 * engine.encodeSplit into an encoder of its own and submits it; 'capture' is 'split' with B's
 * sessions under graph capture.
 * @param {Loop} loop @param {'split' | 'encode' | 'capture'} mode @returns {Promise<DecodeSystem>}
 */
async function cleaveSystem(loop, mode) {
  const { p, device } = loop;
  const { engine } = shared();
  const capture = mode === 'capture';
  /** @type {DecodeKey} */
  const key = capture ? 'cleave-capture' : mode === 'encode' ? 'cleave-encode' : 'cleave-pipeline';
  /** @type {string | undefined} */
  let captureError;
  const a = await openAll(loop, 'a', false);
  const b = typeof a === 'string' ? 'not tried' : await openAll(loop, 'b', capture);
  if (typeof a === 'string' || typeof b === 'string') {
    if (typeof a !== 'string') await a.close();
    if (capture && typeof b === 'string') captureError = b;
    const error = typeof a === 'string' ? `A: ${a}` : `B: ${b}`;
    return { sys: { key, gpuTimed: true, outputBytes: 0, error }, captureError: () => captureError };
  }
  const { heads: H, headDim: d, tokens: T } = p;
  const hd = H * d;
  /** @type {GPUBuffer[]} */
  const owned = [];
  /** @param {number} bytes */
  const buffer = (bytes) => {
    const x = createBuffer(device, { size: bytes, usage: STORAGE });
    owned.push(x);
    return x;
  };
  const [kCache, vCache] = [buffer(H * T * d * 4), buffer(H * T * d * 4)];
  const tensorOf = (/** @type {GPUBuffer} */ x, /** @type {number[]} */ dims) =>
    ort.Tensor.fromGpuBuffer(x, { dataType: 'float32', dims });
  const caches = { k_cache: tensorOf(kCache, [1, H, T, d]), v_cache: tensorOf(vCache, [1, H, T, d]) };
  const per = new Map(
    [...loop.models.keys()].map((S) => {
      const q = buffer(H * S * d * 4);
      return [S, { q, feeds: { q: tensorOf(q, [1, H, S, d]), ...caches } }];
    }),
  );
  const js = { sync: /** @type {number[]} */ ([]), call: /** @type {number[]} */ ([]) };

  /** One step: A, Cleave's split into q and the caches (timed in JS), B. @param {number} i @param {{ sync: number, call: number }} cost */
  const step = async (i, cost) => {
    const S = /** @type {number} */ (p.steps[i]);
    const t0 = /** @type {number} */ (loop.starts[i]);
    const e = /** @type {NonNullable<ReturnType<typeof per.get>>} */ (per.get(S));
    const qkv = /** @type {Tensor} */ (
      (await sessionFor(a.map, S).run({ x: /** @type {Tensor} */ (loop.xs[i]) }))['qkv']
    );
    const c0 = now();
    const t = fromOrtTensor(qkv);
    /** @type {import('/dist/cleave.js').GpuTensor<'float32'>} */
    const x = {
      dtype: 'float32',
      shape: [1, S, 3, H, d],
      buffer: t.buffer,
      byteOffset: t.byteOffset,
      byteLength: t.byteLength,
    };
    const into = [destination(p, e.q, S, 0, S), destination(p, kCache, T, t0, S), destination(p, vCache, T, t0, S)];
    const options = { axis: 2, sizes: [1, 1, 1], into };
    const cA = now();
    if (mode === 'encode') {
      // Cleave's part is fromOrtTensor and encodeSplit; the encoder is the caller's, made and submitted off the clock.
      const encoder = device.createCommandEncoder();
      const c0e = now();
      engine.encodeSplit(encoder, x, options);
      const c1 = now();
      device.queue.submit([encoder.finish()]);
      cost.sync += c1 - c0e + (cA - c0);
      cost.call += c1 - c0e + (cA - c0);
    } else {
      const pending = engine.split(x, options);
      const c1 = now();
      await pending;
      const c2 = now();
      cost.sync += c1 - c0;
      cost.call += c2 - c0;
    }
    qkv.dispose();
    const bs = sessionFor(b.map, S);
    try {
      return /** @type {Tensor} */ ((await bs.run(e.feeds))['y']);
    } catch (err) {
      if (capture) captureError ??= `session.run with enableGraphCapture failed: ${msg(err)}`;
      throw err;
    }
  };

  /** @param {Uint32Array | undefined} ys */
  const sequence = async (ys) => {
    const enc = device.createCommandEncoder();
    enc.clearBuffer(kCache);
    enc.clearBuffer(vCache);
    device.queue.submit([enc.finish()]);
    const cost = { sync: 0, call: 0 };
    for (let i = 0; i < p.steps.length; i++) {
      const y = await step(i, cost);
      if (ys)
        ys.set(bitsOf(/** @type {Float32Array} */ (await y.getData())), /** @type {number} */ (loop.starts[i]) * hd);
      y.dispose();
    }
    if (!ys) {
      js.sync.push((cost.sync * 1000) / p.steps.length);
      js.call.push((cost.call * 1000) / p.steps.length);
    }
    return 0;
  };
  /** @type {import('../types.js').Runner<number>} */
  const run = {
    iter: () => sequence(undefined),
    sync: () => device.queue.onSubmittedWorkDone(),
    check: async () => undefined,
    free: () => {},
    stats: () => statsOf(engine),
    close: async () => {
      await a.close();
      await b.close();
    },
  };
  const webgpuError =
    [a.webgpuError && `A: ${a.webgpuError}`, b.webgpuError && `B: ${b.webgpuError}`].filter(Boolean).join('; ') ||
    undefined;
  return {
    sys: { key, gpuTimed: true, outputBytes: 0, run, webgpuError, fallback: webgpuError ? 'cpu-ep' : undefined },
    js,
    captureError: () => captureError,
    destroy: () => owned.forEach((x) => x.destroy()),
    async record() {
      const y = new Uint32Array(T * hd);
      await sequence(y);
      const read = async (/** @type {GPUBuffer} */ c) => bitsOf(await readBuffer(device, c, 0, H * T * d * 4));
      return { y, k: await read(kCache), v: await read(vCache) };
    },
  };
}

/**
 * What ORT Web does with graph capture beyond the B the loop times, seen in this run, on the
 * largest step: B ending in the whole graph's Reshape (y [1, S, H d]), and B with y pre-allocated
 * (fetches). Each: a captured session against a plain one, on the same small-integer inputs, run three
 * times; a sentence each.
 * @param {Loop} loop @returns {Promise<string[]>}
 */
async function probeCapture(loop) {
  const { p, device } = loop;
  const { heads: H, headDim: d, tokens: T } = p;
  const S = Math.max(...loop.models.keys());
  const m = /** @type {NonNullable<ReturnType<typeof loop.models.get>>} */ (loop.models.get(S));
  /** @type {GPUBuffer[]} */
  const owned = [];
  /** @param {number} n @param {number} seed */
  const filled = (n, seed) => {
    const b = createBuffer(device, { size: n * 4, usage: STORAGE, mappedAtCreation: true });
    const f = new Float32Array(b.getMappedRange());
    for (let i = 0, s = seed; i < n; i++) f[i] = (((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 8) % 3) - 1;
    b.unmap();
    owned.push(b);
    return b;
  };
  const tensorOf = (/** @type {GPUBuffer} */ x, /** @type {number[]} */ dims) =>
    ort.Tensor.fromGpuBuffer(x, { dataType: 'float32', dims });
  const feeds = {
    q: tensorOf(filled(H * S * d, 1), [1, H, S, d]),
    k_cache: tensorOf(filled(H * T * d, 2), [1, H, T, d]),
    v_cache: tensorOf(filled(H * T * d, 3), [1, H, T, d]),
  };
  const yBuffer = filled(S * H * d, 4);
  try {
    return [
      await probeOne(`B ending in Transpose -> Reshape (y [1, ${S}, ${H * d}])`, m.bFlat, feeds, undefined, device),
      await probeOne(
        `B with y pre-allocated (fetches, y [1, ${S}, ${H}, ${d}])`,
        m.b,
        feeds,
        tensorOf(yBuffer, [1, S, H, d]),
        device,
      ),
    ].map((x) => `graph capture probe, S = ${S}: ${x}`);
  } finally {
    owned.forEach((b) => b.destroy());
  }
}

/**
 * One probe: the plain session's y, then the captured session's, three runs, each after a run of the
 * plain session (as the loop runs A between B's runs); ORT's words where it throws.
 * @param {string} label @param {Uint8Array} model @param {Record<string, Tensor>} feeds @param {Tensor | undefined} y  pre-allocated
 * @param {GPUDevice} device
 */
async function probeOne(label, model, feeds, y, device) {
  const plain = await openSession(model, { ortDevice: device }, true);
  if (!plain.session) return `${label}: the plain session failed: ${plain.error}`;
  const out = /** @type {Tensor} */ ((await plain.session.run(feeds))['y']);
  const ref = bitsOf(/** @type {Float32Array} */ (await out.getData())).slice();
  out.dispose();
  const captured = await openCaptured(model, device);
  if (!captured.session) {
    await plain.session.release();
    return `${label}: ORT refused: ${captured.error}`;
  }
  const runs = [];
  try {
    for (let r = 1; r <= 3; r++) {
      let got;
      try {
        /** @type {Tensor} */ ((await plain.session.run(feeds))['y']).dispose();
        const t = /** @type {Tensor} */ (
          (y ? await captured.session.run(feeds, { y }) : await captured.session.run(feeds))['y']
        );
        got = y
          ? bitsOf(await readBuffer(device, y.gpuBuffer, 0, ref.length * 4))
          : bitsOf(/** @type {Float32Array} */ (await t.getData()));
        if (!y) t.dispose();
      } catch (e) {
        runs.push(`run ${r} threw: ${msg(e)}`);
        break;
      }
      const differ = ref.reduce((n, u, i) => n + (u === got[i] ? 0 : 1), 0);
      runs.push(
        `run ${r} ${differ ? `differs from the plain session's y in ${differ} of ${ref.length} values` : "gives the plain session's y bit for bit"}`,
      );
    }
  } finally {
    await captured.session.release();
    await plain.session.release();
  }
  return `${label}: ${runs.join('; ')}`;
}
