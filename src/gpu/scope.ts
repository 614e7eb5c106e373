// Blame: the GPU calls of one split run inside their own validation and out-of-memory error
// scopes, so an error they cause rejects that split, and only it. Scopes catch only calls made
// while they are open, and `record` is synchronous, so an application's own errors on a shared
// device (or another split's) never land here.

import { SplitError } from '../errors.js';

export interface Scoped<T> {
  readonly value: T;
  /** Resolves to the GPU error message the calls caused, or undefined. */
  readonly error: Promise<string | undefined>;
}

export function scoped<T>(device: GPUDevice, record: () => T): Scoped<T> {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let value: T | undefined;
  let thrown: unknown;
  try {
    value = record();
  } catch (e) {
    thrown = e ?? new Error('unknown');
  }
  const scopes = [device.popErrorScope(), device.popErrorScope()];
  // Scopes popped on a lost device reject; the call then reports DEVICE_LOST on its own.
  const error = Promise.all(scopes).then(([v, o]) => (v ?? o)?.message, () => undefined);
  if (thrown !== undefined) {
    void error;
    if (thrown instanceof SplitError) throw thrown;
    throw new SplitError('GPU_ERROR', `a WebGPU call threw: ${(thrown as Error).message ?? String(thrown)}`);
  }
  return { value: value as T, error };
}

/** Rejects with GPU_ERROR when a scope caught an error. */
export async function throwIfFailed(what: string, errors: readonly Promise<string | undefined>[]): Promise<void> {
  for (const e of errors) {
    const message = await e;
    if (message !== undefined) throw new SplitError('GPU_ERROR', `${what}: the GPU refused this call's commands: ${message}`);
  }
}
