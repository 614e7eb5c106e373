// Cleave's default plan against the device's copy limits and against each strategy forced, in wall time
// and in GPU time: the comparisons both bench commands report. Pure: a case's systems in, ratios out.

/** @import { SystemResult } from '../types.js' */
/** @typedef {'wall' | 'gpu'} Clock */

/** A system's median on `clock`, where it ran and verified. @param {SystemResult | undefined} s @param {Clock} clock */
export const medianOf = (s, clock) => (s?.ok ? s[clock]?.median : undefined);

/** @param {number | undefined} a @param {number | undefined} b */
export const ratioOf = (a, b) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);

/**
 * Every ratio of one case per clock: the default over the copy limit, over the shader-copy limit, and over
 * the fastest strategy forced (named by the last word of its key: 'cleave-gpu-copy' is copy).
 * @param {Partial<Record<string, SystemResult>>} systems @param {string} own  the default's key
 * @param {readonly string[]} forced  the forced strategies' keys
 */
export function ratiosOf(systems, own, forced) {
  /** @param {Clock} clock */
  const of = (clock) => {
    const mine = medianOf(systems[own], clock);
    let best;
    for (const key of forced) {
      const t = medianOf(systems[key], clock);
      if (t !== undefined && (!best || t < best.ms)) best = { strategy: key.split('-').at(-1), ms: t };
    }
    return {
      copyLimit: ratioOf(mine, medianOf(systems['copy-limit'], clock)),
      shaderLimit: ratioOf(mine, medianOf(systems['shader-limit'], clock)),
      bestForced: ratioOf(mine, best?.ms),
      bestForcedStrategy: best?.strategy,
    };
  };
  return { wall: of('wall'), gpu: of('gpu') };
}
