// Compile-time tier for GPU tensors made without `as const`: `gpuTensor(dtype, buffer, shape,
// byteOffset, strides)` keeps the dtype a literal, and what it makes is both a split's input
// (GpuTensor) and a place to write an output at (`into`); a mismatched dtype fails to compile.
// Imported from cleave-gpu/core, which has the same first steps as cleave-gpu: tensor(), gpuTensor()
// and the float16 / bfloat16 conversions. Checked by `npm run typecheck`: each expected-error
// directive fails the build if the line after it ever compiles.
import {
  type CoreSplitEngine,
  type GpuTensor,
  type HostTensor,
  type Into,
  bfloat16ToNumber,
  bfloat16sFrom,
  gpuTensor,
  halfToNumber,
  halvesFrom,
  numberToBfloat16,
  numberToHalf,
  tensor,
} from '../../src/core.js';

export async function withoutAsConst(engine: CoreSplitEngine, buffer: GPUBuffer): Promise<void> {
  const x = gpuTensor('float32', buffer, [2, 6]);
  const input: GpuTensor<'float32'> = x;
  const slot = gpuTensor('float32', buffer, [2, 3], 12, [6, 1]);
  const place: Into<'float32'> = slot;
  const outs: GpuTensor<'float32'>[] = await engine.split(x, { axis: 1, parts: 2, into: [undefined, slot] });
  const back: Float32Array = (await engine.download(gpuTensor('float32', buffer, [2, 6]))).data;
  const packed: GpuTensor<'uint4'> = gpuTensor('uint4', buffer, [3]);
  // @ts-expect-error a destination's dtype is the input's
  await engine.split(x, { axis: 1, parts: 2, into: [gpuTensor('int32', buffer, [2, 3]), undefined] });
  // @ts-expect-error a GPU tensor's dtype stays its own
  const wrong: GpuTensor<'int32'> = x;
  // @ts-expect-error string tensors cannot live on the GPU
  gpuTensor('string', buffer, [2]);
  // @ts-expect-error no such dtype
  gpuTensor('float8', buffer, [1]);
  // @ts-expect-error a dtype widened to string
  gpuTensor('float32' as string, buffer, [2]);
  // @ts-expect-error the buffer is a GPUBuffer
  gpuTensor('float32', new ArrayBuffer(8), [2]);
  void [input, place, outs, back, packed, wrong];
}

export function firstSteps(): void {
  const h: HostTensor<'float16'> = tensor('float16', halvesFrom([1, -2]), [2]);
  const b: HostTensor<'bfloat16'> = tensor('bfloat16', bfloat16sFrom([1, -3]), [2]);
  const n: number = halfToNumber(numberToHalf(1)) + bfloat16ToNumber(numberToBfloat16(1));
  // @ts-expect-error float32 data is a Float32Array
  tensor('float32', new Int32Array(2), [2]);
  void [h, b, n];
}
