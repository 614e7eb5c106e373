// One case in Node, through the page bench's shared modules: its input and independent reference
// (page/data.mjs), Cleave's default plan on the shared calibrated engine and each strategy forced
// (page/systems/cleave.mjs), the device's copy limits (page/systems/limits.mjs), each verified byte
// for byte before anything is timed, then all timed side by side (page/timing.mjs).

import { resolveCase } from '../lib/resolve-cases.mjs';
import { caseData } from '../page/data.mjs';
import { msg, progress } from '../page/log.mjs';
import { resultOf, verify } from '../page/verify.mjs';
import { cleaveForced, cleaveGpu, cleaveSeparate, splitCalls } from '../page/systems/cleave.mjs';
import { copyLimit, shaderLimit } from '../page/systems/limits.mjs';
import { measureAll } from '../page/timing.mjs';

/** @import { CaseSpec, Env, Prepared, Settings, Slot, System, SystemResult } from '../types.js' */
/** @import { SplitEngine } from 'cleave-gpu' */
/** @import { GpuTimer } from '../page/gpu-probe.mjs' */

/**
 * Cleave's default plan first (the ratios' numerator), then each strategy forced, the default plan with layout
 * 'separate', then the limits.
 */
export const SYSTEMS = [
  'cleave',
  'forced-alias',
  'forced-copy',
  'forced-gather',
  'separate',
  'copy-limit',
  'shader-limit',
];

/**
 * @typedef {object} Shared
 * @property {GPUDevice} device
 * @property {SplitEngine} engine  calibrated, on `device`
 * @property {GPUComputePipeline} copyPipeline
 * @property {GpuTimer} timer
 * @property {string[]} errors  uncaptured GPU errors
 */

/** @param {CaseSpec} spec @returns {Prepared} */
function prepare(spec) {
  const c = resolveCase(spec);
  return { ...c, ...caseData(c), split: splitCalls(c) };
}

/**
 * Builds, verifies and times every system on one case.
 * @param {CaseSpec} spec @param {Settings} settings @param {Shared} s
 */
export async function runCase(spec, settings, s) {
  const t0 = performance.now();
  s.errors.length = 0;
  progress(`${spec.id}: preparing`);
  const c = prepare(spec);
  const gx = s.engine.upload(c.host);
  /** @type {Env} */
  const env = { device: s.device, gx, engine: c.strategy ? undefined : s.engine, copyPipeline: s.copyPipeline };
  /** @type {Slot<string>[]} */
  const slots = [];
  for (const [key, make] of builders()) {
    progress(`${spec.id}: ${key}`);
    const sys = await make(c, env).catch((e) => ({ key, gpuTimed: false, outputBytes: 0, error: msg(e) }));
    slots.push(await verify({ ...sys, key }, spec.id));
  }
  await measureAll(slots, settings, spec.id, s.timer);
  for (const slot of slots) await slot.sys.run?.close?.();
  s.engine.release(gx);
  await s.device.queue.onSubmittedWorkDone();
  /** @type {Record<string, SystemResult>} */
  const systems = {};
  for (const slot of slots) systems[slot.sys.key] = resultOf(slot);
  const { id, dtype, shape, axis, sizes, bytes, strategy } = c;
  return {
    case: { id, dtype, shape, axis, sizes, bytes, ...(strategy ? { strategy } : {}) },
    systems,
    gpuErrors: [...s.errors],
    seconds: (performance.now() - t0) / 1000,
  };
}

/** @returns {[string, (c: Prepared, env: Env) => Promise<System<string>>][]} */
function builders() {
  return [
    ['cleave', cleaveGpu],
    ['forced-alias', cleaveForced('alias')],
    ['forced-copy', cleaveForced('copy')],
    ['forced-gather', cleaveForced('gather')],
    ['separate', cleaveSeparate],
    ['copy-limit', async (c, env) => copyLimit(c, env)],
    ['shader-limit', async (c, env) => shaderLimit(c, env)],
  ];
}
