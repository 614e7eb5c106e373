// WebGPU's buffer usage and map mode flags as plain numbers (their values are fixed by the spec),
// so Cleave runs on a device a caller made in Node without the `webgpu` package's globals installed,
// and the check that a caller's buffer allows what a split does with it.

export const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
export const MAP_READ_MODE = 0x1;
export const COMPUTE_STAGE = 0x4;

/** Outputs and uploads: bindable as storage, copyable both ways (what ONNX Runtime's WebGPU EP asks of a buffer). */
export const TENSOR_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;
export const STAGING_USAGE = USAGE.MAP_READ | USAGE.COPY_DST;

/** Which of `flags` a buffer's usage lacks (empty when it has them all), for messages that name them. */
export function missingUsage(usage: number, flags: readonly (keyof typeof USAGE)[]): string[] {
  return flags.filter((f) => (usage & USAGE[f]) === 0);
}
