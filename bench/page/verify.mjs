// Verification shared by the page and the Node bench: one split (or inference) of a system, its outputs
// compared with the reference (with --probes, its GPU calls counted), before anything is timed; a system
// that fails is not timed. And a system's result once timed, as the JSON holds it.

import { countCalls } from './gpu-probe.mjs';
import { msg, progress } from './log.mjs';
import { summary } from './timing.mjs';

/** @import { Slot, System, SystemResult } from '../types.js' */

/**
 * @template {string} K
 * @param {System<K>} sys @param {string} label @param {boolean} [count]  count the GPU calls of a second call
 * @returns {Promise<Slot<K>>}
 */
export async function verify(sys, label, count = false) {
  /** @type {Slot<K>} */
  const slot = { sys, verified: false, wall: [], gpu: [], failed: sys.error ?? sys.skip };
  const run = sys.run;
  if (!run || slot.failed) return slot;
  progress(`${label}: verifying ${sys.key}`);
  const once = async () => {
    const o = await run.iter();
    await run.sync();
    return o;
  };
  try {
    // Counted in steady state: a first call (its outputs released) creates what the system keeps, then the
    // second is counted, as every split after it would be.
    if (count) run.free(await once());
    const [out, calls] = count ? await countCalls(once) : [await once(), undefined];
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
    placement: sys.placement,
    wall: summary(slot.wall),
    gpu: summary(slot.gpu),
    batch: slot.cal?.k,
    calls: slot.calls,
    stats: slot.stats,
  };
}
