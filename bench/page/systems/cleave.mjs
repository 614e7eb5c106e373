// Cleave's systems: GPU-resident (a GpuTensor in, GpuTensors out), the same with each strategy
// forced, host in/out on the GPU backend, and the CPU backend (a reference for what a GPU round
// trip costs on small tensors).
// Each uses the engine it is given, or creates its own (cold runs, forced strategies) and
// destroys it on close.

import { createSplitEngine } from '/dist/cleave.js';
import { checkOutputs, readTensors } from '../data.mjs';

/** @import { GpuTensor, HostTensor, SplitEngine, SplitEngineOptions } from '/dist/cleave.js' */
/** @import { Env, PlanStats, Prepared, SplitCalls, System } from '../../types.js' */

/**
 * How the case calls Cleave: engine.split, or engine.run for a SplitToSequence node.
 * @param {import('../../types.js').BenchCase} spec
 * @returns {SplitCalls}
 */
export function splitCalls(spec) {
  if (spec.op === 'SplitToSequence') {
    const attrs = { axis: spec.axis };
    return {
      gpu: (engine, x) => engine.run({ op: 'SplitToSequence', opset: 11, inputs: [x], attrs }),
      host: (engine, x) => engine.run({ op: 'SplitToSequence', opset: 11, inputs: [x], attrs }),
    };
  }
  const options = { axis: spec.axis, sizes: [...spec.sizes] };
  return { gpu: (engine, x) => engine.split(x, options), host: (engine, x) => engine.split(x, options) };
}

/**
 * The engine to use and how to close it: `shared`, or a new one (with the case's forced strategy).
 * @param {Prepared} c @param {SplitEngine | undefined} shared @param {SplitEngineOptions} options
 */
async function engineFor(c, shared, options) {
  if (shared) return { engine: shared, close: () => {} };
  const engine = await createSplitEngine({ ...options, ...(c.strategy ? { strategy: c.strategy } : {}) });
  return { engine, close: () => engine.destroy() };
}

/**
 * What the engine's last split did, with the pipelines compiled on its device so far.
 * @param {SplitEngine} engine @returns {PlanStats}
 */
export function statsOf(engine) {
  const s = engine.stats;
  return {
    strategy: s.strategy,
    unitBits: s.unitBits,
    dispatches: s.dispatches,
    copies: s.copies,
    commands: s.dispatches + s.copies,
    pipelines: s.pipelinesCreated,
  };
}

/** @param {Prepared} c @param {Env} env @returns {Promise<System>} */
export async function cleaveGpu(c, env) {
  const { engine, close } = await engineFor(c, env.engine, { device: env.device });
  /** @type {import('../../types.js').Runner<GpuTensor[]>} */
  const run = {
    iter: () => c.split.gpu(engine, env.gx),
    sync: () => env.device.queue.onSubmittedWorkDone(),
    free: (outs) => {
      for (const t of outs) engine.release(t);
    },
    async check(outs) {
      const got = await readTensors(env.device, outs);
      return checkOutputs(
        c,
        'Cleave GPU-resident',
        got,
        outs.map((t) => t.shape),
      );
    },
    stats: () => statsOf(engine),
    close,
  };
  return { key: 'cleave-gpu', gpuTimed: true, outputBytes: c.bytes, run };
}

/**
 * GPU-resident Cleave with `strategy` forced, beside the planner's own choice (cleave-gpu): an engine
 * of its own on the shared device, splitting its own upload of the input (as cleave-gpu splits the
 * shared engine's), so ownership, alias policy and error scopes match. n/a where the plan cannot take
 * the strategy (a forced strategy falls back to one it can), or where the case forces one already.
 * @param {'alias' | 'copy' | 'gather'} strategy
 * @returns {(c: Prepared, env: Env) => Promise<System>}
 */
export function cleaveForced(strategy) {
  /** @type {import('../../types.js').SystemKey} */
  const key = `cleave-gpu-${strategy}`;
  return async (c, env) => {
    const na = (/** @type {string} */ why) => ({ key, gpuTimed: false, outputBytes: 0, skip: `n/a: ${why}` });
    if (c.strategy) return na(`the case forces '${c.strategy}' already`);
    const engine = await createSplitEngine({ device: env.device, strategy });
    const gx = engine.upload(c.host);
    const first = await c.split.gpu(engine, gx);
    for (const t of first) engine.release(t);
    const got = engine.stats.strategy;
    if (got !== strategy) {
      engine.release(gx);
      engine.destroy();
      return na(`the plan cannot take '${strategy}' here (forced, it ran '${got}')`);
    }
    const sys = await cleaveGpu(c, { ...env, engine, gx });
    return {
      ...sys,
      key,
      run: sys.run && {
        ...sys.run,
        close: () => {
          engine.release(gx);
          engine.destroy();
        },
      },
    };
  };
}

/**
 * GPU-resident Cleave with layout 'separate' (each output a buffer of its own at byte 0, what ONNX Runtime Web and
 * TensorFlow.js take), the planner's plan, on the same engine and input as cleave-gpu: beside it, what writing each
 * output into its own buffer costs. n/a for SplitToSequence (a node: the bench runs it with the default layout).
 * @param {Prepared} c @param {Env} env @returns {Promise<System>}
 */
export async function cleaveSeparate(c, env) {
  const key = 'cleave-gpu-separate';
  if (c.op === 'SplitToSequence') return { key, gpuTimed: false, outputBytes: 0, skip: 'n/a: a node, split as shared' };
  const options = { axis: c.axis, sizes: [...c.sizes], layout: /** @type {const} */ ('separate') };
  const sys = await cleaveGpu({ ...c, split: { ...c.split, gpu: (engine, x) => engine.split(x, options) } }, env);
  return { ...sys, key };
}

/** @param {Prepared} c @param {Env} env @returns {Promise<System>} */
export async function cleaveHost(c, env) {
  const { engine, close } = await engineFor(c, env.engine, { device: env.device });
  return hostSystem(c, engine, close, 'cleave-host', 'Cleave host in/out');
}

/** @param {Prepared} c @param {Env} env @returns {Promise<System>} */
export async function cleaveCpu(c, env) {
  const { engine, close } = await engineFor(c, env.cpu, { backend: 'cpu' });
  return hostSystem(c, engine, close, 'cleave-cpu', 'Cleave CPU backend');
}

/**
 * @param {Prepared} c @param {SplitEngine} engine @param {() => void} close
 * @param {'cleave-host' | 'cleave-cpu'} key @param {string} label
 * @returns {System}
 */
function hostSystem(c, engine, close, key, label) {
  const gpuTimed = engine.backend === 'webgpu';
  /** @type {import('../../types.js').Runner<HostTensor[]>} */
  const run = {
    iter: () => c.split.host(engine, c.host),
    sync: async () => {},
    free: () => {},
    check: async (outs) =>
      checkOutputs(
        c,
        label,
        outs.map((t) => /** @type {ArrayBufferView} */ (t.data)),
        outs.map((t) => t.shape),
      ),
    ...(gpuTimed ? { stats: () => statsOf(engine) } : {}),
    close,
  };
  return { key, gpuTimed, outputBytes: 0, run };
}
