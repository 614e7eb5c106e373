// createSplitEngine of `cleave-gpu`: an engine with every call, operator nodes (`run`) included.

import { openEngine } from './open.js';
import { NodeEngine } from './node-engine.js';
import type { SplitEngine } from './api.js';
import type { SplitEngineOptions } from './options.js';

/**
 * Creates an engine: on the device you pass, or on one it asks an adapter for; with no adapter, an 'auto' engine
 * runs on the CPU and says why in `fallbackReason`.
 *
 * @param options - The device, the backend, a forced strategy, a late-error listener; all optional.
 * @returns The engine, once its device is found and its most used pipelines are compiled.
 * @throws {@link SplitError} `BAD_OPTIONS`: an unknown option or a bad value (a `device` that is not a GPUDevice, or
 *   with `backend: 'cpu'`); `NO_WEBGPU`: `backend: 'webgpu'` and no adapter or device, with the reason; `BAD_INPUT`:
 *   reading an option threw.
 * @example
 * ```ts
 * import { createSplitEngine } from 'cleave-gpu';
 *
 * const engine = await createSplitEngine(); // WebGPU if there is an adapter, else the CPU
 * console.log(engine.backend, engine.fallbackReason ?? '');
 * engine.destroy();
 * ```
 */
export function createSplitEngine(options?: SplitEngineOptions): Promise<SplitEngine> {
  return openEngine(options, NodeEngine);
}
