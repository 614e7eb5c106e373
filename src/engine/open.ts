// What every engine's creator does (createSplitEngine, of `cleave-gpu` and of `cleave-gpu/core`): the
// options read once, then a device found (the caller's, or one Cleave asks an adapter for) and its most used
// pipelines compiled; without one, an 'auto' engine runs on the CPU and says why. The creator names the kind of
// engine.

// These imports' order sets the modules' order in a consumer's bundle, and its gzip size with it:
// the shader's modules (through pipelines.ts) near the front compress best beside the planner's.
import { isA } from '../read/webgpu-object.js';
import { warmUp } from '../gpu/pipelines.js';
import { check, guardRead, show } from '../errors.js';
import { acquireDevice } from '../gpu/device.js';
import { readChoice, readOptions } from '../read/options.js';
import type { Engine } from './engine.js';
import type { SplitEngineOptions } from './options.js';

const BACKENDS = ['auto', 'webgpu', 'cpu'] as const;
const STRATEGIES = ['auto', 'alias', 'copy', 'gather'] as const;

/** Creates an engine of the kind `Kind` (createSplitEngine's flow; see its documentation). */
export async function openEngine<E extends Engine>(
  options: SplitEngineOptions | undefined,
  Kind: new (...args: ConstructorParameters<typeof Engine>) => E,
): Promise<E> {
  const what = 'createSplitEngine';
  const o = readOptions(options, what, ['device', 'backend', 'strategy', 'onLateError'], 'engine');
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
  const found = given
    ? { device: given, adapterInfo: guardRead(what, () => given.adapterInfo) }
    : want === 'cpu'
      ? { reason: undefined }
      : await acquireDevice();
  if (!('device' in found)) {
    check(
      want !== 'webgpu',
      'NO_WEBGPU',
      () => `${what}: backend 'webgpu' was asked for, but ${found.reason}`,
      'engine:backend',
    );
    return new Kind(undefined, undefined, false, strategy, found.reason, onLate);
  }
  await warmUp(found.device);
  const info = found.adapterInfo;
  return new Kind(
    found.device,
    info && { vendor: info.vendor, architecture: info.architecture },
    !given,
    strategy,
    undefined,
    onLate,
  );
}
