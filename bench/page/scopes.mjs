// What Cleave's per-split error scopes cost (--probes). A split of a caller's buffer runs inside
// pushErrorScope('out-of-memory') + pushErrorScope('validation'), so a GPU error lands on the split
// that caused it; it waits for both pops before it resolves the first time the engine sees that
// buffer, and not after (the loop here is that steady state). A split of the engine's own live
// buffer whose buffers all come from the pool skips them (its commands cannot fail). Measured two
// ways, in alternating order on the shared device: the case's GPU-resident split with an
// engine-owned input (an upload) against the same bytes in a caller's buffer, and a loop of empty
// submits with and without the pair. Reported next to the case's split, never asserted.

import { msg, now, progress, shared } from './context.mjs';
import { compare, readTensors } from './data.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { STORAGE } from './systems/limits.mjs';
import { summary } from './timing.mjs';

/** @import { GpuTensor } from '/dist/cleave.js' */
/** @import { Prepared, ScopeCost, Settings, Summary } from '../types.js' */

/**
 * @param {Prepared} c @param {Settings} s
 * @returns {Promise<ScopeCost>}
 */
export async function scopeCost(c, s) {
  const { device, engine } = shared();
  const submit = () => device.queue.submit([device.createCommandEncoder().finish()]);
  const scoped = async () => {
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    submit();
    const errors = await Promise.all([device.popErrorScope(), device.popErrorScope()]);
    const error = errors.find((e) => e !== null);
    if (error) throw new Error(`an empty submit raised a GPU error: ${error.message}`);
  };
  const bare = async () => {
    submit();
  };
  const owned = engine.upload(c.host);
  const caller = callersCopy(device, c);
  /** @param {GpuTensor} x */
  const split = (x) => async () => {
    for (const t of await c.split.gpu(engine, x)) engine.release(t);
  };
  const callerError = await checkCaller(c, caller);
  /** @type {{ step: () => Promise<void>, times: number[] }[]} */
  const loops = [scoped, bare, ...(callerError ? [] : [split(owned), split(caller)])].map((step) => ({
    step,
    times: [],
  }));
  for (let r = 0; r < s.scopeReps; r++) {
    progress(`error scopes: rep ${r + 1}/${s.scopeReps}`);
    for (let j = 0; j < loops.length; j++) {
      const { step, times } = /** @type {(typeof loops)[number]} */ (loops[(r + j) % loops.length]);
      times.push(await loop(device, step, s.scopeLoops));
    }
  }
  engine.release(owned);
  caller.buffer.destroy();
  const [w, wo, o, cl] = loops.map((x) => summary(x.times));
  return {
    loops: s.scopeLoops,
    withScopesUs: /** @type {Summary} */ (w),
    withoutScopesUs: /** @type {Summary} */ (wo),
    ownedSplitUs: o,
    callerSplitUs: cl,
    callerError,
  };
}

/**
 * µs per step of `loops` steps, the loop's submits drained at its end (on the clock).
 * @param {GPUDevice} device @param {() => Promise<void>} step @param {number} loops
 */
async function loop(device, step, loops) {
  const t0 = now();
  for (let i = 0; i < loops; i++) await step();
  await device.queue.onSubmittedWorkDone();
  return ((now() - t0) * 1000) / loops;
}

/**
 * The case's input in a buffer the caller (the bench) made, as a GPU tensor.
 * @param {GPUDevice} device @param {Prepared} c @returns {GpuTensor}
 */
function callersCopy(device, c) {
  const buffer = createBuffer(device, {
    size: Math.max(4, Math.ceil(c.bytes / 4) * 4),
    usage: STORAGE,
    mappedAtCreation: true,
  });
  new Uint8Array(buffer.getMappedRange()).set(c.input);
  buffer.unmap();
  return /** @type {GpuTensor} */ ({ dtype: c.dtype, shape: [...c.shape], buffer, byteOffset: 0, byteLength: c.bytes });
}

/**
 * One split of the caller's buffer checked against the reference (the owned input is the case's own
 * GPU-resident system's, checked there); why it failed, if it did.
 * @param {Prepared} c @param {GpuTensor} caller
 */
async function checkCaller(c, caller) {
  const { device, engine } = shared();
  try {
    const outs = await c.split.gpu(engine, caller);
    const got = await readTensors(device, outs);
    for (const t of outs) engine.release(t);
    return compare(got, c.ref, "Cleave GPU-resident, caller's buffer");
  } catch (e) {
    return `failed: ${msg(e)}`;
  }
}
