// One case in Node, through the page bench's shared modules: its input and independent reference
// (page/data.mjs), Cleave's default plan on the shared calibrated engine and each strategy forced
// (page/systems/cleave.mjs), the peers GPU-resident on the same device (page/systems/ort.mjs: ONNX Runtime Web's
// WebGPU EP running the case's one-node model; page/systems/tfjs.mjs: TF.js's tf.split), the device's copy limits
// (page/systems/limits.mjs), each verified byte for byte before anything is timed, then all timed side by side
// (page/timing.mjs). A peer's GPU calls are counted in one split (the proof that it ran on WebGPU), and ORT's own
// log says where it placed the node. A case the device cannot hold is skipped, the limit named.

import { resolveCase } from '../lib/resolve-cases.mjs';
import { caseData } from '../page/data.mjs';
import { msg, progress } from '../page/log.mjs';
import { resultOf, verify } from '../page/verify.mjs';
import { cleaveForced, cleaveGpu, cleaveSeparate, splitCalls } from '../page/systems/cleave.mjs';
import { copyLimit, shaderLimit } from '../page/systems/limits.mjs';
import { measureAll } from '../page/timing.mjs';
import { placementOf } from './peers.mjs';
import { ONE_BINDING, overLimits } from './select.mjs';

/** @import { CaseSpec, Env, NodeCaseRecord, NodeSystemKey, Prepared, Settings, Slot, System } from '../types.js' */
/** @import { SystemResult } from '../types.js' */
/** @import { SplitEngine } from 'cleave-gpu' */
/** @import { GpuTimer } from '../page/gpu-probe.mjs' */
/** @import { Peers } from './peers.mjs' */

/**
 * Cleave's default plan first (the ratios' numerator), then each strategy forced, the default plan with layout
 * 'separate', the peers, then the limits.
 * @type {readonly NodeSystemKey[]}
 */
export const SYSTEMS = [
  'cleave',
  'forced-alias',
  'forced-copy',
  'forced-gather',
  'separate',
  'ort',
  'tfjs',
  'copy-limit',
  'shader-limit',
];

/** The peers, whose GPU calls are always counted (the proof of where they ran). */
const PEERS = ['ort', 'tfjs'];

/**
 * @typedef {object} Shared
 * @property {GPUDevice} device
 * @property {SplitEngine} engine  calibrated, on `device`
 * @property {GPUComputePipeline} copyPipeline
 * @property {GpuTimer} timer
 * @property {string[]} errors  uncaptured GPU errors
 * @property {Peers} peers  what loaded, and why a peer did not
 * @property {ReadonlyMap<string, Uint8Array>} models  the ONNX models, by name (none without ORT)
 */

/** @param {CaseSpec} spec @param {Shared} s @returns {Prepared} */
function prepare(spec, s) {
  const c = resolveCase(spec);
  return { ...c, ...caseData(c), modelBytes: c.model ? s.models.get(c.model) : undefined, split: splitCalls(c) };
}

/**
 * Builds, verifies and times every system on one case.
 * @param {CaseSpec} spec @param {Settings} settings @param {Shared} s @returns {Promise<NodeCaseRecord>}
 */
export async function runCase(spec, settings, s) {
  const t0 = performance.now();
  s.errors.length = 0;
  progress(`${spec.id}: preparing`);
  const c = prepare(spec, s);
  const { id, dtype, shape, axis, sizes, bytes, strategy } = c;
  const record = { case: { id, dtype, shape, axis, sizes, bytes, ...(strategy ? { strategy } : {}) } };
  const over = overLimits(c.bytes, s.device.limits);
  if (over.all) return { ...record, systems: {}, gpuErrors: [], seconds: 0, skipped: over.all, ratios: none() };
  const gx = s.engine.upload(c.host);
  /** @type {Env} */
  const env = {
    device: s.device,
    gx,
    engine: c.strategy ? undefined : s.engine,
    copyPipeline: s.copyPipeline,
    ortDevice: s.device,
  };
  /** @type {Slot<string>[]} */
  const slots = [];
  for (const [key, make] of builders(s, over.oneBinding)) {
    progress(`${spec.id}: ${key}`);
    const sys = await make(c, env).catch((e) => ({ key, gpuTimed: false, outputBytes: 0, error: msg(e) }));
    slots.push(await verify({ ...sys, key }, spec.id, settings.probes || PEERS.includes(key)));
  }
  proveTfjs(slots.find((x) => x.sys.key === 'tfjs'));
  await measureAll(slots, settings, spec.id, s.timer);
  for (const slot of slots) await slot.sys.run?.close?.();
  s.engine.release(gx);
  await s.device.queue.onSubmittedWorkDone();
  /** @type {Partial<Record<NodeSystemKey, SystemResult>>} */
  const systems = {};
  for (const slot of slots) systems[/** @type {NodeSystemKey} */ (slot.sys.key)] = resultOf(slot);
  return { ...record, systems, gpuErrors: [...s.errors], seconds: (performance.now() - t0) / 1000, ratios: none() };
}

/** Placeholder ratios: run.mjs computes them once the case is measured. */
const none = () => ({ wall: {}, gpu: {} });

/**
 * TF.js ran on WebGPU if its split dispatched programs of its own on the shared device (counted in verify); a
 * split that dispatched none ran on its CPU path, and is marked so.
 * @param {Slot<string> | undefined} slot
 */
function proveTfjs(slot) {
  const n = slot?.calls;
  if (!slot || !n) return;
  const s = (/** @type {number} */ k, /** @type {string} */ w) =>
    `${k} ${w}${k === 1 ? '' : w.endsWith('h') ? 'es' : 's'}`;
  const per = `${s(n.dispatches, 'dispatch')}, ${s(n.submits, 'submit')} per split`;
  slot.sys.placement = `WebGPU backend on the bench's device: ${per}`;
  if (n.dispatches === 0) {
    slot.sys.fallback = 'cpu';
    slot.sys.webgpuError = 'TF.js dispatched no WebGPU program in a split';
  }
}

/**
 * @param {Shared} s @param {string | undefined} oneBinding  why a system that binds the whole input cannot run
 * @returns {[string, (c: Prepared, env: Env) => Promise<System<string>>][]}
 */
function builders(s, oneBinding) {
  const na = (/** @type {string} */ why) => async () => ({ key: '', gpuTimed: false, outputBytes: 0, skip: why });
  /** @type {[string, (c: Prepared, env: Env) => Promise<System<string>>][]} */
  const all = [
    ['cleave', cleaveGpu],
    ['forced-alias', cleaveForced('alias')],
    ['forced-copy', cleaveForced('copy')],
    ['forced-gather', cleaveForced('gather')],
    ['separate', cleaveSeparate],
    ['ort', s.peers.ort ? ortBuilder(s) : na(notLoaded(s.peers, 'ort'))],
    ['tfjs', s.peers.tf ? tfjsBuilder : na(notLoaded(s.peers, 'tfjs'))],
    ['copy-limit', async (c, env) => copyLimit(c, env)],
    ['shader-limit', async (c, env) => shaderLimit(c, env)],
  ];
  return all.map(([key, make]) => [key, oneBinding && ONE_BINDING.some((k) => k === key) ? na(oneBinding) : make]);
}

/** Why a peer is n/a in every case. @param {Peers} peers @param {'ort' | 'tfjs'} name */
function notLoaded(peers, name) {
  const error = peers.info[name]?.error;
  return error ? `n/a: ${name === 'ort' ? 'ONNX Runtime Web' : 'TF.js'} did not load: ${error}` : 'n/a: --no-peers';
}

/**
 * ONNX Runtime Web on the case's model, with where its log says it placed the node.
 * @param {Shared} s @returns {(c: Prepared, env: Env) => Promise<System<string>>}
 */
function ortBuilder(s) {
  return async (c, env) => {
    const { ortSystem } = await import('../page/systems/ort.mjs');
    const placement = c.modelBytes && s.peers.ort ? await placementOf(s.peers.ort, s.device, c.modelBytes) : undefined;
    return { ...(await ortSystem(c, env, true)), placement };
  };
}

/** @param {Prepared} c @param {Env} env */
async function tfjsBuilder(c, env) {
  const { tfjsGpu } = await import('../page/systems/tfjs.mjs');
  return tfjsGpu(c, env);
}
