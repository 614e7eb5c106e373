// The tests' own dtype table: widths in bits and the host array class of every dtype, written from
// the specs (not read from src/dtype.ts, which is what it checks). Imports nothing from src/.
//
// ONNX Split / SplitToSequence (/work/shared/spec/onnx-Split-all-versions.txt, "T in (...)"):
// bfloat16, bool, complex128, complex64, double, float, float16, int8..int64, uint8..uint64 and
// string, at the widths ONNX's TensorProto gives them (bool one byte, complex a pair of floats).
// OpenVINO VariadicSplit-1 ("T1: any arbitrary supported type"): its element types add f8e4m3,
// f8e5m2, f8e8m0 (one byte) and the packed sub-byte i4, u4, nf4, f4e2m1 (4 bits), u1, u2, u3 and u6.

/** The name of a host array class ('Array' for strings). */
export type ArrayClass = string;

export interface RefType {
  /** Bits of one element (0: a string has no fixed width). */
  readonly bits: number;
  /** The host array class that carries it ('Array' of strings). */
  readonly array: ArrayClass;
  /** Host array entries per element: 2 for complex (re, im), 0 for packed (the array holds bytes). */
  readonly lanes: number;
  /** One of the 16 types the ONNX specs list (the others are OpenVINO's). */
  readonly onnx: boolean;
}

const onnx = (bits: number, array: ArrayClass, lanes = 1): RefType => ({ bits, array, lanes, onnx: true });
const ov = (bits: number): RefType => ({ bits, array: 'Uint8Array', lanes: bits < 8 ? 0 : 1, onnx: false });

export const REF_TYPES = {
  float32: onnx(32, 'Float32Array'), // ONNX "float"
  float64: onnx(64, 'Float64Array'), // ONNX "double"
  float16: onnx(16, 'Uint16Array'), // raw binary16 bits
  bfloat16: onnx(16, 'Uint16Array'),
  int8: onnx(8, 'Int8Array'),
  uint8: onnx(8, 'Uint8Array'),
  int16: onnx(16, 'Int16Array'),
  uint16: onnx(16, 'Uint16Array'),
  int32: onnx(32, 'Int32Array'),
  uint32: onnx(32, 'Uint32Array'),
  int64: onnx(64, 'BigInt64Array'),
  uint64: onnx(64, 'BigUint64Array'),
  bool: onnx(8, 'Uint8Array'),
  string: onnx(0, 'Array'),
  complex64: onnx(64, 'Float32Array', 2),
  complex128: onnx(128, 'Float64Array', 2),
  float8e4m3fn: ov(8),
  float8e5m2: ov(8),
  float8e8m0: ov(8),
  int4: ov(4),
  uint4: ov(4),
  nf4: ov(4),
  float4e2m1: ov(4),
  uint1: ov(1),
  uint2: ov(2),
  uint3: ov(3),
  uint6: ov(6),
} as const satisfies Record<string, RefType>;

export type RefDType = keyof typeof REF_TYPES;
export const REF_DTYPES = Object.keys(REF_TYPES) as readonly RefDType[];
export const ONNX_REF_DTYPES = REF_DTYPES.filter((d) => REF_TYPES[d].onnx);
/** Every dtype but string: the ones a GPU buffer holds. */
export const FIXED_REF_DTYPES = REF_DTYPES.filter((d) => d !== 'string');

export const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
/** A buffer size for n bytes: a multiple of 4, at least 4. */
export const align4 = (n: number) => Math.max(4, Math.ceil(n / 4) * 4);

/** Bytes of n elements (packed types: ceil(n * bits / 8)). */
export const refByteLength = (d: RefDType, n: number) => Math.ceil((n * REF_TYPES[d].bits) / 8);

/** Entries of the host array of n elements: n, 2n for complex, the bytes for packed types. */
export const refHostLength = (d: RefDType, n: number) =>
  REF_TYPES[d].lanes === 0 ? refByteLength(d, n) : n * REF_TYPES[d].lanes;

/** WebGPU's STORAGE | COPY_SRC | COPY_DST (the GPUBufferUsage global exists only once a device is made). */
export const TENSOR_USAGE = 0x80 | 0x4 | 0x8;
