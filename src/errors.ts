// The one error class Cleave throws. Every check runs on the CPU before any GPU work, so a
// SplitError never leaves half-done work on the device. `code` is stable; the message names the
// operation, the rule broken and the values involved.

export type SplitErrorCode =
  | 'BAD_DTYPE'          // dtype unknown, or not allowed here (operator version, GPU path)
  | 'DATA_TYPE'          // host data array of the wrong class for the dtype
  | 'DATA_LENGTH'        // host data length does not match the shape
  | 'BAD_SHAPE'          // a dimension that is negative, fractional or unsafe
  | 'RANK'               // rank-0 data where an axis is needed
  | 'AXIS_RANGE'         // axis outside [-rank, rank-1]
  | 'BAD_SIZE'           // a split length that is negative or not an integer
  | 'SIZE_SUM'           // split lengths that do not add up to the axis length
  | 'BAD_PARTS'          // a part count below 1 or fractional
  | 'NOT_DIVISIBLE'      // equal split required but the axis does not divide
  | 'BAD_OPTIONS'        // both or neither of two exclusive arguments, or an unknown one
  | 'BAD_INPUT'          // an operator input of the wrong shape, dtype or presence
  | 'BAD_ATTRIBUTE'      // an attribute the operator version does not have or allow
  | 'BAD_OPSET'          // an opset that is not an integer >= 1, or before the operator existed
  | 'OUTPUT_COUNT'       // declared output count disagrees with the split
  | 'TOO_LARGE'          // beyond what the GPU path can address or allocate
  | 'NO_WEBGPU'          // WebGPU asked for but no adapter or device
  | 'WRONG_BACKEND'      // a GPU tensor given to a CPU engine, or a string tensor to the GPU
  | 'RELEASED'           // a GPU tensor used after release or after destroy
  | 'DEVICE_LOST'        // the device is gone
  | 'GPU_ERROR';         // the device reported an error Cleave did not expect

export class SplitError extends Error {
  override readonly name = 'SplitError';
  constructor(
    readonly code: SplitErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Throws a SplitError when `ok` is false; `message` is built only on failure. */
export function check(ok: boolean, code: SplitErrorCode, message: () => string): asserts ok {
  if (!ok) throw new SplitError(code, message());
}
