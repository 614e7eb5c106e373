// What the interop entries (`cleave-gpu/ort`, `cleave-gpu/tfjs`) share: reading a Cleave GPU tensor for a
// runtime that wraps whole GPU buffers, and calling one function of the runtime namespace the
// caller passes (read once; anything it throws becomes a SplitError).

import { type SubjectKey, SplitError, check, guardRead, readFailure, show } from './errors.js';
import type { GpuTensor } from './tensor.js';
import { type GpuView, readGpuTensor } from './read/tensor.js';
import { checkLive } from './gpu/leases.js';

/**
 * A live Cleave GPU tensor that starts at byte 0 of its buffer: ONNX Runtime Web and TF.js wrap a
 * GPUBuffer without an offset, so anything else must be split with `layout: 'separate'`.
 */
export function readWholeBuffer(t: GpuTensor, what: string, runtime: string): GpuView {
  const v = readGpuTensor(t, what, 'input:tensor');
  checkLive(v, what);
  check(
    v.byteOffset === 0,
    'BAD_INPUT',
    () =>
      `${what}: the tensor starts at byte ${v.byteOffset} of its buffer; ` +
      `${runtime} takes whole buffers: split with { layout: 'separate' }`,
    'input:tensor.buffer',
  );
  return v;
}

/**
 * Calls `owner()[key](...args)`, reading the owner and the function once. `expected` says what the
 * namespace should have been when the function is missing; `refused` words what the function
 * threw (by default as any read of a caller's object that throws).
 */
export function callRuntime<T>(
  what: string,
  owner: () => unknown,
  key: string,
  args: readonly unknown[],
  expected: () => string,
  subject: SubjectKey,
  refused?: (thrown: string) => string,
): T {
  const o = guardRead(what, owner, subject);
  const fn = guardRead(what, () => (o as Record<string, unknown>)[key], subject);
  check(typeof fn === 'function', 'BAD_INPUT', () => `${what}: expected ${expected()}`, subject);
  try {
    return Reflect.apply(fn, o, args) as T;
  } catch (e) {
    if (!refused || e instanceof SplitError) throw readFailure(e, what, subject);
    throw new SplitError('BAD_INPUT', refused(show((e as Error)?.message ?? e)), subject);
  }
}
