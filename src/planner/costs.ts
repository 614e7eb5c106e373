// The planner's cost model: what copy commands and the gather cost on a device, the costs used
// before (or without) a measurement, and the comparison that picks the cheaper strategy.

/**
 * A device's costs in ns of the caller's wall time, which the planner weighs to choose between copies and the gather:
 * defaults until measured, once per device, after an engine's first split or at `engine.calibrate()`. What every
 * split pays (its submit) is left out: only what one strategy costs beyond the other counts.
 */
export interface CostModel {
  /** One copy command: recording it and running it. */
  readonly copyCommandNs: number;
  /** The gather's one dispatch: recording its pass and running it, past the bytes it moves. */
  readonly dispatchNs: number;
  /** Each byte a copy command moves. */
  readonly copyByteNs: number;
  /** Each byte the gather moves. */
  readonly gatherByteNs: number;
}

/**
 * Costs before (or without) a measurement, which choose copy commands for at most 16 contiguous
 * chunks (a dispatch costs 16.5 commands) and the gather for strided chunks (the same cost per
 * byte, so row copies never win).
 */
export const DEFAULT_COSTS: CostModel = {
  copyCommandNs: 2000,
  dispatchNs: 33000,
  copyByteNs: 0.01,
  gatherByteNs: 0.01,
};

/**
 * How much cheaper row copies must measure before strided rows leave the gather: near the
 * break-even the two cost about the same, and a measurement's noise would flip the plan from one
 * process to the next; the gather loses at most this much where copies are truly cheaper.
 */
const ROW_COPY_MARGIN = 1.15;

/**
 * Whether copy commands cost less than the gather. Contiguous chunks: `commands` commands moving
 * `bytes` against `dispatches` dispatches moving them (one, or one per output buffer with layout
 * 'separate'). Strided chunks (a command per row): every row's command against the gather of its
 * bytes, the shortest row (`rowBytes`) deciding, so the plan never depends on the number of rows (a
 * batch size), and row copies must win by ROW_COPY_MARGIN.
 */
export function copyCheaper(c: CostModel, commands: number, bytes: number, rowBytes?: number, dispatches = 1): boolean {
  return rowBytes === undefined
    ? commands * c.copyCommandNs + bytes * c.copyByteNs < dispatches * c.dispatchNs + bytes * c.gatherByteNs
    : (c.copyCommandNs + rowBytes * c.copyByteNs) * ROW_COPY_MARGIN < rowBytes * c.gatherByteNs;
}
