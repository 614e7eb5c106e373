// What every engine's creator does (createSplitEngine, of `cleave-gpu` and of `cleave-gpu/core`, which is this
// module's): the options read once, then a device found (the caller's, or one Cleave asks an adapter for) and the
// costs it plans with (the caller's, or its adapter's table); without one, an 'auto' engine runs on the CPU and says
// why. On a device Cleave found itself, the most used pipelines are compiled before the engine is handed out; on the
// caller's, nothing is made until a split needs it. The creator names the kind of engine: `cleave-gpu`'s, with
// operator nodes, is node-engine.ts's.

// These imports' order sets the modules' order in a consumer's bundle, and its gzip size with it:
// the shader's modules (through pipelines.ts) near the front compress best beside the planner's.
import { isA } from '../read/webgpu-object.js';
import { warmUp } from '../gpu/pipelines.js';
import { SplitError, check, guardRead, show } from '../errors.js';
import { acquireDevice, facts } from '../gpu/device.js';
import { readChoice, readOptions } from '../read/options.js';
import { type CostModel, costTableFor } from '../planner/costs.js';
import { Engine } from './engine.js';
import type { CoreSplitEngine } from './api.js';
import type { SplitEngineOptions } from './options.js';

const BACKENDS = ['auto', 'webgpu', 'cpu'] as const;
const STRATEGIES = ['auto', 'alias', 'copy', 'gather'] as const;

/** Creates an engine of the kind `Kind` (createSplitEngine's flow; see its documentation). */
export async function openEngine<E extends Engine>(
  options: SplitEngineOptions | undefined,
  Kind: new (o: ConstructorParameters<typeof Engine>[0]) => E,
): Promise<E> {
  const what = 'createSplitEngine';
  const o = readOptions(options, what, ['device', 'backend', 'strategy', 'costs', 'onLateError'], 'engine');
  const want = readChoice(o.backend, BACKENDS, 'auto', what, 'engine:backend');
  const strategy = readChoice(o.strategy, STRATEGIES, 'auto', what, 'engine:strategy');
  const given = o.device as GPUDevice | undefined;
  const onLate = o.onLateError as SplitEngineOptions['onLateError'];
  check(
    onLate === undefined || typeof onLate === 'function',
    'BAD_OPTIONS',
    () => `${what}: onLateError must be a function`,
    'engine:onLateError',
  );
  check(
    given === undefined || (isA(given, 'GPUDevice', ['createBuffer']) && want !== 'cpu'),
    'BAD_OPTIONS',
    () => `${what}: device must be a GPUDevice, with backend 'auto' or 'webgpu', got ${show(given)}`,
    'engine:device',
  );
  const costs = o.costs === undefined ? undefined : readCosts(o.costs);
  const found = given
    ? { device: given, adapterInfo: facts(guardRead(what, () => given.adapterInfo)) }
    : want === 'cpu'
      ? { reason: undefined }
      : await acquireDevice();
  const opened = { madeDevice: !given, strategy, onLateError: onLate };
  if (!('device' in found)) {
    check(
      want !== 'webgpu',
      'NO_WEBGPU',
      () => `${what}: backend 'webgpu' was asked for, but ${found.reason}`,
      'engine:backend',
    );
    const none = { device: undefined, adapterInfo: undefined, costs: undefined };
    return new Kind({ ...opened, ...none, madeDevice: false, fallbackReason: found.reason });
  }
  if (!given) await warmUp(found.device);
  const info = found.adapterInfo;
  const adapterInfo = { vendor: info.vendor ?? '', architecture: info.architecture ?? '' };
  const chosen = costs ?? costTableFor(info);
  return new Kind({ ...opened, device: found.device, adapterInfo, costs: chosen, fallbackReason: undefined });
}

const COST_KEYS = ['copyCommandNs', 'dispatchNs', 'copyByteNs', 'gatherByteNs'] as const;

/** The `costs` option: every field of a CostModel, each a finite number >= 0, copied and frozen. */
function readCosts(raw: unknown): CostModel {
  const what = 'createSplitEngine';
  let o: { [K in (typeof COST_KEYS)[number]]?: unknown };
  try {
    o = readOptions(raw, `${what} costs`, COST_KEYS, 'engine');
  } catch (e) {
    throw new SplitError('BAD_OPTIONS', (e as Error).message, 'engine:costs');
  }
  for (const k of COST_KEYS) {
    const v = o[k];
    check(
      typeof v === 'number' && Number.isFinite(v) && v >= 0,
      'BAD_OPTIONS',
      () => `${what}: costs.${k} must be a finite number >= 0 (ns), got ${show(v)}`,
      'engine:costs',
    );
  }
  return Object.freeze(o as unknown as CostModel);
}

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
 * import { createSplitEngine, tensor } from 'cleave-gpu/core';
 *
 * const engine = await createSplitEngine();
 * const x = tensor('int32', new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
 * const [a, b] = await engine.split(x, { axis: 1, sizes: [2, 1] });
 * console.log([...a!.data], [...b!.data]); // [1, 2, 4, 5] [3, 6]
 * engine.destroy();
 * ```
 */
export function createSplitEngine(options?: SplitEngineOptions): Promise<CoreSplitEngine> {
  // The engine's calls read what they are given as `unknown`; api.ts declares what they take.
  return openEngine(options, Engine) as Promise<unknown> as Promise<CoreSplitEngine>;
}
