// Timing: batches of splits per submit-and-wait, calibrated so one batch lasts about batchMs, and
// every system's batches interleaved in an order shuffled each rep, so a load change on a shared
// machine hits them alike, and so does the work a batch leaves behind (garbage to collect, buffers
// to free): in a fixed or rotating cycle the same system always follows the same neighbour and
// pays for it. The shuffle is seeded: a run times its systems in the same orders each time.
// GPU time is taken on every other rep, with the timestamp probes swapped in.

import { msg, now, progress } from './log.mjs';
import { xorshift32 } from './random.mjs';

/** @import { Runner, Settings, Slot, Summary } from '../types.js' */
/** @import { GpuTimer } from './gpu-probe.mjs' */

/**
 * Runs `k` iterations back to back, then waits for the GPU; returns ms per iteration.
 * @param {Runner<any>} run @param {number} k
 */
async function batch(run, k) {
  /** @type {unknown[]} */
  const outs = [];
  const t0 = now();
  for (let i = 0; i < k; i++) outs.push(await run.iter());
  await run.sync();
  const t1 = now();
  for (const o of outs) run.free(o);
  return (t1 - t0) / k;
}

/**
 * GPU ms per iteration of a batch; a batch that submits nothing (Cleave's alias strategy) is 0.
 * @param {Runner<any>} run @param {number} k @param {GpuTimer} timer
 */
async function gpuBatch(run, k, timer) {
  /** @type {unknown[]} */
  const outs = [];
  const [, t] = await timer.time(async () => {
    for (let i = 0; i < k; i++) outs.push(await run.iter());
    await run.sync();
  });
  for (const o of outs) run.free(o);
  return t && t.overflow === 0 ? t.ns / 1e6 / k : undefined;
}

/**
 * @param {readonly (number | undefined)[]} xs
 * @returns {Summary | undefined}
 */
export function summary(xs) {
  const v = /** @type {number[]} */ (xs.filter((x) => x !== undefined && Number.isFinite(x))).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  const median =
    v.length % 2
      ? /** @type {number} */ (v[mid])
      : /** @type {number} */ (v[mid - 1] + /** @type {number} */ (v[mid])) / 2;
  return { median, min: /** @type {number} */ (v[0]), max: /** @type {number} */ (v[v.length - 1]), n: v.length };
}

/**
 * Warm-up, then the batch size: iterations per submit-and-wait so a batch lasts about batchMs,
 * no more than maxLiveBytes of outputs alive at once.
 * @param {Runner<any>} run @param {number} outputBytes @param {Settings} s
 */
async function calibrate(run, outputBytes, s) {
  const t0 = now();
  const single = [];
  while (single.length < s.warmupIters || (now() - t0 < s.warmupMs && single.length < 50))
    single.push(await batch(run, 1));
  const est = Math.min(...single);
  const k0 = Math.max(1, Math.min(s.maxBatch, Math.round(s.batchMs / Math.max(est, 1e-3))));
  const perIterMs = k0 > 1 ? await batch(run, k0) : est;
  const memCap = outputBytes > 0 ? Math.max(1, Math.floor(s.maxLiveBytes / outputBytes)) : s.maxBatch;
  const k = Math.max(1, Math.min(s.maxBatch, memCap, Math.round(s.batchMs / Math.max(perIterMs, 1e-3))));
  return { k, perIterMs };
}

/**
 * Times every slot that verified; returns the number of reps.
 * @param {Slot<string>[]} slots @param {Settings} s @param {string} label @param {GpuTimer} timer
 */
export async function measureAll(slots, s, label, timer) {
  for (const slot of slots.filter((x) => !x.failed)) {
    progress(`${label}: warm-up ${slot.sys.key}`);
    try {
      // Views allocate nothing: their outputs alive do not cap the batch (capped, a view split's time
      // would be mostly its share of one submit-and-wait).
      const bytes = slot.stats?.strategy === 'alias' ? 0 : slot.sys.outputBytes;
      slot.cal = await calibrate(runOf(slot), bytes, s);
    } catch (e) {
      slot.failed = `warm-up failed: ${msg(e)}`;
    }
  }
  const timed = slots.filter((x) => !x.failed);
  const slowest = Math.max(...timed.map((x) => (x.cal ? x.cal.k * x.cal.perIterMs : 0)), 1);
  const reps = Math.max(s.minReps, Math.min(s.maxReps, Math.floor(s.budgetMs / slowest)));
  let lastNote = now();
  const next = xorshift32(reps);
  for (let r = 0; r < reps; r++) {
    for (const slot of shuffled(timed, next)) await timeRep(slot, r, timer);
    if (now() - lastNote > 1500) {
      progress(`${label}: rep ${r + 1}/${reps}`);
      lastNote = now();
    }
  }
  return reps;
}

/** @param {Slot<string>} slot @param {number} r @param {GpuTimer} timer */
async function timeRep(slot, r, timer) {
  if (slot.failed || !slot.cal) return;
  const run = runOf(slot);
  try {
    slot.wall.push(await batch(run, slot.cal.k));
    if (r % 2 === 1 && slot.sys.gpuTimed && timer.ok) slot.gpu.push(await gpuBatch(run, slot.cal.k, timer));
  } catch (e) {
    slot.failed = `timing failed at rep ${r}: ${msg(e)}`;
  }
}

/** @param {Slot<string>} slot */
function runOf(slot) {
  if (!slot.sys.run) throw new Error(`${slot.sys.key} has no runner`);
  return slot.sys.run;
}

/**
 * A permutation of `xs` (Fisher-Yates, drawing from `next`).
 * @template T @param {readonly T[]} xs @param {() => number} next @returns {T[]}
 */
export function shuffled(xs, next) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [a[i], a[j]] = [/** @type {T} */ (a[j]), /** @type {T} */ (a[i])];
  }
  return a;
}
