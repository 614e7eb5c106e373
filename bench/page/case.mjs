// One case, warm: prepare the input and the reference, build every system on the shared device,
// verify each one's outputs byte for byte (a system that fails is not timed), then time them all
// side by side, and check a sample of the timed iterations' outputs too. Cold cases and the
// error-scope probe (--probes) hand off to their own modules.

import { DTYPES } from '/dist/cleave.js';
import { fetchModel, msg, now, progress, shared } from './context.mjs';
import { caseData, compare } from './data.mjs';
import { coldCase } from './cold.mjs';
import { scopeCost } from './scopes.mjs';
import { splitCalls } from './systems/cleave.mjs';
import { WARM_KEYS, build } from './systems/index.mjs';
import { measureAll } from './timing.mjs';
import { resultOf, verify } from './verify.mjs';

/** @import { BenchCase, CaseResult, Env, Prepared, Settings, Slot, System } from '../types.js' */
/** @import { SystemKey, SystemResult } from '../types.js' */

/** @param {BenchCase} spec @returns {Promise<Prepared>} */
async function prepare(spec) {
  if (!DTYPES.includes(spec.dtype) || spec.dtype === 'string')
    throw new Error(`${spec.id}: the bench cannot run dtype ${spec.dtype}`);
  return {
    ...spec,
    ...caseData(spec),
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
  const errorScopes = spec.scopeCost && settings.probes ? await scopeCost(c, settings) : undefined;
  await s.device.queue.onSubmittedWorkDone();
  return {
    id: spec.id,
    ...part,
    cpuPathError,
    errorScopes,
    gpuErrors: [...s.errors],
    deviceLost: s.lost(),
    seconds: (now() - t0) / 1000,
  };
}

/**
 * @param {Prepared} c @param {Settings} settings
 * @returns {Promise<Pick<CaseResult, 'systems' | 'reps'>>}
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
  for (const sys of systems) slots.push(await verify(sys, c.id, settings.probes));
  const samples = slots.map(keepSample);
  const reps = await measureAll(slots, settings, c.id, s.timer);
  for (const [i, slot] of slots.entries())
    await checkSample(slot, /** @type {{ kept: unknown[], restore: () => void }} */ (samples[i]), c.id);
  for (const sys of systems) await sys.run?.close?.();
  s.engine.release(gx);
  /** @type {Partial<Record<SystemKey, SystemResult>>} */
  const results = {};
  for (const slot of slots) results[slot.sys.key] = resultOf(slot);
  return { systems: results, reps };
}

/** Timed iterations whose outputs are kept and checked after timing: the 1st, 2nd, 4th, 8th, ... */
const SAMPLE = 8;

/**
 * Wraps the slot's `free` (called after each timed batch, outside the timed window) so that a
 * sample of the timed iterations' outputs is kept instead of freed, for checkSample.
 * @param {Slot<string>} slot @returns {{ kept: unknown[], restore: () => void }}
 */
function keepSample(slot) {
  /** @type {unknown[]} */
  const kept = [];
  const run = slot.sys.run;
  if (!run || slot.failed) return { kept, restore: () => {} };
  const free = run.free;
  let n = 0;
  run.free = (out) => {
    n++;
    if (kept.length < SAMPLE && (n & (n - 1)) === 0) kept.push(out);
    else free.call(run, out);
  };
  return { kept, restore: () => (run.free = free) };
}

/**
 * Checks the kept outputs of timed iterations against the reference, then frees them; a
 * mismatch fails the system (its timings stand, but it is reported as failed). Returns how many were checked.
 * @param {Slot<string>} slot @param {{ kept: unknown[], restore: () => void }} sample @param {string} label
 */
async function checkSample(slot, { kept, restore }, label) {
  const run = slot.sys.run;
  restore();
  if (!run || kept.length === 0) return 0;
  progress(`${label}: checking ${kept.length} timed iterations of ${slot.sys.key}`);
  for (const [i, out] of kept.entries()) {
    const failure = slot.failed ? undefined : await run.check(out).catch((e) => `check failed: ${msg(e)}`);
    if (failure) {
      slot.failed = `timed iteration ${2 ** i}: ${failure}`;
      slot.verified = false;
    }
    run.free(out);
  }
  return kept.length;
}
