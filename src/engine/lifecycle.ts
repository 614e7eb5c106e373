// Whether an engine is still usable: destroyed by its caller, or its device lost. Every call checks
// it first, and the executor checks it again after every wait, since either may happen while a
// split is under way.

import { check } from '../errors.js';

export interface Lifecycle {
  /** Throws when the engine was destroyed or its device lost. */
  alive(what: string): void;
  /** Marks the engine destroyed; true the first time only. */
  end(): boolean;
}

export function lifecycle(device: GPUDevice | undefined): Lifecycle {
  let destroyed = false;
  let lost: string | undefined;
  void device?.lost.then((info) => {
    lost = info.message || info.reason;
  });
  return {
    alive: (what) => {
      check(!destroyed, 'RELEASED', () => `${what}: this engine was destroyed`, 'engine:engine');
      check(lost === undefined, 'DEVICE_LOST', () => `${what}: the GPU device was lost: ${lost}`, 'engine:device');
    },
    end: () => !destroyed && (destroyed = true),
  };
}
