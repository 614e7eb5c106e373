// The planner's cost model: what copy commands and the gather cost on a device, the fixed tables a device's adapter
// chooses (a hardware GPU, a software one), and the comparison that picks the cheaper strategy.

/**
 * A device's costs in ns of the caller's wall time, which the planner weighs to choose between copies and the gather.
 * What every split pays (its submit) is left out: only what one strategy costs beyond the other counts. An engine
 * plans with the fixed table its adapter chooses, the costs it was created with, or the costs
 * `engine.calibrate()` measured; never with a measurement it started on its own.
 */
export interface CostModel {
  /** One copy command: recording it and running it. */
  readonly copyCommandNs: number;
  /** One gather dispatch: recording it and running it, past the bytes it moves. */
  readonly dispatchNs: number;
  /** Each byte a copy command moves. */
  readonly copyByteNs: number;
  /** Each byte the gather moves. */
  readonly gatherByteNs: number;
}

/**
 * The fixed tables, each from `engine.calibrate()`'s measurements. `gpu`: a hardware GPU, as measured on an NVIDIA
 * H100 (Dawn, Vulkan): copies win for a few contiguous chunks and for rows past about 190 kB, the gather for the rest.
 * `software`: a CPU adapter (SwiftShader, llvmpipe, WARP), as measured on SwiftShader on 2 cores (a copy command
 * 1.4 µs, a dispatch 40-500 µs, copies 0.02 ns and the gather 1.4-4 ns a byte): copies win for contiguous chunks and
 * for rows past about 1.2 kB, the gather for shorter rows.
 */
export const COST_TABLES = {
  gpu: { copyCommandNs: 5540, dispatchNs: 17800, copyByteNs: 0.001, gatherByteNs: 0.035 },
  software: { copyCommandNs: 1500, dispatchNs: 60000, copyByteNs: 0.02, gatherByteNs: 1.5 },
} as const satisfies Record<string, CostModel>;

/** What an adapter says of itself (GPUAdapterInfo's fields, each optional). */
export interface AdapterFacts {
  readonly vendor?: string;
  readonly architecture?: string;
  readonly device?: string;
  readonly description?: string;
  readonly isFallbackAdapter?: boolean;
}

/** The table for an adapter: `software` for a fallback adapter or a known CPU implementation, else `gpu`. */
export function costTableFor(info: AdapterFacts | undefined): CostModel {
  const text = `${info?.vendor} ${info?.architecture} ${info?.device} ${info?.description}`;
  return info?.isFallbackAdapter === true || /swiftshader|llvmpipe|lavapipe|softpipe|\bwarp\b|\bsoftware\b/i.test(text)
    ? COST_TABLES.software
    : COST_TABLES.gpu;
}

/**
 * How much cheaper row copies must be before strided rows leave the gather: near the break-even the two cost about the
 * same; the gather loses at most this much where copies are truly cheaper.
 */
const ROW_COPY_MARGIN = 1.15;

/**
 * Whether copy commands cost less than the gather. Contiguous chunks: `commands` commands moving `bytes` against the
 * gather's `dispatches` dispatches moving them. Strided chunks (a command per row): every row's command against the
 * gather of its bytes, the shortest row (`rowBytes`) deciding, so the plan never depends on the number of rows (a batch
 * size), and row copies must win by ROW_COPY_MARGIN.
 */
export function copyCheaper(c: CostModel, commands: number, bytes: number, dispatches: number, rowBytes?: number) {
  return rowBytes === undefined
    ? commands * c.copyCommandNs + bytes * c.copyByteNs < dispatches * c.dispatchNs + bytes * c.gatherByteNs
    : (c.copyCommandNs + rowBytes * c.copyByteNs) * ROW_COPY_MARGIN < rowBytes * c.gatherByteNs;
}
