// Cold start: the first split on a fresh device, with the warm systems' own builders. Each rep of
// each system gets a new adapter and device (an adapter gives one device only) holding the input
// in a plain buffer; the clock then covers everything the system must do before its first result:
// creating the engine (Cleave), the session (ORT) or the kernel's pipeline (shader-copy limit),
// compiling, the first split and waiting for the GPU. Rep 0's outputs are checked byte for byte.

import { msg, now, progress, shared } from './context.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { COLD_KEYS, build } from './systems/index.mjs';
import { STORAGE } from './systems/limits.mjs';
import { summary } from './timing.mjs';

/** @import { CaseResult, PlanStats, Prepared, Settings, SystemKey, SystemResult } from '../types.js' */

/** A new device like the shared one: the same features and the buffer limits the cases need. */
async function freshDevice() {
  const l = shared().device.limits;
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('navigator.gpu.requestAdapter() gave no adapter');
  return adapter.requestDevice({
    requiredFeatures: [...shared().device.features]
      .filter((f) => adapter.features.has(f))
      .map((f) => /** @type {GPUFeatureName} */ (f)),
    requiredLimits: { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize },
  });
}

/**
 * The input on `device` in a plain buffer (padded to 16 bytes for the copy kernel), as a GpuTensor.
 * @param {GPUDevice} device @param {Prepared} c
 * @returns {import('/dist/cleave.js').GpuTensor}
 */
function upload(device, c) {
  const buffer = createBuffer(device, {
    size: Math.max(16, Math.ceil(c.bytes / 16) * 16),
    usage: STORAGE,
    mappedAtCreation: true,
  });
  new Uint8Array(buffer.getMappedRange()).set(c.input);
  buffer.unmap();
  return /** @type {import('/dist/cleave.js').GpuTensor} */ ({
    dtype: c.dtype,
    shape: [...c.shape],
    buffer,
    byteOffset: 0,
    byteLength: c.bytes,
  });
}

/**
 * One cold run of one system: ms to its first result, and on `check` what its outputs say.
 * @param {Prepared} c @param {SystemKey} key @param {boolean} check
 * @returns {Promise<{ ms: number, error?: string | undefined, stats?: PlanStats | undefined }>}
 */
async function coldRun(c, key, check) {
  const device = await freshDevice();
  const gx = upload(device, c);
  await device.queue.onSubmittedWorkDone();
  try {
    const t0 = now();
    const sys = await build(key, c, { device, gx, ortDevice: device });
    if (!sys.run) throw new Error(sys.error ?? sys.skip ?? 'no runner');
    const out = await sys.run.iter();
    await sys.run.sync();
    const ms = now() - t0;
    const error = check ? await sys.run.check(out) : undefined;
    const stats = sys.run.stats?.();
    sys.run.free(out);
    await sys.run.close?.();
    return { ms, error, stats };
  } finally {
    gx.buffer.destroy();
    device.destroy();
  }
}

/**
 * @param {Prepared} c @param {Settings} s
 * @returns {Promise<Pick<CaseResult, 'systems' | 'reps'>>}
 */
export async function coldCase(c, s) {
  /** @type {Partial<Record<SystemKey, SystemResult>>} */
  const systems = {};
  for (const key of COLD_KEYS) {
    const times = [];
    /** @type {string | undefined} */
    let error;
    /** @type {PlanStats | undefined} */
    let stats;
    for (let r = 0; r < s.coldReps && !error; r++) {
      progress(`${c.id}: cold ${key}, rep ${r + 1}/${s.coldReps}`);
      try {
        const run = await coldRun(c, key, r === 0);
        times.push(run.ms);
        error = run.error;
        stats ??= run.stats;
      } catch (e) {
        error = msg(e);
      }
    }
    const ok = times.length > 0 && !error;
    systems[key] = { ok, verified: ok, error, wall: summary(times), stats };
  }
  return { systems, reps: s.coldReps };
}
