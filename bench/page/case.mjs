// One case, warm: prepare the input and the reference, build every system on the shared device,
// verify each one's outputs byte for byte (a system that fails is not timed), then time them all
// side by side. Cold cases and the error-scope measurement hand off to their own modules.

import { DTYPES } from '/dist/cleave.js';
import { fetchModel, msg, now, progress, shared } from './context.mjs';
import { compare, makeHost, referenceSplit } from './data.mjs';
import { countCalls } from './gpu-probe.mjs';
import { coldCase } from './cold.mjs';
import { scopeCost } from './scopes.mjs';
import { splitCalls } from './systems/cleave.mjs';
import { WARM_KEYS, build } from './systems/index.mjs';
import { measureAll, summary } from './timing.mjs';

/** @import { BenchCase, CaseResult, Env, Prepared, Settings, Slot, System, SystemKey, SystemResult } from '../types.js' */

/** @param {BenchCase} spec @returns {Promise<Prepared>} */
async function prepare(spec) {
  if (!DTYPES.includes(spec.dtype) || spec.dtype === 'string')
    throw new Error(`${spec.id}: the bench cannot run dtype ${spec.dtype}`);
  const host = makeHost(spec.dtype, spec.shape, 7);
  const d = /** @type {ArrayBufferView} */ (host.data);
  const input = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  return {
    ...spec,
    host,
    input,
    ref: referenceSplit(input, spec.dtype, spec.shape, spec.axis, spec.sizes),
    outShapes: spec.sizes.map((s) => spec.shape.map((d, i) => (i === spec.axis ? s : d))),
    modelBytes: spec.model ? await fetchModel(spec.model) : undefined,
    split: splitCalls(spec),
  };
}

/**
 * @param {BenchCase} spec @param {Settings} settings
 * @returns {Promise<CaseResult>}
 */
export async function runCase(spec, settings) {
  const t0 = now();
  const s = shared();
  s.errors.length = 0;
  progress(`${spec.id}: preparing`);
  const c = await prepare(spec);
  // Cleave's CPU path against the plain reference: the path every system's outputs are checked against too.
  const cpuPathError = compare(
    (await c.split.host(s.cpu, c.host)).map((t) => /** @type {ArrayBufferView} */ (t.data)),
    c.ref,
    'Cleave CPU path',
  );
  const part = spec.cold ? await coldCase(c, settings) : await warmCase(c, settings);
  const errorScopes = spec.scopeCost ? await scopeCost(c, settings) : undefined;
  await s.device.queue.onSubmittedWorkDone();
  return {
    id: spec.id,
    ...part,
    cpuPathError,
    errorScopes,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
    pipelinesSoFar: s.engine.stats.pipelinesCreated,
    seconds: (now() - t0) / 1000,
  };
}

/**
 * @param {Prepared} c @param {Settings} settings
 * @returns {Promise<Pick<CaseResult, 'systems' | 'notes' | 'reps'>>}
 */
async function warmCase(c, settings) {
  const s = shared();
  const gx = s.engine.upload(c.host);
  // A forced strategy needs an engine of its own: each Cleave system then creates one.
  /** @type {Env} */
  const env = {
    device: s.device,
    gx,
    engine: c.strategy ? undefined : s.engine,
    cpu: s.cpu,
    copyPipeline: s.copyPipeline,
  };
  progress(`${c.id}: creating systems`);
  /** @type {System[]} */
  const systems = [];
  for (const key of WARM_KEYS) systems.push(await build(key, c, env));
  const slots = [];
  for (const sys of systems) slots.push(await verify(sys, c.id));
  const reps = await measureAll(slots, settings, c.id, s.timer);
  for (const sys of systems) await sys.run?.close?.();
  s.engine.release(gx);
  /** @type {Partial<Record<SystemKey, SystemResult>>} */
  const results = {};
  for (const slot of slots) results[slot.sys.key] = resultOf(slot);
  return { systems: results, reps, notes: notesOf(c) };
}

/** @param {Prepared} c */
function notesOf(c) {
  const notes = [];
  if (c.op === 'SplitToSequence')
    notes.push(`Cleave ran engine.run({ op: 'SplitToSequence', opset: 11, attrs: { axis: ${c.axis} } })`);
  if (c.strategy) notes.push(`Cleave ran with strategy '${c.strategy}' forced (createSplitEngine({ strategy }))`);
  return notes;
}

/**
 * One split (or inference) of the system, its GPU calls counted, its outputs compared with the reference.
 * @template {string} K
 * @param {System<K>} sys @param {string} label
 * @returns {Promise<Slot<K>>}
 */
export async function verify(sys, label) {
  /** @type {Slot<K>} */
  const slot = { sys, verified: false, wall: [], gpu: [], failed: sys.error ?? sys.skip };
  const run = sys.run;
  if (!run || slot.failed) return slot;
  progress(`${label}: verifying ${sys.key}`);
  try {
    const [out, calls] = await countCalls(async () => {
      const o = await run.iter();
      await run.sync();
      return o;
    });
    slot.calls = calls;
    slot.stats = run.stats?.();
    slot.failed = await run.check(out);
    run.free(out);
    slot.verified = !slot.failed;
  } catch (e) {
    slot.failed = `verify failed: ${msg(e)}`;
  }
  return slot;
}

/** @param {Slot<string>} slot @returns {SystemResult} */
export function resultOf(slot) {
  const { sys } = slot;
  return {
    ok: !!sys.run && !slot.failed,
    verified: slot.verified,
    error: sys.error ?? (sys.skip ? undefined : slot.failed),
    skip: sys.skip,
    webgpuError: sys.webgpuError,
    fallback: sys.fallback,
    wall: summary(slot.wall),
    gpu: summary(slot.gpu),
    batch: slot.cal?.k,
    calls: slot.calls,
    stats: slot.stats,
  };
}
