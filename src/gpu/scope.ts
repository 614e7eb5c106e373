// Blame: the GPU calls of one split run inside their own validation and out-of-memory error
// scopes, so an error they cause rejects that split, and only it. Scopes catch only calls made
// while they are open, and `record` is synchronous, so an application's own errors on a shared
// device (or another split's) never land here. A call either awaits its scopes (`throwIfFailed`)
// or, when it resolved first, hears of their error later (`lateError`).

import { SplitError } from '../errors.js';
import { BOTH } from './scope-policy.js';

/** What a call inside no scope reports. */
const NO_ERROR: Promise<string | undefined> = Promise.resolve(undefined);

/**
 * Runs `record` inside its own scopes (`scopes`, outermost first; none may be asked); exceptions become SplitErrors.
 */
export function scoped<T>(
  device: GPUDevice,
  record: () => T,
  scopes = BOTH,
): { value: T; error: Promise<string | undefined> } {
  for (const f of scopes) device.pushErrorScope(f);
  // Scopes popped on a lost device reject; the call then reports DEVICE_LOST on its own.
  const pop = () =>
    scopes.length === 0
      ? NO_ERROR
      : scopes.length === 1
        ? device.popErrorScope().then(
            (e) => e?.message,
            () => undefined,
          )
        : Promise.all(scopes.map(() => device.popErrorScope())).then(
            (errors) => errors.find((e) => e)?.message,
            () => undefined,
          );
  try {
    return { value: record(), error: pop() };
  } catch (e) {
    void pop();
    throw e instanceof SplitError ? e : new SplitError('GPU_ERROR', `a WebGPU call threw: ${(e as Error)?.message}`);
  }
}

/** Rejects with GPU_ERROR when the call's scopes caught an error. */
export async function throwIfFailed(what: string, error: Promise<string | undefined>): Promise<void> {
  const message = await error;
  if (message !== undefined) throw gpuError(what, message);
}

/** The GPU_ERROR the call's scopes caught, once they settle: for a call that resolved before they did. */
export function lateError(what: string, error: Promise<string | undefined>): Promise<SplitError | undefined> {
  return error.then((m) => (m === undefined ? undefined : gpuError(what, m, 'after it resolved, ')));
}

const gpuError = (what: string, message: string, late = '') =>
  new SplitError('GPU_ERROR', `${what}: ${late}the GPU refused this call's commands: ${message}`);
