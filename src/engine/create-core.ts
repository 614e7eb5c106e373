// createSplitEngine of `cleave-gpu/core`: the same engine without operator nodes (no `run`), so that an application
// that only splits leaves the operator front-ends out of its bundle.

import { openEngine } from './open.js';
import { Engine } from './engine.js';
import type { CoreSplitEngine } from './api.js';
import type { SplitEngineOptions } from './options.js';

/**
 * Creates an engine with every call of `cleave-gpu`'s but `run` (operator nodes): `split`, `encodeSplit`, `upload`,
 * `download`, `release`, `calibrate`, `destroy`, on WebGPU or, with no adapter, on the CPU, with the same options,
 * results and errors. A bundle that imports it leaves Cleave's operator front-ends out; `docs/size.md` gives the
 * sizes.
 *
 * @param options - The device, the backend, a forced strategy, a late-error listener; all optional.
 * @returns The engine, once its device is found and its most used pipelines are compiled.
 * @throws {@link SplitError} `BAD_OPTIONS`: an unknown option or a bad value (a `device` that is not a GPUDevice, or
 *   with `backend: 'cpu'`); `NO_WEBGPU`: `backend: 'webgpu'` and no adapter or device, with the reason; `BAD_INPUT`:
 *   reading an option threw.
 * @example
 * ```ts
 * import { createSplitEngine } from 'cleave-gpu/core';
 *
 * const engine = await createSplitEngine();
 * const x = { dtype: 'int32', shape: [2, 3], data: new Int32Array([1, 2, 3, 4, 5, 6]) } as const;
 * const [a, b] = await engine.split(x, { axis: 1, sizes: [2, 1] });
 * console.log([...a!.data], [...b!.data]); // [1, 2, 4, 5] [3, 6]
 * engine.destroy();
 * ```
 */
export function createSplitEngine(options?: SplitEngineOptions): Promise<CoreSplitEngine> {
  return openEngine(options, Engine);
}
