// The planner's cost model: what copy commands and the gather cost on a device, the costs used
// before (or without) a measurement, and the comparison that picks the cheaper strategy.

/**
 * A device's costs in ns, measured once per device (gpu/calibrate.ts; DEFAULT_COSTS until then):
 * per copy command and per gather dispatch (encoding and running it), and per byte each moves.
 */
export interface CostModel {
  /** Nanoseconds per copy command, encoding and running it. */
  readonly copyCommandNs: number;
  /** Nanoseconds per gather dispatch, encoding and running it. */
  readonly dispatchNs: number;
  /** Nanoseconds per byte a copy command moves. */
  readonly copyByteNs: number;
  /** Nanoseconds per byte the gather moves. */
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
 * Whether copy commands cost less than the gather. Contiguous chunks: `commands` commands moving
 * `bytes` against one dispatch moving them. Strided chunks (a command per row): every row's command
 * against the gather of its bytes, the shortest row (`rowBytes`) deciding, so the plan never
 * depends on the number of rows (a batch size).
 */
export function copyCheaper(c: CostModel, commands: number, bytes: number, rowBytes?: number): boolean {
  return rowBytes === undefined
    ? commands * c.copyCommandNs + bytes * c.copyByteNs < c.dispatchNs + bytes * c.gatherByteNs
    : c.copyCommandNs + rowBytes * c.copyByteNs < rowBytes * c.gatherByteNs;
}
