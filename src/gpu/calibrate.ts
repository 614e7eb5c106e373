// The planner's cost model, measured once per device: submits planned and recorded as splits are
// (row copies, tiny gathers, a 2 MiB copy, a gather), each in two sizes, timed by timestamp queries
// (else the wait for the queue); the costs come from the differences. Medians of three rounds,
// clamped to sane ranges. Costs only choose among correct plans; on any failure the device keeps
// DEFAULT_COSTS. The measurement stays off a first split's path: it starts once the device's queue
// is done with the work submitted before the engine's first split (or when `engine.calibrate()`
// asks), and splits plan with DEFAULT_COSTS until it ends.

import { type CostModel, DEFAULT_COSTS } from '../planner/costs.js';
import type { GatherPlan, GpuPlan } from '../planner/types.js';
import { planGpu } from '../planner/gpu.js';
import { planSplit } from '../planner/split.js';
import { encodeCopies, encodeGather } from './encode.js';
import { pipelineFor } from './pipelines.js';
import { BufferPool } from './pool.js';
import { scoped } from './scope.js';
import { TableCache } from './tables.js';
import { MAP_READ_MODE, STAGING_USAGE, TENSOR_USAGE, USAGE } from '../usage.js';

const measured = new WeakMap<GPUDevice, CostModel | Promise<CostModel>>();

/** The device's measured costs; DEFAULT_COSTS before (or without) a measurement. */
export function costsOf(device: GPUDevice): CostModel {
  const c = measured.get(device);
  return c && !(c instanceof Promise) ? c : DEFAULT_COSTS;
}

/** Measures the device's costs, once: later and concurrent calls share the first run. */
export function calibrate(device: GPUDevice): Promise<CostModel> {
  return start(device, () => measure(device));
}

/**
 * Starts the measurement, once, after the work the queue holds now: a split that calls this (before
 * its own submit) is never queued behind a probe.
 */
export function calibrateSoon(device: GPUDevice): void {
  if (!measured.has(device)) void start(device, () => device.queue.onSubmittedWorkDone().then(() => measure(device)));
}

function start(device: GPUDevice, run: () => Promise<CostModel>): Promise<CostModel> {
  const c = measured.get(device);
  if (c) return Promise.resolve(c);
  const running = run()
    .catch(() => DEFAULT_COSTS)
    .then((costs) => {
      measured.set(device, costs);
      return costs;
    });
  measured.set(device, running);
  return running;
}

const BIG = 2 << 20;
const ROUNDS = 3;

type Record = (enc: GPUCommandEncoder) => void;

async function measure(device: GPUDevice): Promise<CostModel> {
  const pool = new BufferPool(device, () => undefined);
  // Every GPU call below runs inside its own scopes (setup, then each probe): an error fails the calibration only.
  const timed = device.features.has('timestamp-query');
  let querySet: GPUQuerySet | undefined;
  try {
    const { value: setup, error } = scoped(device, () => ({
      src: pool.take(BIG, TENSOR_USAGE),
      dst: pool.take(BIG, TENSOR_USAGE),
      read: pool.take(16, STAGING_USAGE),
      resolve: pool.create(16, 0x200 /* QUERY_RESOLVE */ | USAGE.COPY_SRC),
      querySet: (querySet = timed ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined),
    }));
    const { src, dst, read, resolve } = setup;
    const errors = [error];
    const tables = new TableCache(device, pool);
    const limits = { alignment: 256, maxBindingBytes: BIG, maxBufferBytes: BIG, costs: DEFAULT_COSTS };
    const opts = (strategy: 'copy' | 'gather') => ({ srcByteOffset: 0, allowAlias: false, strategy });
    const copies = (n: number) => (enc: GPUCommandEncoder) => {
      const gp = planGpu(planSplit('float32', [n / 2, 256], 1, [64, 192]), limits, opts('copy'));
      encodeCopies(enc, (gp as Extract<GpuPlan, { strategy: 'copy' }>).copies, src, gp.outputs, { targets: [dst] });
    };
    const gathers = (n: number, bytes: number) => (enc: GPUCommandEncoder) => {
      const gp = planGpu(planSplit('float32', [bytes / 4], 0, [bytes / 4]), limits, opts('gather')) as GatherPlan;
      for (let k = 0; k < n; k++)
        encodeGather(device, enc, gp, tables.get(gp.dispatches), pipelineFor(device, gp.unitBits, false), src, [dst]);
    };
    // Each probe plans and records as splits do, in pairs of sizes whose difference drops what any
    // submit costs: 512 and 2048 row copies of 256 and 768 bytes; 8 and 24 tiny gathers; nothing and
    // a copy of 2 MiB; a gather of 512 KiB and of 2 MiB. Each alone in flight: probes queued together
    // would time the GPU's run of one while another is still being processed.
    const probes: Record[] = [
      copies(512),
      copies(2048),
      gathers(8, 256),
      gathers(24, 256),
      () => undefined,
      (enc) => enc.copyBufferToBuffer(src, 0, dst, 0, BIG),
      gathers(1, BIG / 4),
      gathers(1, BIG),
    ];
    // A probe's time is the span between a timestamp submitted before it is planned and one after
    // it: its recording and its processing wherever that runs (in Chromium the GPU process, which
    // the page's clock does not see) and its run on the GPU. Without timestamps, the wait for the
    // queue (in Chromium it resolves on a coarse tick: the clamps bound what that gives).
    const stamp = (at: 0 | 1) => {
      const enc = device.createCommandEncoder();
      if (querySet) {
        const index = at ? { endOfPassWriteIndex: 1 } : { beginningOfPassWriteIndex: 0 };
        enc.beginComputePass({ timestampWrites: { querySet, ...index } }).end();
        if (at) enc.resolveQuerySet(querySet, 0, 2, resolve, 0);
        if (at) enc.copyBufferToBuffer(resolve, 0, read, 0, 16);
      }
      device.queue.submit([enc.finish()]);
    };
    const ms: number[][] = probes.map(() => []);
    const hosts: number[][] = probes.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, record] of probes.entries()) {
        const t = performance.now();
        let host = 0;
        errors.push(
          scoped(device, () => {
            stamp(0);
            const enc = device.createCommandEncoder();
            const h = performance.now();
            record(enc);
            host = performance.now() - h;
            hosts[i]!.push(host);
            device.queue.submit([enc.finish()]);
            stamp(1);
          }).error,
        );
        await (querySet ? read.mapAsync(MAP_READ_MODE) : device.queue.onSubmittedWorkDone());
        if (querySet) {
          // At least the recording: Chromium quantizes timestamps to 100 µs unless told otherwise.
          const [t0, t1] = new BigInt64Array(read.getMappedRange());
          ms[i]!.push(Math.max(host, Number(t1! - t0!) / 1e6));
          read.unmap();
        } else ms[i]!.push(performance.now() - t);
      }
    }
    for (const e of errors) if (await e) throw new Error('calibration failed');
    // ns of what the larger of each pair adds: 1536 commands moving 768 KiB; 16 dispatches; 2 MiB copied; 1.5 MiB
    // gathered. A command and a dispatch cost no less than the host's recording of one.
    const [c2, d, copied, g2] = [0, 2, 4, 6].map((i) => (median(ms[i + 1]!) - median(ms[i]!)) * 1e6);
    const recording = (i: number, n: number) => (median(hosts[i]!) * 1e6) / n;
    const copyByteNs = clamp(copied! / BIG, 1e-3, 100);
    return {
      copyCommandNs: clamp(Math.max(c2! / 1536 - 512 * copyByteNs, recording(1, 2048)), 50, 1e5),
      dispatchNs: clamp(Math.max(d! / 16, recording(3, 24)), 500, 1e7),
      copyByteNs,
      gatherByteNs: clamp(g2! / ((3 * BIG) / 4), 1e-3, 100),
    };
  } finally {
    querySet?.destroy();
    pool.destroy();
  }
}

// The median of the rounds: a first round pays one-time costs, and a span may start late or early
// against the host's recording.
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
const clamp = (x: number, lo: number, hi: number) => (x >= lo ? Math.min(x, hi) : lo);
