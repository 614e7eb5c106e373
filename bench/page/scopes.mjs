// What Cleave's per-split error scopes cost (issue 8): every split runs inside
// pushErrorScope('out-of-memory') + pushErrorScope('validation') and waits for both pops before
// it resolves, so a GPU error lands on the split that caused it. Measured on a loop of empty
// submits with and without that pair, in alternating order, on the shared device. Reported next
// to the tiny GPU-resident split, never asserted.

import { now, progress } from './context.mjs';
import { summary } from './timing.mjs';

/** @import { ScopeCost, Settings, Summary } from '../types.js' */

/**
 * @param {GPUDevice} device @param {Settings} s
 * @returns {Promise<ScopeCost>}
 */
export async function scopeCost(device, s) {
  const submit = () => device.queue.submit([device.createCommandEncoder().finish()]);
  const scoped = async () => {
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    submit();
    const errors = await Promise.all([device.popErrorScope(), device.popErrorScope()]);
    const error = errors.find((e) => e !== null);
    if (error) throw new Error(`an empty submit raised a GPU error: ${error.message}`);
  };
  const bare = async () => { submit(); };
  /** @param {() => Promise<void>} step µs per step, the loop's submits drained at its end */
  const loop = async (step) => {
    const t0 = now();
    for (let i = 0; i < s.scopeLoops; i++) await step();
    await device.queue.onSubmittedWorkDone();
    return ((now() - t0) * 1000) / s.scopeLoops;
  };
  const withScopes = [];
  const without = [];
  for (let r = 0; r < s.scopeReps; r++) {
    progress(`error scopes: rep ${r + 1}/${s.scopeReps}`);
    if (r % 2 === 0) { withScopes.push(await loop(scoped)); without.push(await loop(bare)); }
    else { without.push(await loop(bare)); withScopes.push(await loop(scoped)); }
  }
  return {
    loops: s.scopeLoops,
    withScopesUs: /** @type {Summary} */ (summary(withScopes)),
    withoutScopesUs: /** @type {Summary} */ (summary(without)),
  };
}
