// The engine with operator nodes, and `cleave-gpu`'s createSplitEngine: `run` reads a node with its operator's
// front-end (ops/), which checks its version's rules, finds the program of a node read alike before (or plans one),
// and calls it like any split's. Kept apart from engine.ts so that the engine of `cleave-gpu/core`, which has no
// `run`, leaves the front-ends out of a bundle.

import { Engine } from './engine.js';
import { readOptions } from '../read/options.js';
import { type Program, finish, programFor } from './program.js';
import { checkUsage } from '../read/tensor.js';
import { keyOf, readRun } from '../ops/index.js';
import { openEngine } from './open.js';
import type { AnyTensor } from '../tensor.js';
import type { SplitEngine } from './api.js';
import type { SplitEngineOptions } from './options.js';

// Engine's constructor binds `run` as it binds every method: taken off the engine (`const { run } = engine`), it works.
class NodeEngine extends Engine {
  async run(node: unknown, options?: unknown): Promise<AnyTensor[]> {
    this.usable('run');
    const r = readRun(node);
    const v = r.data;
    checkUsage(v, 'run');
    if (v.kind === 'gpu') this.requireGpu('run');
    const o = readOptions(options, 'run', ['layout', 'alias', 'into']);
    const key = keyOf(r);
    const make = () => {
      const { plan, outputShapes } = r.plan();
      return programFor(this, { plan, shapes: outputShapes, kind: v.kind, asked: o, node: key ?? '' }, 'run');
    };
    const matches = (p: Program) => key !== undefined && p.spec.node === key && p.placesAlike(o);
    const call = (p: Program) => p.call(v, p.destinations(o.into, v, 'run'), 'run');
    return finish(this, this.callWith('run', matches, make, call));
  }
}

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
  // The engine's calls read what they are given as `unknown`; api.ts declares what they take.
  return openEngine(options, NodeEngine) as Promise<unknown> as Promise<SplitEngine>;
}
