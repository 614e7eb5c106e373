// Whether an engine is still usable: destroyed by its caller, or its device lost. Every call checks
// it first, and the executor checks it again after every wait, since either may happen while a
// split is under way.

import { check } from '../errors.js';

export class Lifecycle {
  private destroyed = false;
  private lost: string | undefined;

  constructor(device: GPUDevice | undefined) {
    void device?.lost.then((info) => {
      this.lost = info.message || info.reason;
    });
  }

  /** Throws when the engine was destroyed or its device lost. */
  alive(what: string): void {
    check(!this.destroyed, 'RELEASED', () => `${what}: this engine was destroyed`, 'engine:engine');
    check(
      this.lost === undefined,
      'DEVICE_LOST',
      () => `${what}: the GPU device was lost: ${this.lost}`,
      'engine:device',
    );
  }

  /** Marks the engine destroyed; true the first time only. */
  end(): boolean {
    const first = !this.destroyed;
    this.destroyed = true;
    return first;
  }
}
