// Compile-time tier: wrong calls must fail to compile. Checked by `npm run typecheck` (part of
// `npm test`); each @ts-expect-error fails the build if the line below it ever compiles.
import {
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  type SplitError,
  createSplitEngine,
} from '../../src/index.js';

export async function typeChecks(engine: SplitEngine): Promise<void> {
  // @ts-expect-error int64 data travels in a BigInt64Array
  const wrongData: HostTensor = { dtype: 'int64', shape: [2], data: new Int32Array(2) };
  // @ts-expect-error float16 is raw bits in a Uint16Array, not a Float32Array
  const wrongHalf: HostTensor<'float16'> = { dtype: 'float16', shape: [1], data: new Float32Array(1) };
  // @ts-expect-error no such dtype
  const unknown: HostTensor = { dtype: 'float8', shape: [1], data: new Uint8Array(1) };
  void wrongData;
  void wrongHalf;
  void unknown;

  const x: HostTensor<'float32'> = { dtype: 'float32', shape: [4], data: new Float32Array(4) };
  // @ts-expect-error sizes and parts exclude each other
  await engine.split(x, { sizes: [2, 2], parts: 2 });
  // @ts-expect-error options are required
  await engine.split(x);

  // Outputs live where the input lived, and keep its dtype.
  const host: HostTensor<'float32'>[] = await engine.split(x, { axis: 0, parts: 2 });
  const gx: GpuTensor<'float32'> = engine.upload(x);
  // `into`: a destination of another dtype, or a buffer that is not one, fails to compile.
  const buffer = gx.buffer;
  const slot = { dtype: 'float32', shape: [2], buffer, byteOffset: 0, strides: [1] } as const;
  await engine.split(gx, { axis: 0, parts: 2, into: [undefined, slot] });
  // @ts-expect-error a destination's dtype is the input's
  await engine.split(gx, { axis: 0, parts: 2, into: [{ ...slot, dtype: 'int32' }, undefined] });
  // @ts-expect-error a destination's buffer is a GPUBuffer
  await engine.split(gx, { axis: 0, parts: 2, into: [{ ...slot, buffer: new ArrayBuffer(8) }, undefined] });
  // @ts-expect-error host inputs take no destinations (host in, host out)
  await engine.split(x, { axis: 0, parts: 2, into: [undefined, slot] });
  const onGpu: GpuTensor<'float32'>[] = await engine.split(gx, { parts: 2 });
  // @ts-expect-error GPU input gives GPU outputs, not host tensors
  const notHost: HostTensor[] = await engine.split(gx, { parts: 2 });
  // @ts-expect-error strings cannot be uploaded
  engine.upload({ dtype: 'string', shape: [1], data: ['a'] });
  // @ts-expect-error a GPU tensor has no string dtype
  const s: GpuTensor<'string'> = onGpu[0]!;
  void host;
  void notHost;
  void s;

  // @ts-expect-error backend is one of 'auto' | 'webgpu' | 'cpu'
  await createSplitEngine({ backend: 'webgl' });
  const late: SplitError[] = [];
  const heard = await createSplitEngine({ onLateError: (e) => late.push(e) });
  const errors: readonly SplitError[] = heard.lateErrors;
  const cleared: SplitError[] = heard.acknowledge();
  // @ts-expect-error lateErrors is read-only: acknowledge() clears it
  heard.lateErrors = [];
  // @ts-expect-error onLateError takes a function of a SplitError
  await createSplitEngine({ onLateError: true });
  void errors;
  void cleared;
}

export async function runIsTypedByItsDataInput(engine: SplitEngine): Promise<void> {
  const x: HostTensor<'uint4'> = { dtype: 'uint4', shape: [4], data: new Uint8Array(2) };
  const outs: HostTensor<'uint4'>[] = await engine.run({ op: 'VariadicSplit', inputs: [x, axis0, halves] });
  const gx: GpuTensor<'float32'> = engine.upload({ dtype: 'float32', shape: [4], data: new Float32Array(4) });
  const onGpu: GpuTensor<'float32'>[] = await engine.run({ op: 'Split', inputs: [gx], attrs: { num_outputs: 2 } });
  // @ts-expect-error a uint4 input gives uint4 outputs
  const wrong: HostTensor<'float32'>[] = await engine.run({ op: 'VariadicSplit', inputs: [x, axis0, halves] });
  // @ts-expect-error a host tensor's dtype must be a literal: `as const`, or a HostTensor<'float32'> annotation
  await engine.split({ dtype: 'float32' as string, shape: [4], data: new Float32Array(4) }, { parts: 2 });
  // @ts-expect-error data of a float32 tensor is a Float32Array, not a number[]
  await engine.split({ dtype: 'float32', shape: [2], data: [1, 2] }, { parts: 2 });
  void outs;
  void onGpu;
  void wrong;
}
const axis0: HostTensor<'int64'> = { dtype: 'int64', shape: [], data: new BigInt64Array([0n]) };
const halves: HostTensor<'int64'> = { dtype: 'int64', shape: [2], data: new BigInt64Array([2n, 2n]) };
