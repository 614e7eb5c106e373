// Per-call CPU cost: what one engine.split or engine.encodeSplit call costs in
// JavaScript, for a decode-step shape that a token-by-token decoder splits once per layer per
// token. Each variant is one function on one input: aligned (byte 0 of its buffer, each chunk at a
// 256-byte boundary) or unaligned (the same bytes from byte 4: no views, copies or a gather), in
// an engine upload (the engine owns it: a split skips the error scopes) or in a caller's buffer
// (a split runs inside them; the warm-up makes it a buffer the engine has split before, so in this
// steady state the split resolves without waiting for the pops). Every variant is warmed up, then
// verified once (with --probes, its GPU calls counted: error scopes pushed, and whether the call
// waited for their pops), then timed in rounds taken in turn; a round's figure is µs per call.

import { equalParts } from '/dist/cleave.js';
import { msg, now, progress, shared } from './context.mjs';
import { compare, makeHost, readBuffer, referenceSplit } from './data.mjs';
import { countCalls, createBuffer } from './gpu-probe.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { summary } from './timing.mjs';

/** @import { GpuTensor, SplitEngine } from '/dist/cleave.js' */
/** @import { CallCostResult, CallCostRow, CallCostSpec, Settings } from '../types.js' */

/**
 * Calls per chunk: encodeSplit records a chunk into one encoder, submitted outside the clock; after
 * every chunk the GPU work is drained, outside the clock, so no backlog of submits builds up.
 */
const CHUNK = 100;

/**
 * @typedef {object} Variant
 * @property {CallCostRow} row
 * @property {() => Promise<{ outs: GpuTensor[], submit?: () => void }>} once  one call; `submit` (outside the
 *   count) submits its encoder
 * @property {(n: number) => Promise<{ us: number, syncUs?: number }>} round  n calls: µs per call
 * @property {number[]} us
 * @property {number[]} syncUs
 */

/**
 * @param {CallCostSpec} spec @param {Settings} settings
 * @returns {Promise<CallCostResult>}
 */
export async function runCallCost(spec, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  const calls = settings.calls ?? spec.calls;
  const perRound = Math.max(1, Math.round(calls / settings.callRounds));
  const host = makeHost(spec.dtype, spec.shape, 11);
  const input = new Uint8Array(/** @type {Float32Array} */ (host.data).buffer);
  const axis = spec.axis < 0 ? spec.axis + spec.shape.length : spec.axis;
  const ref = referenceSplit(
    input,
    spec.dtype,
    spec.shape,
    axis,
    equalParts(/** @type {number} */ (spec.shape[axis]), spec.parts),
  );
  const x = placeInputs(s.engine, s.device, spec, input);
  const options = { axis: spec.axis, parts: spec.parts };
  const variants = [
    splitVariant(s.engine, x.owned, options, { aligned: true, owner: 'engine' }),
    // The same copies as a caller's aligned buffer gets: the like-for-like engine-owned split.
    splitVariant(s.engine, x.owned, { ...options, alias: 'none' }, { aligned: true, owner: 'engine' }),
    splitVariant(s.engine, x.caller, options, { aligned: true, owner: 'caller' }),
    splitVariant(s.engine, x.ownedAt4, options, { aligned: false, owner: 'engine' }),
    splitVariant(s.engine, x.callerAt4, options, { aligned: false, owner: 'caller' }),
    encodeVariant(s.engine, x.owned, options, { aligned: true, owner: 'engine' }),
    encodeVariant(s.engine, x.callerAt4, options, { aligned: false, owner: 'caller' }),
  ];
  for (const v of variants) {
    progress(`${spec.id}: warm-up and check, ${v.row.fn} ${v.row.owner} ${v.row.aligned ? 'aligned' : 'at byte 4'}`);
    await check(v, ref, Math.min(200, perRound), settings.probes);
  }
  const live = variants.filter((v) => !v.row.error);
  for (let r = 0; r < settings.callRounds; r++) {
    progress(`${spec.id}: round ${r + 1}/${settings.callRounds} of ${perRound} calls per variant`);
    for (let j = 0; j < live.length; j++)
      await timeRound(/** @type {Variant} */ (live[(r + j) % live.length]), perRound);
  }
  x.free();
  for (const v of variants)
    Object.assign(v.row, { calls: v.us.length * perRound, us: summary(v.us), syncUs: summary(v.syncUs) });
  return {
    id: spec.id,
    rows: variants.map((v) => v.row),
    gpuErrors: [...s.errors],
    seconds: (now() - t0) / 1000,
  };
}

/** @param {Variant} v @param {number} n */
async function timeRound(v, n) {
  try {
    const t = await v.round(n);
    v.us.push(t.us);
    if (t.syncUs !== undefined) v.syncUs.push(t.syncUs);
  } catch (e) {
    v.row.error = `timing failed: ${msg(e)}`;
  }
}

/**
 * The input four ways: an engine upload (aligned), an upload one float longer viewed from byte 4,
 * and the same two placements in buffers the caller (the bench) made.
 * @param {SplitEngine} engine @param {GPUDevice} device @param {CallCostSpec} spec @param {Uint8Array} input
 */
function placeInputs(engine, device, spec, input) {
  const n = input.byteLength;
  const tensor = (/** @type {GPUBuffer} */ buffer, /** @type {number} */ byteOffset) =>
    /** @type {GpuTensor} */ ({ dtype: spec.dtype, shape: [...spec.shape], buffer, byteOffset, byteLength: n });
  const callers = [0, 4].map((at) => {
    const b = createBuffer(device, { size: n + at, usage: STORAGE, mappedAtCreation: true });
    new Uint8Array(b.getMappedRange()).set(input, at);
    b.unmap();
    return b;
  });
  const owned = engine.upload({
    dtype: spec.dtype,
    shape: [...spec.shape],
    data: new Float32Array(input.buffer.slice(0)),
  });
  const longer = new Float32Array(n / 4 + 1);
  new Uint8Array(longer.buffer).set(input, 4);
  const upload4 = engine.upload({ dtype: spec.dtype, shape: [n / 4 + 1], data: longer });
  return {
    owned,
    ownedAt4: tensor(upload4.buffer, 4),
    caller: tensor(/** @type {GPUBuffer} */ (callers[0]), 0),
    callerAt4: tensor(/** @type {GPUBuffer} */ (callers[1]), 4),
    free() {
      engine.release(owned);
      engine.release(upload4);
      for (const b of callers) b.destroy();
    },
  };
}

/**
 * @param {Pick<CallCostRow, 'fn' | 'aligned' | 'owner'>} how @param {GpuTensor} x
 * @param {Variant['once']} once @param {Variant['round']} round @returns {Variant}
 */
const variant = (how, x, once, round) => ({
  row: { ...how, byteOffset: x.byteOffset, calls: 0 },
  once,
  round,
  us: [],
  syncUs: [],
});

/**
 * engine.split: each call awaited and its outputs released, on the clock; the GPU work drained every chunk, off it.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {{ axis: number, parts: number, alias?: 'none' }} options
 * @param {{ aligned: boolean, owner: 'engine' | 'caller' }} how @returns {Variant}
 */
function splitVariant(engine, x, options, how) {
  const device = /** @type {GPUDevice} */ (engine.device);
  return variant(
    { fn: 'split', ...how },
    x,
    async () => ({ outs: await engine.split(x, options) }),
    async (n) => {
      let sync = 0;
      const clock = await inChunks(device, n, async (k) => {
        const t0 = now();
        for (let i = 0; i < k; i++) {
          const t = now();
          const pending = engine.split(x, options);
          sync += now() - t;
          for (const o of await pending) engine.release(o);
        }
        return now() - t0;
      });
      return { us: (clock * 1000) / n, syncUs: (sync * 1000) / n };
    },
  );
}

/**
 * engine.encodeSplit: CHUNK calls into one encoder; only the calls are on the clock, the
 * encoder's creation, its submit and the outputs' release are not.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {{ axis: number, parts: number }} options
 * @param {{ aligned: boolean, owner: 'engine' | 'caller' }} how @returns {Variant}
 */
function encodeVariant(engine, x, options, how) {
  const device = /** @type {GPUDevice} */ (engine.device);
  const once = async () => {
    const enc = device.createCommandEncoder();
    return { outs: engine.encodeSplit(enc, x, options), submit: () => device.queue.submit([enc.finish()]) };
  };
  return variant({ fn: 'encodeSplit', ...how }, x, once, async (n) => {
    const clock = await inChunks(device, n, async (k) => {
      const enc = device.createCommandEncoder();
      /** @type {GpuTensor[][]} */
      const outs = [];
      const t = now();
      for (let i = 0; i < k; i++) outs.push(engine.encodeSplit(enc, x, options));
      const ms = now() - t;
      device.queue.submit([enc.finish()]);
      for (const o of outs.flat()) engine.release(o);
      return ms;
    });
    return { us: (clock * 1000) / n };
  });
}

/**
 * n calls in chunks of CHUNK: `chunk(k)` makes k calls and returns the ms they took on the
 * clock; the GPU work is drained after each chunk, off the clock. Returns the ms on the clock.
 * @param {GPUDevice} device @param {number} n @param {(k: number) => Promise<number>} chunk
 */
async function inChunks(device, n, chunk) {
  let clock = 0;
  for (let done = 0; done < n; done += CHUNK) {
    clock += await chunk(Math.min(CHUNK, n - done));
    await device.queue.onSubmittedWorkDone();
  }
  return clock;
}

/**
 * Warms the variant up (the pool then holds its buffers, as in a decoder's steady state), then
 * makes one call (with `count`, its GPU calls counted) and compares its outputs with the reference.
 * @param {Variant} v @param {readonly Uint8Array[]} ref @param {number} warmup @param {boolean} count
 */
async function check(v, ref, warmup, count) {
  const { engine, device } = shared();
  try {
    await v.round(warmup);
    const [{ outs, submit }, calls] = count ? await countCalls(v.once) : [await v.once(), undefined];
    v.row.stats = statsOf(engine);
    v.row.gpuCalls = calls;
    submit?.();
    const got = [];
    for (const t of outs) got.push(await readBuffer(device, t.buffer, t.byteOffset, t.byteLength));
    for (const t of outs) engine.release(t);
    const error = compare(got, ref, `${v.row.fn} ${v.row.owner}`);
    if (error) v.row.error = error;
  } catch (e) {
    v.row.error = `check failed: ${msg(e)}`;
  }
}
