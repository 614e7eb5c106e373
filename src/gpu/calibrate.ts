// The planner's cost model, measured once per device at warm-up: a few submits planned and recorded
// as splits are (2048 row copies, tiny gathers, a 1 MiB copy, 1 MiB gathers), each timed from its
// recording to the queue's done, past an empty submit's. The least of three rounds, clamped to sane
// ranges. Costs only choose among correct plans; on any failure the device keeps DEFAULT_COSTS.

import { type CostModel, DEFAULT_COSTS, type GatherPlan, type GpuPlan, planGpu } from '../planner/gpu.js';
import { planSplit } from '../planner/split.js';
import { encodeCopies, encodeGather } from './encode.js';
import { pipelineFor } from './pipelines.js';
import { BufferPool } from './pool.js';
import { scoped } from './scope.js';
import { TableCache } from './tables.js';
import { TENSOR_USAGE } from './usage.js';

const measured = new WeakMap<GPUDevice, CostModel | Promise<CostModel>>();

/** The device's measured costs; DEFAULT_COSTS before (or without) a measurement. */
export function costsOf(device: GPUDevice): CostModel {
  const c = measured.get(device);
  return c && !(c instanceof Promise) ? c : DEFAULT_COSTS;
}

/** Measures the device's costs, once: later and concurrent calls share the first run. */
export async function calibrate(device: GPUDevice): Promise<CostModel> {
  let c = measured.get(device);
  if (!c) {
    measured.set(device, (c = measure(device).catch(() => DEFAULT_COSTS)));
    measured.set(device, await c);
  }
  return c;
}

const BIG = 1 << 20;
const ROUNDS = 3;

type Record = (enc: GPUCommandEncoder) => void;

async function measure(device: GPUDevice): Promise<CostModel> {
  const pool = new BufferPool(device, () => undefined);
  // Every GPU call below runs inside its own scopes (setup, then each probe): an error fails the calibration only.
  const { value: setup, error } = scoped(device, () => [pool.take(BIG, TENSOR_USAGE), pool.take(BIG, TENSOR_USAGE)]);
  const [src, dst] = setup as [GPUBuffer, GPUBuffer];
  const errors = [error];
  try {
    const tables = new TableCache(device, pool);
    const limits = { alignment: 256, maxBindingBytes: BIG, maxBufferBytes: BIG, costs: DEFAULT_COSTS };
    const opts = (strategy: 'copy' | 'gather') => ({ srcByteOffset: 0, allowAlias: false, strategy });
    const rows = planSplit('float32', [1024, 256], 1, [64, 192]);
    const gather = (bytes: number) => (enc: GPUCommandEncoder) => {
      const gp = planGpu(planSplit('float32', [bytes / 4], 0, [bytes / 4]), limits, opts('gather')) as GatherPlan;
      encodeGather(device, enc, gp, tables.get(gp.dispatches), pipelineFor(device, gp.unitBits, false), src, dst);
    };
    // Each probe plans and records as splits do: nothing; 1 MiB of float32 into 64 and 192 columns
    // (2048 row copies); 8 tiny gathers; one copy of 1 MiB; 4 gathers of 1 MiB.
    const probes: Record[] = [
      () => undefined,
      (enc) => {
        const gp = planGpu(rows, limits, opts('copy')) as Extract<GpuPlan, { strategy: 'copy' }>;
        encodeCopies(enc, gp.copies, src, gp.outputs, dst);
      },
      (enc) => {
        for (let k = 0; k < 8; k++) gather(256)(enc);
      },
      (enc) => enc.copyBufferToBuffer(src, 0, dst, 0, BIG),
      (enc) => {
        for (let k = 0; k < 4; k++) gather(BIG)(enc);
      },
    ];
    // Wall time from recording to the queue's done: it covers work wherever it runs (in Chromium
    // the GPU process, which neither the page's clock nor timestamp queries fully see).
    const ms: number[][] = probes.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, record] of probes.entries()) {
        const t = performance.now();
        errors.push(
          scoped(device, () => {
            const enc = device.createCommandEncoder();
            record(enc);
            device.queue.submit([enc.finish()]);
          }).error,
        );
        await device.queue.onSubmittedWorkDone();
        ms[i]!.push(performance.now() - t);
      }
    }
    for (const e of errors) if (await e) throw new Error('calibration failed');
    // ns past the empty probe: 2048 commands moving 1 MiB against one; 8 tiny dispatches; 4 moving 1 MiB.
    const [rowCopies, tiny, copyBig, gatherBig] = ms.slice(1).map((m) => (least(m) - least(ms[0]!)) * 1e6);
    const c = clamp((rowCopies! - copyBig!) / 2047, 50, 1e5);
    const d = clamp(tiny! / 8, 500, 1e7);
    return {
      copyCommandNs: c,
      dispatchNs: d,
      copyByteNs: clamp((copyBig! - c) / BIG, 1e-3, 100),
      gatherByteNs: clamp((gatherBig! / 4 - d) / BIG, 1e-3, 100),
    };
  } finally {
    pool.destroy();
  }
}

// The least of the rounds: what load on a shared machine adds to a probe only ever delays it.
const least = (xs: number[]) => Math.min(...xs);
const clamp = (x: number, lo: number, hi: number) => (x >= lo ? Math.min(x, hi) : lo);
