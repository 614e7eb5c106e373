// Data types: the names the specs use, the host array each one travels in, and the width of one
// element on the GPU. The GPU path never interprets a value; it only needs widths.

export type DType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'bool' | 'string' | 'complex64' | 'complex128';

/** Every dtype but `string`: the ones that have a fixed width and can live in a GPU buffer. */
export type FixedDType = Exclude<DType, 'string'>;

/** The host array that carries each dtype (row-major; complex interleaved re, im). */
export interface HostDataMap {
  float32: Float32Array;
  float64: Float64Array;
  float16: Uint16Array;   // raw IEEE binary16 bits
  bfloat16: Uint16Array;  // raw bfloat16 bits
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  bool: Uint8Array;       // 0 or 1
  string: string[];
  complex64: Float32Array;   // length 2 * numel
  complex128: Float64Array;  // length 2 * numel
}

export type HostData = HostDataMap[DType];
export type TypedArray = Exclude<HostData, string[]>;

interface DTypeInfo {
  /** Bytes per element on the GPU (0 for string). */
  readonly bytes: number;
  /** Host array entries per element: 2 for complex (re, im), else 1. */
  readonly lanes: number;
  /** Constructor of the host array. */
  readonly array: { new (buffer: ArrayBuffer, byteOffset: number, length: number): TypedArray; readonly BYTES_PER_ELEMENT: number; readonly name: string } | typeof Array;
}

const INFO: { readonly [D in DType]: DTypeInfo } = {
  float32: { bytes: 4, lanes: 1, array: Float32Array },
  float64: { bytes: 8, lanes: 1, array: Float64Array },
  float16: { bytes: 2, lanes: 1, array: Uint16Array },
  bfloat16: { bytes: 2, lanes: 1, array: Uint16Array },
  int8: { bytes: 1, lanes: 1, array: Int8Array },
  uint8: { bytes: 1, lanes: 1, array: Uint8Array },
  int16: { bytes: 2, lanes: 1, array: Int16Array },
  uint16: { bytes: 2, lanes: 1, array: Uint16Array },
  int32: { bytes: 4, lanes: 1, array: Int32Array },
  uint32: { bytes: 4, lanes: 1, array: Uint32Array },
  int64: { bytes: 8, lanes: 1, array: BigInt64Array },
  uint64: { bytes: 8, lanes: 1, array: BigUint64Array },
  bool: { bytes: 1, lanes: 1, array: Uint8Array },
  string: { bytes: 0, lanes: 1, array: Array },
  complex64: { bytes: 8, lanes: 2, array: Float32Array },
  complex128: { bytes: 16, lanes: 2, array: Float64Array },
};

export const DTYPES = Object.keys(INFO) as readonly DType[];

export function isDType(x: unknown): x is DType {
  return typeof x === 'string' && Object.hasOwn(INFO, x);
}

export function isFixedDType(d: DType): d is FixedDType {
  return d !== 'string';
}

/** Bytes per element in a GPU buffer. */
export function elementBytes(d: FixedDType): number {
  return INFO[d].bytes;
}

/** Host array entries per element. */
export function lanes(d: DType): number {
  return INFO[d].lanes;
}

/** Whether `data` is the host array class the dtype travels in. */
export function isHostDataOf(d: DType, data: unknown): boolean {
  const ctor = INFO[d].array;
  if (ctor === Array) return Array.isArray(data) && data.every((s) => typeof s === 'string');
  return data instanceof ctor && data.constructor === ctor;
}

export function hostArrayName(d: DType): string {
  return d === 'string' ? 'string[]' : INFO[d].array.name;
}

/** A view of the given bytes as the dtype's host array (copied so the result owns its memory). */
export function hostDataFromBytes<D extends FixedDType>(d: D, bytes: Uint8Array): HostDataMap[D] {
  const ctor = INFO[d].array as new (b: ArrayBuffer, o: number, l: number) => TypedArray;
  const owned = bytes.slice();
  return new ctor(owned.buffer, 0, (owned.byteLength / elementBytes(d)) * lanes(d)) as HostDataMap[D];
}

/** The bytes of a host typed array, without copying. */
export function bytesOf(data: TypedArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** IEEE binary16 bits (how float16 host data travels) to a number. */
export function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}
