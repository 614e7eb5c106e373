// `engine.calibrate()`: the planner's costs, measured when the caller asks and never otherwise. The probes of
// planner/calibration.ts are planned and recorded as splits are, each in batches submitted back to back as a caller's
// splits are, in interleaved rounds; each batch timed by timestamps around it (else the wall clock to the queue's
// end). The statistics that turn those times into costs are planner/calibration.ts's. Every GPU call runs inside
// its own error scopes; a failed measurement rejects, and the engine keeps the costs it had.

import { COST_TABLES, type CostModel } from '../planner/costs.js';
import { PROBES, type Timing, costsFrom } from '../planner/calibration.js';
import { planGpu } from '../planner/gpu.js';
import type { GpuPlan } from '../planner/types.js';
import { planSplit } from '../planner/split.js';
import { encodeCopies, encodeGather, makeTable } from './encode.js';
import { BufferPool } from './pool.js';
import { compile, pipelineNow } from './pipelines.js';
import { inScopes } from './executor.js';
import { MAP_READ_MODE, STAGING_USAGE, TENSOR_USAGE, USAGE } from '../usage.js';
import { TARGETS_PER_DISPATCH as TARGETS } from './shader.js';

// Rounds of every probe in turn, so a change of load hits them alike; the first warms up (pipelines,
// tables, bind groups) and is left out.
const ROUNDS = 6;
const BYTES = 1 << 20;

type Recording = (enc: GPUCommandEncoder) => void;

/** The device's costs as measured now, by the probes; rejects when the measurement fails. */
export async function measure(device: GPUDevice): Promise<CostModel> {
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
    const plans = probePlans();
    for (const gp of plans) if (gp.strategy === 'gather') await compile(device, gp);
    const { value: probes, error: made } = inScopes(device, () => recorders(device, pool, plans, b.src, b.dst));
    errors.push(made);
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
        await (querySet ? b.read.mapAsync(MAP_READ_MODE) : device.queue.onSubmittedWorkDone());
        const [t0, t1] = querySet ? new BigInt64Array(b.read.getMappedRange()) : [];
        if (r) rounds[i]!.push([performance.now() - t, querySet && Number(t1! - t0!) / 1e6]);
        if (querySet) b.read.unmap();
      }
    }
    for (const e of errors) if (await e) throw new Error(`a probe's commands failed: ${await e}`);
    const measured = costsFrom(rounds);
    if (!measured) throw new Error('no probe gave a usable timing');
    return measured;
  } finally {
    querySet?.destroy();
    pool.destroy();
  }
}

/** Each probe's split, planned as the planner plans it with its strategy forced. */
function probePlans(): GpuPlan[] {
  const limits = { alignment: 256, maxBindingBytes: BYTES, maxBufferBytes: BYTES, targetsPerDispatch: TARGETS };
  // Each probe's strategy is forced: no costs choose anything here.
  const key = { srcByteOffset: 0, allowAlias: false, separate: false, costs: COST_TABLES.gpu, into: undefined };
  return PROBES.map(([copy, rows, parts, piece]) => {
    const plan = planSplit('float32', [rows, (parts * piece) / 4], 1, Array<number>(parts).fill(piece / 4));
    return planGpu(plan, limits, { ...key, strategy: copy ? 'copy' : 'gather' });
  });
}

/** Each probe's recording (its pipeline compiled), and its batch's size. */
function recorders(device: GPUDevice, pool: BufferPool, plans: readonly GpuPlan[], src: GPUBuffer, dst: GPUBuffer) {
  const x = { buffer: src, byteOffset: 0 };
  return plans.map((gp, i): [Recording, number] => {
    const k = PROBES[i]![4];
    if (gp.strategy === 'copy') return [(enc) => encodeCopies(enc, gp, x, [dst], [0]), k];
    const table = makeTable(device, pool, gp);
    const pipeline = pipelineNow(device, gp);
    return [(enc) => void encodeGather(enc, gp, table, pipeline, x, [dst], [0]), k];
  });
}
