// What a run of `npm run bench:node` does, decided before any GPU work: the decode step, cases, pipelines and decode
// loops it selects (bench/cases.mjs), and which systems a case too large for the device cannot run, with the limit
// named. Pure: lists and numbers in, lists and reasons out.

import { CASES, DECODES, DECODE_STEPS, PIPELINES } from '../cases.mjs';

/** @import { CaseSpec, DecodeSpec, DecodeStepSpec, PipelineSpec } from '../types.js' */

/**
 * The items a run takes. `--cases REGEX` keeps the decode step, cases, pipelines and decode loops whose id matches
 * (cold cases never run here); else `--quick` keeps the cases marked nodeQuick (no decode step, pipeline or decode
 * loop), and a full run takes them all. `--exclude REGEX` then drops the ids that match.
 * @param {{ quick: boolean, filter?: RegExp | undefined, exclude?: RegExp | undefined }} o
 * @returns {{ steps: DecodeStepSpec[], cases: CaseSpec[], pipelines: PipelineSpec[], decodes: DecodeSpec[] }}
 */
export function selectWork({ quick, filter, exclude }) {
  const keep = (/** @type {{ id: string }} */ x) => !exclude?.test(x.id);
  if (filter) {
    const match = (/** @type {{ id: string }} */ x) => filter.test(x.id) && keep(x);
    return {
      steps: DECODE_STEPS.filter(match),
      cases: CASES.filter((c) => !c.cold && match(c)),
      pipelines: PIPELINES.filter(match),
      decodes: DECODES.filter(match),
    };
  }
  return {
    steps: quick ? [] : DECODE_STEPS.filter(keep),
    cases: CASES.filter((c) => !c.cold && (!quick || !!c.nodeQuick) && keep(c)),
    pipelines: quick ? [] : PIPELINES.filter(keep),
    decodes: quick ? [] : DECODES.filter(keep),
  };
}

/**
 * The ids of a selection, in the order the run takes them: the decode step first (on devices of its own, before the
 * cases load the machine with what they leave behind).
 * @param {ReturnType<typeof selectWork>} w
 */
export const idsOf = (w) => [...w.steps, ...w.cases, ...w.pipelines, ...w.decodes].map((x) => x.id);

/** Systems that bind the whole input as one storage buffer: the shader-copy kernel, ORT's and TF.js's kernels. */
export const ONE_BINDING = /** @type {const} */ (['shader-limit', 'ort', 'tfjs']);

/**
 * What a case of `bytes` cannot do on a device of `limits`: `all`, why no system can run it (its input is no
 * buffer the device can make); `oneBinding`, why the systems of ONE_BINDING cannot (Cleave's plans bind windows of
 * the input and copy, the copy limit binds nothing). Undefined where the limit holds.
 * @param {number} bytes
 * @param {{ readonly maxBufferSize?: number, readonly maxStorageBufferBindingSize?: number }} limits
 */
export function overLimits(bytes, limits) {
  const [buffer, binding] = [limits.maxBufferSize, limits.maxStorageBufferBindingSize];
  const over = (/** @type {number | undefined} */ max, /** @type {string} */ name, /** @type {string} */ what) =>
    max !== undefined && bytes > max ? `n/a: the input's ${bytes} bytes exceed ${name} (${max})${what}` : undefined;
  return {
    all: over(buffer, 'maxBufferSize', ''),
    oneBinding: over(binding, 'maxStorageBufferBindingSize', ', and this system binds the whole input at once'),
  };
}
