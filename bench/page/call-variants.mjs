// The per-call section's variants (calls.mjs times them), each as a caller writes it: one call, and `n` calls in a
// row on the clock with the GPU drained off it. engine.split; engine.encodeSplit with its encoder and submit; a
// prepared split (engine.prepare: its split, and its encode into the caller's own buffers), n/a on an engine that
// has no prepare. The bare calls and their error scopes are bare-calls.mjs's. Runs in the page and in Node alike
// (bench/node/calls.mjs): nothing here reads the page's shared state.

import { msg, now } from './log.mjs';

/** @import { GpuTensor, SplitEngine } from '/dist/cleave.js' */
/** @import { CallCostRow } from '../types.js' */

/** @typedef {{ buffer: GPUBuffer, byteOffset: number, byteLength: number }} Placed */
/** @typedef {Pick<CallCostRow, 'fn' | 'variant' | 'label' | 'aligned' | 'owner'>} How */

/**
 * @typedef {object} Variant
 * @property {CallCostRow} row
 * @property {() => Promise<{ outs: Placed[], release: () => void }>} once  one call, as timed (submit included)
 * @property {(n: number) => Promise<number>} block  n calls in a row: the ms they took on the clock
 * @property {(number | undefined)[]} us  µs per call, by round (undefined: the round failed)
 */

/**
 * A prepared split, as engine.prepare returns it.
 * @typedef {object} PreparedSplit
 * @property {(x: GpuTensor, into?: readonly unknown[]) => Promise<GpuTensor[]>} split
 * @property {(encoder: GPUCommandEncoder, x: GpuTensor, into?: readonly unknown[]) => GpuTensor[]} encode
 */

/**
 * @param {How} how @param {GpuTensor} x @param {Variant['once']} once @param {Variant['block']} block
 * @returns {Variant}
 */
export const variant = (how, x, once, block) => ({
  row: { ...how, byteOffset: x.byteOffset, calls: 0 },
  once,
  block,
  us: [],
});

/**
 * A variant that does not run: an error (it failed before the clock) or, with `skip`, n/a (it cannot run here).
 * @param {How} how @param {GpuTensor} x @param {string} why @param {boolean} [skip]
 */
export function unavailable(how, x, why, skip = false) {
  const no = () => Promise.reject(new Error(why));
  const v = variant(how, x, no, no);
  if (skip) v.row.skip = why;
  else v.row.error = why;
  return v;
}

/**
 * `calls(n)` on the clock (n calls in a row; a promise when they are awaited), then the GPU drained off it;
 * returns the ms on the clock.
 * @param {GPUDevice} device @param {(n: number) => Promise<void> | void} calls
 */
export const inARow = (device, calls) => async (/** @type {number} */ n) => {
  const t0 = now();
  const pending = calls(n);
  if (pending) await pending;
  const ms = now() - t0;
  await device.queue.onSubmittedWorkDone();
  return ms;
};

/** n synchronous calls of `call` in a row. @param {() => void} call */
export const repeat = (call) => (/** @type {number} */ n) => {
  for (let i = 0; i < n; i++) call();
};

/**
 * A split: the call, awaited, its outputs released.
 * @param {SplitEngine} engine @param {How} how @param {GpuTensor} x @param {() => Promise<GpuTensor[]>} split
 * @returns {Variant}
 */
export function splitVariant(engine, how, x, split) {
  const once = async () => {
    const outs = await split();
    return { outs, release: () => outs.forEach((t) => engine.release(t)) };
  };
  // The calls awaited in the loop itself: a caller's one await per split, and no promise of the bench's own.
  const calls = async (/** @type {number} */ n) => {
    for (let i = 0; i < n; i++) for (const t of await split()) engine.release(t);
  };
  return variant(how, x, once, inARow(/** @type {GPUDevice} */ (engine.device), calls));
}

/**
 * An encode with what it needs around it, as the bare calls have it: a new encoder, the call, finish and submit,
 * the outputs released. `check` refuses outputs that are not where they should be.
 * @param {SplitEngine} engine @param {How} how @param {GpuTensor} x
 * @param {(encoder: GPUCommandEncoder) => GpuTensor[]} record @param {(outs: GpuTensor[]) => void} [check]
 * @returns {Variant}
 */
export function encodeVariant(engine, how, x, record, check) {
  const device = /** @type {GPUDevice} */ (engine.device);
  const encode = () => {
    const enc = device.createCommandEncoder();
    const outs = record(enc);
    device.queue.submit([enc.finish()]);
    return outs;
  };
  const once = async () => {
    const outs = encode();
    check?.(outs);
    return { outs, release: () => outs.forEach((t) => engine.release(t)) };
  };
  const call = () => {
    for (const t of encode()) engine.release(t);
  };
  return variant(how, x, once, inARow(device, repeat(call)));
}

/** Why a prepared variant is n/a. */
const NO_PREPARE = 'engine.prepare is not a function in this build of Cleave (dist/)';

/**
 * A prepared split: `engine.prepare(x, options)` once, off the clock, then its split (`how.fn` 'prepared.split')
 * or its encode ('prepared.encode': into the destinations it was prepared with, which its outputs must be in); with
 * `moving`, each call given the destinations `moving()` returns (a KV cache's next slot), which its outputs must be in.
 * n/a where the engine has no prepare; failed where prepare throws.
 * @param {SplitEngine} engine @param {How} how @param {GpuTensor} x @param {object} options
 * @param {readonly { buffer: GPUBuffer }[]} [into]
 * @param {() => readonly { buffer: GPUBuffer, byteOffset: number }[]} [moving] @returns {Promise<Variant>}
 */
export async function preparedVariant(engine, how, x, options, into, moving) {
  const prepare = /** @type {{ prepare?: unknown }} */ (engine).prepare;
  if (typeof prepare !== 'function') return unavailable(how, x, NO_PREPARE, true);
  /** @type {PreparedSplit} */
  let p;
  try {
    p = await prepare.call(engine, x, options);
  } catch (e) {
    return unavailable(how, x, `engine.prepare failed: ${msg(e)}`);
  }
  if (moving) {
    /** @type {readonly { buffer: GPUBuffer, byteOffset: number }[]} */
    let at = [];
    const check = (/** @type {GpuTensor[]} */ outs) => {
      if (outs.some((t, i) => t.buffer !== at[i]?.buffer || t.byteOffset !== at[i]?.byteOffset))
        throw new Error('its outputs are not at the destinations the call gave');
    };
    if (how.fn === 'prepared.split') return splitVariant(engine, how, x, () => p.split(x, (at = moving())));
    return encodeVariant(engine, how, x, (enc) => p.encode(enc, x, (at = moving())), check);
  }
  if (how.fn === 'prepared.split') return splitVariant(engine, how, x, () => p.split(x));
  const check = (/** @type {GpuTensor[]} */ outs) => {
    if (!into || outs.some((t, i) => t.buffer !== into[i]?.buffer || t.byteOffset !== 0))
      throw new Error('its outputs are not at byte 0 of the destinations it was prepared with');
  };
  return encodeVariant(engine, how, x, (enc) => p.encode(enc, x), check);
}
