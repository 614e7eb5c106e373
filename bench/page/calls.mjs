// Per-call cost: what one engine.split or engine.encodeSplit call costs in JavaScript and WebGPU calls, for a
// decode-step shape that a token-by-token decoder splits once per layer per token, against the bare calls the
// same copies need: one encoder, a copyBufferToBuffer per copy (the split's own sizes and offsets, into buffers
// of the split's sizes), finish and submit. Each variant is one function on one input: aligned (byte 0 of its
// buffer) or at byte 4, in an engine upload (the engine owns it: a split skips the error scopes) or in a
// caller's buffer (a split runs inside them; the warm-up makes it a buffer the engine has split before, so in
// this steady state the split resolves without waiting for the pops). Every variant is warmed up, then
// verified once (with --probes, its GPU calls counted), then timed: each round calls every variant
// `callsInARow` times in a row, timed as a whole (the release of the outputs included), the GPU drained off
// the clock, the variants in an order shuffled each round. A variant's figure for a round is µs per call, and
// its ratio over the bare calls' µs in the same round: on a shared machine only those ratios travel.

import { equalParts } from '/dist/cleave.js';
import { msg, now, progress, shared } from './context.mjs';
import { compare, makeHost, readTensors, referenceSplit } from './data.mjs';
import { countCalls, createBuffer } from './gpu-probe.mjs';
import { xorshift32 } from './random.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { shuffled, summary } from './timing.mjs';

/** @import { GpuTensor, SplitEngine } from '/dist/cleave.js' */
/** @import { CallCostResult, CallCostRow, CallCostSpec, Settings } from '../types.js' */

/** @typedef {{ buffer: GPUBuffer, byteOffset: number, byteLength: number }} Placed */
/** @typedef {{ axis: number, parts: number, alias?: 'none' }} Options */

/**
 * @typedef {object} Variant
 * @property {CallCostRow} row
 * @property {() => Promise<{ outs: Placed[], release: () => void }>} once  one call, as timed (submit included)
 * @property {(n: number) => Promise<number>} block  n calls in a row: the ms they took on the clock
 * @property {(number | undefined)[]} us  µs per call, by round (undefined: the round failed)
 */

/**
 * @param {CallCostSpec} spec @param {Settings} settings
 * @returns {Promise<CallCostResult>}
 */
export async function runCallCost(spec, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  const n = spec.callsInARow;
  const host = makeHost(spec.dtype, spec.shape, 11);
  const input = new Uint8Array(/** @type {Float32Array} */ (host.data).buffer);
  const axis = spec.axis < 0 ? spec.axis + spec.shape.length : spec.axis;
  const sizes = equalParts(/** @type {number} */ (spec.shape[axis]), spec.parts);
  const ref = referenceSplit(input, spec.dtype, spec.shape, axis, sizes);
  const x = placeInputs(s.engine, s.device, spec, input);
  const variants = await variantsOf(s.engine, x, spec, axis);
  for (const v of variants) {
    progress(`${spec.id}: warm-up and check, ${v.row.label}`);
    await check(v, ref, 2 * n, settings.probes);
  }
  const live = variants.filter((v) => !v.row.error);
  const next = xorshift32(settings.callRounds);
  for (let r = 0; r < settings.callRounds; r++) {
    progress(`${spec.id}: round ${r + 1}/${settings.callRounds}, ${n} calls in a row per variant`);
    for (const v of shuffled(live, next)) v.us[r] = await timeBlock(v, n);
  }
  x.free();
  const bare = /** @type {Variant} */ (variants[0]).us;
  for (const v of variants) {
    const ratios = v.us.map((us, r) =>
      us === undefined || !bare[r] ? undefined : us / /** @type {number} */ (bare[r]),
    );
    const timed = v.us.filter((us) => us !== undefined).length;
    Object.assign(v.row, { calls: timed * n, us: summary(v.us) });
    if (v.row.fn !== 'bare') v.row.overBare = summary(ratios);
  }
  return { id: spec.id, rows: variants.map((v) => v.row), gpuErrors: [...s.errors], seconds: (now() - t0) / 1000 };
}

/**
 * The variants, the bare calls first: [function, id, label, input, alias 'none']. The bare calls copy what a
 * split of the engine upload with copies copies, read from one such split's outputs.
 * @type {readonly ['split' | 'encodeSplit', string, string, 'owned' | 'caller' | 'ownedAt4' | 'callerAt4', boolean][]}
 */
const VARIANTS = [
  ['split', 'split-upload-copies', "split of an engine upload, alias 'none'", 'owned', true],
  ['split', 'split-caller-seen', "split of a caller's buffer the engine has seen", 'caller', false],
  ['encodeSplit', 'encode-upload', 'encodeSplit of an engine upload + encoder, finish, submit', 'owned', false],
  ['split', 'split-upload-views', 'split of an engine upload into views (no GPU work)', 'owned', false],
  ['split', 'split-upload-at4', 'split of an engine upload at byte 4', 'ownedAt4', false],
  ['split', 'split-caller-at4', "split of a caller's buffer at byte 4", 'callerAt4', false],
  [
    'encodeSplit',
    'encode-caller-at4',
    "encodeSplit of a caller's buffer at byte 4 + encoder, finish, submit",
    'callerAt4',
    false,
  ],
];

/**
 * @param {SplitEngine} engine @param {ReturnType<typeof placeInputs>} x @param {CallCostSpec} spec
 * @param {number} axis @returns {Promise<Variant[]>}
 */
async function variantsOf(engine, x, spec, axis) {
  const options = { axis: spec.axis, parts: spec.parts };
  /** @type {Options} */
  const copies = { ...options, alias: 'none' };
  const bare = await bareVariant(engine, x.owned, copies, spec.shape.slice(0, axis));
  return [
    bare,
    ...VARIANTS.map(([fn, id, label, at, none]) => {
      /** @type {Pick<CallCostRow, 'aligned' | 'owner'>} */
      const input = { aligned: !at.endsWith('At4'), owner: at.startsWith('owned') ? 'engine' : 'caller' };
      const make = fn === 'split' ? splitVariant : encodeVariant;
      return make(engine, x[at], none ? copies : options, input, id, label);
    }),
  ];
}

/**
 * One round of a variant: µs per call, undefined (and the row's error set) when it failed.
 * @param {Variant} v @param {number} n
 */
async function timeBlock(v, n) {
  try {
    return ((await v.block(n)) * 1000) / n;
  } catch (e) {
    v.row.error = `timing failed: ${msg(e)}`;
    return undefined;
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
 * @param {Pick<CallCostRow, 'fn' | 'variant' | 'label' | 'aligned' | 'owner'>} how @param {GpuTensor} x
 * @param {Variant['once']} once @param {Variant['block']} block @returns {Variant}
 */
const variant = (how, x, once, block) => ({ row: { ...how, byteOffset: x.byteOffset, calls: 0 }, once, block, us: [] });

/**
 * `calls(n)` on the clock (n calls in a row; a promise when they are awaited), then the GPU drained off it;
 * returns the ms on the clock.
 * @param {GPUDevice} device @param {(n: number) => Promise<void> | void} calls
 */
const inARow = (device, calls) => async (/** @type {number} */ n) => {
  const t0 = now();
  const pending = calls(n);
  if (pending) await pending;
  const ms = now() - t0;
  await device.queue.onSubmittedWorkDone();
  return ms;
};

/** n synchronous calls of `call` in a row. @param {() => void} call */
const repeat = (call) => (/** @type {number} */ n) => {
  for (let i = 0; i < n; i++) call();
};

/**
 * engine.split: the call, awaited, its outputs released.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {Options} options
 * @param {Pick<CallCostRow, 'aligned' | 'owner'>} input @param {string} id @param {string} label @returns {Variant}
 */
function splitVariant(engine, x, options, input, id, label) {
  const device = /** @type {GPUDevice} */ (engine.device);
  const once = async () => {
    const outs = await engine.split(x, options);
    return { outs, release: () => outs.forEach((t) => engine.release(t)) };
  };
  // The calls awaited in the loop itself: a caller's one await per split, and no promise of the bench's own.
  const calls = async (/** @type {number} */ n) => {
    for (let i = 0; i < n; i++) for (const t of await engine.split(x, options)) engine.release(t);
  };
  return variant({ fn: 'split', variant: id, label, ...input }, x, once, inARow(device, calls));
}

/**
 * engine.encodeSplit with what it needs around it, as the bare calls have it: a new encoder, the call, finish
 * and submit, the outputs released.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {Options} options
 * @param {Pick<CallCostRow, 'aligned' | 'owner'>} input @param {string} id @param {string} label @returns {Variant}
 */
function encodeVariant(engine, x, options, input, id, label) {
  const device = /** @type {GPUDevice} */ (engine.device);
  const encode = () => {
    const enc = device.createCommandEncoder();
    const outs = engine.encodeSplit(enc, x, options);
    device.queue.submit([enc.finish()]);
    return outs;
  };
  const once = async () => {
    const outs = encode();
    return { outs, release: () => outs.forEach((t) => engine.release(t)) };
  };
  const call = () => {
    for (const t of encode()) engine.release(t);
  };
  return variant({ fn: 'encodeSplit', variant: id, label, ...input }, x, once, inARow(device, repeat(call)));
}

/**
 * The bare calls: one encoder, one copyBufferToBuffer per output of a split of `x` with copies (from the
 * input's chunk to the output's place, in buffers of the output buffers' sizes), finish, submit.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {Options} options @param {readonly number[]} outer
 * @returns {Promise<Variant>}
 */
async function bareVariant(engine, x, options, outer) {
  const device = /** @type {GPUDevice} */ (engine.device);
  const how = /** @type {const} */ ({ fn: 'bare', variant: 'bare', aligned: true, owner: 'engine' });
  const failed = (/** @type {string} */ why) => {
    const v = variant(
      { ...how, label: 'bare calls' },
      x,
      () => Promise.reject(new Error(why)),
      () => Promise.reject(new Error(why)),
    );
    v.row.error = why;
    return v;
  };
  if (outer.some((d) => d !== 1)) return failed('the bare calls need one chunk per output: dims before the axis 1');
  let outs;
  try {
    outs = await engine.split(x, options);
  } catch (e) {
    return failed(`the split they copy after failed: ${msg(e)}`);
  }
  /** @type {Map<GPUBuffer, GPUBuffer>} */
  const twin = new Map(outs.map((t) => [t.buffer, createBuffer(device, { size: t.buffer.size, usage: STORAGE })]));
  let at = x.byteOffset;
  const copies = outs.map((t) => {
    const c = { from: at, to: /** @type {GPUBuffer} */ (twin.get(t.buffer)), offset: t.byteOffset, size: t.byteLength };
    at += t.byteLength;
    return c;
  });
  for (const t of outs) engine.release(t);
  const call = () => {
    const enc = device.createCommandEncoder();
    for (const c of copies) enc.copyBufferToBuffer(x.buffer, c.from, c.to, c.offset, c.size);
    device.queue.submit([enc.finish()]);
  };
  const once = async () => {
    call();
    return { outs: copies.map((c) => ({ buffer: c.to, byteOffset: c.offset, byteLength: c.size })), release() {} };
  };
  const label = `bare calls: 1 encoder, ${copies.length} copyBufferToBuffer, finish, submit`;
  return variant({ ...how, label }, x, once, inARow(device, repeat(call)));
}

/**
 * Warms the variant up (the pool then holds its buffers, as in a decoder's steady state), then makes one
 * call (with `count`, its GPU calls counted) and compares its outputs with the reference.
 * @param {Variant} v @param {readonly Uint8Array[]} ref @param {number} warmup @param {boolean} count
 */
async function check(v, ref, warmup, count) {
  const { engine, device } = shared();
  if (v.row.error) return;
  try {
    await v.block(warmup);
    const [{ outs, release }, calls] = count ? await countCalls(v.once) : [await v.once(), undefined];
    if (v.row.fn !== 'bare') v.row.stats = statsOf(engine);
    v.row.gpuCalls = calls;
    const got = await readTensors(device, outs);
    release();
    const error = compare(got, ref, v.row.label);
    if (error) v.row.error = error;
  } catch (e) {
    v.row.error = `check failed: ${msg(e)}`;
  }
}
