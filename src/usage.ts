// WebGPU's buffer usage and map mode flags as plain numbers (their values are fixed by the spec),
// so Cleave runs on a device a caller made in Node without the `webgpu` package's globals installed,
// and the check that a caller's buffer allows what a split does with it.

import { check } from './errors.js';

export const USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const;
export const MAP_READ_MODE = 0x1;
export const COMPUTE_STAGE = 0x4;

/** Outputs and uploads: bindable as storage, copyable both ways (what ONNX Runtime's WebGPU EP asks of a buffer). */
export const TENSOR_USAGE = USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST;
export const STAGING_USAGE = USAGE.MAP_READ | USAGE.COPY_DST;

/** Which of `flags` a buffer's usage lacks (empty when it has them all), for messages that name them. */
export function missingUsage(b: GPUBuffer, flags: readonly (keyof typeof USAGE)[]): string[] {
  return flags.filter((f) => (b.usage & USAGE[f]) === 0);
}

/** A caller's buffer must allow what the plan does with it: refused before any GPU work. */
export function requireUsage(b: GPUBuffer, flag: number, name: string, what: string): void {
  check(
    (b.usage & flag) !== 0,
    'BAD_INPUT',
    () => `${what}: the input's GPU buffer needs usage ${name}`,
    'input:input.buffer',
  );
  check(
    b.mapState === 'unmapped',
    'BAD_INPUT',
    () => `${what}: the input's GPU buffer is ${b.mapState}; unmap it first`,
    'input:input.buffer',
  );
}
