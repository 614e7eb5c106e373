// The planner's cost model, measured once per device: the probes of planner/calibration.ts, planned
// and recorded as splits are, each in batches submitted back to back as a caller's splits are, in
// interleaved rounds; each batch timed by timestamps around it (else the wall clock to the queue's
// end). The statistics that turn those times into costs are planner/calibration.ts's. Costs only
// choose among correct plans; on any failure the device keeps DEFAULT_COSTS. The measurement stays
// off a first split's path: it starts once the device's queue is done with the work submitted before
// the engine's first split (or when `engine.calibrate()` asks), and splits plan with DEFAULT_COSTS
// until it ends.

import { type CostModel, DEFAULT_COSTS } from '../planner/costs.js';
import { PROBES, type Timing, costsFrom } from '../planner/calibration.js';
import { planGpu } from '../planner/gpu.js';
import { planSplit } from '../planner/split.js';
import { encodeCopies, encodeGather, makeTable } from './encode.js';
import { BufferPool } from './pool.js';
import { type DeviceRecord, deviceRecord } from './device.js';
import { inScopes } from './executor.js';
import { MAP_READ_MODE, STAGING_USAGE, TENSOR_USAGE, USAGE } from '../usage.js';

/** Measures the device's costs, once: later and concurrent calls share the first measurement. */
export function calibrate(device: GPUDevice): Promise<CostModel> {
  return start(deviceRecord(device), () => measure(device));
}

/**
 * Starts the measurement, once, after the work the queue holds now: a split that calls this (before
 * its own submit) is never queued behind a probe.
 */
export function calibrateSoon(device: GPUDevice, record: DeviceRecord): void {
  if (!record.running) void start(record, () => device.queue.onSubmittedWorkDone().then(() => measure(device)));
}

function start(record: DeviceRecord, measurement: () => Promise<CostModel>): Promise<CostModel> {
  return (record.running ??= measurement()
    .catch(() => DEFAULT_COSTS)
    .then((costs) => (record.costs = costs)));
}

// Rounds of every probe in turn, so a change of load hits them alike; the first warms up (pipelines,
// tables, bind groups) and is left out.
const ROUNDS = 6;
const BYTES = 1 << 20;

type Recording = (enc: GPUCommandEncoder) => void;

async function measure(device: GPUDevice): Promise<CostModel> {
  const pool = new BufferPool(device, () => undefined);
  let querySet: GPUQuerySet | undefined;
  try {
    // Every GPU call below runs inside its own scopes (setup, then each batch): an error fails the calibration only.
    const { value: b, error } = inScopes(device, () => ({
      src: pool.take(BYTES, TENSOR_USAGE),
      dst: pool.take(BYTES, TENSOR_USAGE),
      read: pool.take(16, STAGING_USAGE),
      resolve: pool.create(16, 0x200 /* QUERY_RESOLVE */ | USAGE.COPY_SRC),
      querySet: (querySet = device.features.has('timestamp-query')
        ? device.createQuerySet({ type: 'timestamp', count: 2 })
        : undefined),
    }));
    const errors = [error];
    // A timestamp before a batch's first split is recorded, and one after its last split, read back.
    const stamp =
      (at: number): Recording =>
      (enc) => {
        if (!querySet) return;
        const index = at ? { endOfPassWriteIndex: 1 } : { beginningOfPassWriteIndex: 0 };
        enc.beginComputePass({ timestampWrites: { querySet, ...index } }).end();
        if (at) enc.resolveQuerySet(querySet, 0, 2, b.resolve, 0);
        if (at) enc.copyBufferToBuffer(b.resolve, 0, b.read, 0, 16);
      };
    const probes = recorders(device, pool, b.src, b.dst);
    const rounds: Timing[][] = probes.map(() => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, [record, k]] of probes.entries()) {
        const t = performance.now();
        // The batch's splits back to back, each in a command buffer of its own, as a caller's are.
        errors.push(
          inScopes(device, () => {
            for (const rec of [stamp(0), ...Array<Recording>(k).fill(record), stamp(1)]) {
              const enc = device.createCommandEncoder();
              rec(enc);
              device.queue.submit([enc.finish()]);
            }
          }).error,
        );
        let span;
        if (querySet) {
          await b.read.mapAsync(MAP_READ_MODE);
          const [t0, t1] = new BigInt64Array(b.read.getMappedRange());
          span = Number(t1! - t0!) / 1e6;
          b.read.unmap();
        } else await device.queue.onSubmittedWorkDone();
        if (r) rounds[i]!.push([performance.now() - t, span]);
      }
    }
    for (const e of errors) if (await e) throw new Error('calibration failed');
    return costsFrom(rounds) ?? DEFAULT_COSTS;
  } finally {
    querySet?.destroy();
    pool.destroy();
  }
}

/** Each probe's split, planned as the planner plans it with its strategy forced, and its batch's size. */
function recorders(device: GPUDevice, pool: BufferPool, src: GPUBuffer, dst: GPUBuffer): [Recording, number][] {
  const limits = { alignment: 256, maxBindingBytes: BYTES, maxBufferBytes: BYTES, costs: DEFAULT_COSTS };
  const b = { src, srcBase: 0, targets: [dst], bases: [0] };
  return PROBES.map(([copy, rows, parts, piece, k]) => {
    const plan = planSplit('float32', [rows, (parts * piece) / 4], 1, Array<number>(parts).fill(piece / 4));
    const gp = planGpu(plan, limits, { srcByteOffset: 0, allowAlias: false, strategy: copy ? 'copy' : 'gather' });
    const table = gp.strategy === 'gather' ? makeTable(device, pool, gp) : undefined;
    return [table ? (enc) => encodeGather(device, enc, gp, table, b) : (enc) => encodeCopies(enc, gp, b), k];
  });
}
