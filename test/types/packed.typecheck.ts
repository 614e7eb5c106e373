// Compile-time tier for the 11 OpenVINO-only dtypes: their host data is a Uint8Array of
// packed bytes and nothing else; outputs keep the dtype. Checked by `npm run typecheck`: each
// expected-error directive below fails the build if the line after it ever compiles.
import type {
  DType,
  FixedDType,
  GpuTensor,
  HostDataMap,
  HostTensor,
  PackedDType,
  SplitEngine,
} from '../../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T => true as T;

type OvType =
  | 'float8e4m3fn'
  | 'float8e5m2'
  | 'float8e8m0'
  | 'int4'
  | 'uint4'
  | 'nf4'
  | 'float4e2m1'
  | 'uint1'
  | 'uint2'
  | 'uint3'
  | 'uint6';

// Every one of them is a dtype that can live on the GPU, carried in exactly a Uint8Array.
assertType<OvType extends DType ? true : false>();
assertType<OvType extends FixedDType ? true : false>();
assertType<Equal<HostDataMap[OvType], Uint8Array>>();
assertType<Equal<PackedDType, 'int4' | 'uint4' | 'nf4' | 'float4e2m1' | 'uint1' | 'uint2' | 'uint3' | 'uint6'>>();

const bytes = new Uint8Array(2);

// One accepted assignment per type (Node's Buffer is a Uint8Array).
export const accepted: { [D in OvType]: HostTensor<D> } = {
  float8e4m3fn: { dtype: 'float8e4m3fn', shape: [2], data: bytes },
  float8e5m2: { dtype: 'float8e5m2', shape: [2], data: bytes },
  float8e8m0: { dtype: 'float8e8m0', shape: [2], data: bytes },
  int4: { dtype: 'int4', shape: [4], data: bytes },
  uint4: { dtype: 'uint4', shape: [4], data: Buffer.alloc(2) },
  nf4: { dtype: 'nf4', shape: [4], data: bytes },
  float4e2m1: { dtype: 'float4e2m1', shape: [4], data: bytes },
  uint1: { dtype: 'uint1', shape: [16], data: bytes },
  uint2: { dtype: 'uint2', shape: [8], data: bytes },
  uint3: { dtype: 'uint3', shape: [5], data: bytes },
  uint6: { dtype: 'uint6', shape: [2], data: bytes },
};

export function wrongArrays(): void {
  // @ts-expect-error uint4 is packed bytes, not a Uint16Array
  const a: HostTensor<'uint4'> = { dtype: 'uint4', shape: [4], data: new Uint16Array(2) };
  // @ts-expect-error uint4 is packed bytes, not an Int8Array
  const b: HostTensor<'uint4'> = { dtype: 'uint4', shape: [4], data: new Int8Array(2) };
  // @ts-expect-error uint4 is packed bytes, not a Uint8ClampedArray
  const c: HostTensor<'uint4'> = { dtype: 'uint4', shape: [4], data: new Uint8ClampedArray(2) };
  // @ts-expect-error uint4 is packed bytes, not a plain array of values
  const d: HostTensor<'uint4'> = { dtype: 'uint4', shape: [4], data: [1, 2, 3, 4] };
  // @ts-expect-error int4 is packed bytes, not an Int8Array of values
  const e: HostTensor<'int4'> = { dtype: 'int4', shape: [2], data: new Int8Array(2) };
  // @ts-expect-error nf4 is packed bytes, not a Float32Array
  const f: HostTensor<'nf4'> = { dtype: 'nf4', shape: [2], data: new Float32Array(2) };
  // @ts-expect-error float4e2m1 is packed bytes, not a Float32Array
  const g: HostTensor<'float4e2m1'> = { dtype: 'float4e2m1', shape: [2], data: new Float32Array(2) };
  // @ts-expect-error uint1 is packed bytes, not a Uint16Array
  const h: HostTensor<'uint1'> = { dtype: 'uint1', shape: [16], data: new Uint16Array(1) };
  // @ts-expect-error uint1 is not bool: no plain array of booleans
  const i: HostTensor<'uint1'> = { dtype: 'uint1', shape: [2], data: [true, false] };
  // @ts-expect-error uint2 is packed bytes, not an Int16Array
  const j: HostTensor<'uint2'> = { dtype: 'uint2', shape: [8], data: new Int16Array(1) };
  // @ts-expect-error uint3 is packed bytes, not a Uint32Array
  const k: HostTensor<'uint3'> = { dtype: 'uint3', shape: [5], data: new Uint32Array(1) };
  // @ts-expect-error uint6 is packed bytes, not a Uint16Array
  const l: HostTensor<'uint6'> = { dtype: 'uint6', shape: [2], data: new Uint16Array(1) };
  // @ts-expect-error float8e4m3fn is one byte in a Uint8Array, not an Int8Array
  const m: HostTensor<'float8e4m3fn'> = { dtype: 'float8e4m3fn', shape: [2], data: new Int8Array(2) };
  // @ts-expect-error float8e5m2 is one byte in a Uint8Array, not a Uint16Array
  const n: HostTensor<'float8e5m2'> = { dtype: 'float8e5m2', shape: [2], data: new Uint16Array(2) };
  // @ts-expect-error float8e8m0 is one byte in a Uint8Array, not a Float32Array
  const o: HostTensor<'float8e8m0'> = { dtype: 'float8e8m0', shape: [2], data: new Float32Array(2) };
  // The union type checks the pairing too.
  // @ts-expect-error uint4 with an Int8Array is no HostTensor at all
  const p: HostTensor = { dtype: 'uint4', shape: [4], data: new Int8Array(2) };
  // @ts-expect-error a uint4 tensor is not an int4 tensor
  const q: HostTensor<'int4'> = accepted.uint4;
  // @ts-expect-error no such dtype (OpenVINO's short names are not Cleave's)
  const r: HostTensor = { dtype: 'u4', shape: [4], data: bytes };
  // @ts-expect-error float8e4m3 without 'fn' is not a dtype
  const s: HostTensor = { dtype: 'float8e4m3', shape: [2], data: bytes };
  void [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s];
}

export async function outputsKeepTheType(engine: SplitEngine): Promise<void> {
  const x = accepted.uint4;
  const host: HostTensor<'uint4'>[] = await engine.split(x, { axis: 0, sizes: [1, 3] });
  const data: Uint8Array = host[0]!.data;
  // @ts-expect-error outputs of a uint4 split are uint4, not int4
  const wrongHost: HostTensor<'int4'>[] = await engine.split(x, { axis: 0, sizes: [1, 3] });
  // @ts-expect-error packed data is not a Uint16Array
  const wrongData: Uint16Array = host[0]!.data;

  const gx: GpuTensor<'uint1'> = engine.upload(accepted.uint1);
  const onGpu: GpuTensor<'uint1'>[] = await engine.split(gx, { parts: 3, layout: 'separate' });
  const back: HostTensor<'uint1'> = await engine.download(onGpu[0]!);
  // @ts-expect-error a GPU input gives GPU outputs
  const notHost: HostTensor<'uint1'>[] = await engine.split(gx, { parts: 3 });
  // @ts-expect-error an uploaded uint6 tensor is not a uint3 one
  const wrongGpu: GpuTensor<'uint3'> = engine.upload(accepted.uint6);
  const encoded: GpuTensor<'nf4'>[] = engine.encodeSplit({} as GPUCommandEncoder, engine.upload(accepted.nf4), {
    sizes: [4],
  });
  void [data, wrongHost, wrongData, back, notHost, wrongGpu, encoded];
}
