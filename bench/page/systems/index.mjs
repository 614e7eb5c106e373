// Every system a case runs, by key, each built the same way for warm runs (shared device and
// engines) and cold runs (a fresh device, everything created inside the timed span).

import { msg } from '../context.mjs';
import { cleaveCpu, cleaveForced, cleaveGpu, cleaveHost, cleaveSeparate } from './cleave.mjs';
import { copyLimit, shaderLimit } from './limits.mjs';
import { ortSystem } from './ort.mjs';
import { tfjsGpu } from './tfjs.mjs';

/** @import { Env, Prepared, System, SystemKey } from '../../types.js' */

/** @type {Readonly<Record<SystemKey, (c: Prepared, env: Env) => System | Promise<System>>>} */
export const BUILDERS = {
  'cleave-gpu': cleaveGpu,
  'cleave-gpu-alias': cleaveForced('alias'),
  'cleave-gpu-copy': cleaveForced('copy'),
  'cleave-gpu-gather': cleaveForced('gather'),
  'cleave-gpu-separate': cleaveSeparate,
  'cleave-host': cleaveHost,
  'ort-gpu': (c, env) => ortSystem(c, env, true),
  'ort-host': (c, env) => ortSystem(c, env, false),
  'tfjs-gpu': tfjsGpu,
  'copy-limit': copyLimit,
  'shader-limit': shaderLimit,
  'cleave-cpu': cleaveCpu,
};

/** GPU-resident Cleave with each strategy forced, timed beside its own choice (warm cases only). */
export const FORCED_KEYS = /** @type {const} */ (['cleave-gpu-alias', 'cleave-gpu-copy', 'cleave-gpu-gather']);

/** @type {readonly SystemKey[]} */
export const WARM_KEYS = [
  'cleave-gpu',
  ...FORCED_KEYS,
  'cleave-gpu-separate',
  'cleave-host',
  'ort-gpu',
  'ort-host',
  'tfjs-gpu',
  'copy-limit',
  'shader-limit',
  'cleave-cpu',
];

/** The CPU backend has no cold start worth timing: it compiles nothing. TF.js runs warm only (one backend per page). */
export const COLD_KEYS = WARM_KEYS.filter(
  (k) =>
    k !== 'cleave-cpu' &&
    k !== 'tfjs-gpu' &&
    k !== 'cleave-gpu-separate' &&
    !(/** @type {readonly string[]} */ (FORCED_KEYS).includes(k)),
);

/**
 * Builds a system; a builder that throws gives a system with its error.
 * @param {SystemKey} key @param {Prepared} c @param {Env} env
 * @returns {Promise<System>}
 */
export async function build(key, c, env) {
  try {
    return await BUILDERS[key](c, env);
  } catch (e) {
    return { key, gpuTimed: false, outputBytes: 0, error: `setting up failed: ${msg(e)}` };
  }
}
