// Data types: the names the specs use, the host array each one travels in, and its width in bits
// on the GPU. The GPU path never interprets a value; it only needs widths (and, for uint1, the bit
// order), and whether the ONNX specs list it. This is the one dtype table: the bench, the demo and
// the tests import it (host-data.ts has the host arrays' types and byte conversions).

import { type SubjectKey, check, show } from './errors.js';

/**
 * Every element type Cleave splits: the ONNX names (Split and SplitToSequence list the first 16), OpenVINO's 8-bit
 * floats and its packed sub-byte types. In TypeScript a tensor's `dtype` must stay a literal: {@link tensor} keeps it
 * one, and so does `as const` on a tensor literal.
 */
export type DType =
  | 'float32'
  | 'float64'
  | 'float16'
  | 'bfloat16'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'bool'
  | 'string'
  | 'complex64'
  | 'complex128'
  | 'float8e4m3fn'
  | 'float8e5m2'
  | 'float8e8m0'
  | PackedDType;

/** OpenVINO's sub-byte types: one packed bit stream per tensor, value i at bits [i*w, i*w + w). */
export type PackedDType = 'int4' | 'uint4' | 'nf4' | 'float4e2m1' | 'uint1' | 'uint2' | 'uint3' | 'uint6';

/** Every dtype but `string`: the ones that have a fixed width and can live in a GPU buffer. */
export type FixedDType = Exclude<DType, 'string'>;

interface DTypeInfo {
  /** Bits per element on the GPU (0 for string). */
  readonly bits: number;
  /** Host array entries per element: 2 for complex (re, im), 1 otherwise; 0 for packed (bytes). */
  readonly lanes: number;
  /** Name of the host array class, the global of that name (Node's Buffer counts as a Uint8Array). */
  readonly array: string;
  /** Another class the host data may come in, where the runtime has it. */
  readonly also?: string;
  /** Listed by the ONNX specs of Split and SplitToSequence (else an OpenVINO type: VariadicSplit only). */
  readonly onnx: boolean;
}

const onnx = (bits: number, array: string, lanes = 1): DTypeInfo => ({ bits, lanes, array, onnx: true });
const openvino = (bits: number): DTypeInfo => ({ bits, lanes: 1, array: 'Uint8Array', onnx: false });
const packed = (bits: number): DTypeInfo => ({ bits, lanes: 0, array: 'Uint8Array', onnx: false });

const INFO: { readonly [D in DType]: DTypeInfo } = {
  float32: onnx(32, 'Float32Array'),
  float64: onnx(64, 'Float64Array'),
  float16: { ...onnx(16, 'Uint16Array'), also: 'Float16Array' },
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
  float8e4m3fn: openvino(8),
  float8e5m2: openvino(8),
  float8e8m0: openvino(8),
  int4: packed(4),
  uint4: packed(4),
  nf4: packed(4),
  float4e2m1: packed(4),
  uint1: packed(1),
  uint2: packed(2),
  uint3: packed(3),
  uint6: packed(6),
};

/** Every dtype, in the table's order. */
export const DTYPES = Object.keys(INFO) as readonly DType[];
// Each name below is in its own comment as code: TypeDoc escapes a heading's underscores (`ONNX\_DTYPES`), so a
// search of docs/api/ for the name would find nothing else.
/** `ONNX_DTYPES`: the 16 dtypes the ONNX specs of Split and SplitToSequence list; the others are OpenVINO's. */
export const ONNX_DTYPES: readonly DType[] = DTYPES.filter((d) => INFO[d].onnx);
/** `PACKED_DTYPES`: the sub-byte types ({@link PackedDType}), packed into bytes. */
export const PACKED_DTYPES = DTYPES.filter((d) => INFO[d].lanes === 0) as readonly PackedDType[];

export function isDType(x: unknown): x is DType {
  return typeof x === 'string' && Object.hasOwn(INFO, x);
}

// Other libraries' names (C's double, OpenVINO's boolean), case-folded, short prefixes spelled out (f16, fp16, i64,
// u8, bf16). A name of several meanings maps to each, all named: 'int' is 32 bits in C but 64 in NumPy, 'float' is
// ONNX's float32 but a JavaScript number's float64, and Cleave never guesses between them.
const ALIASES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  (
    'half:float16 double:float64 boolean:bool str:string float8e4m3:float8e4m3fn float:float32,float64 ' +
    'int:int32,int64 uint:uint32,uint64 complex:complex64,complex128 float8:float8e4m3fn,float8e5m2,float8e8m0'
  )
    .split(' ')
    .map((e) => [e.split(':')[0]!, e.split(':')[1]!.split(',')]),
);
const PREFIXES: Readonly<Record<string, string>> = { f: 'float', fp: 'float', bf: 'bfloat', u: 'uint', i: 'int' };

/** Refuses anything but a dtype (`BAD_DTYPE`), naming the dtypes it may mean and where the full list is. */
export function readDType(x: unknown, what: string, at: SubjectKey): asserts x is DType {
  const list = 'DTYPES, exported by cleave-gpu, lists every dtype';
  check(isDType(x), 'BAD_DTYPE', () => `${what}: unknown dtype ${show(x)}${nearest(x)}; ${list}`, at);
}

/** The dtypes a name may mean (its case folded, an alias: 'fp16', 'f32', 'int'), as " (did you mean ...?)", or ''. */
function nearest(x: unknown): string {
  const s = typeof x === 'string' ? x.toLowerCase().replace(/^(fp?|bf|u|i)(?=\d)/, (p) => PREFIXES[p]!) : '';
  const near = isDType(s) ? [s] : Object.hasOwn(ALIASES, s) ? ALIASES[s]! : [];
  return near.length ? ` (did you mean '${near.join("', '")}'?)`.replace(/, ('[^,]*)$/, ' or $1') : '';
}

/**
 * Whether a dtype is one of the packed sub-byte types.
 *
 * @param d - A dtype.
 * @returns True for {@link PackedDType}s, whose host data is a bit stream in bytes.
 */
export function isPacked(d: DType): d is PackedDType {
  return INFO[d].lanes === 0;
}

/**
 * Bits per element in a GPU buffer.
 *
 * @param d - A dtype (not `string`).
 * @returns The width in bits: 1 to 6 for packed types, 8 to 128 for the rest.
 */
export function elementBits(d: FixedDType): number {
  return INFO[d].bits;
}

/**
 * Whether a dtype packs its values from the high bit of each byte: uint1 puts its first value in bit 7 of byte 0
 * (OpenVINO's bit order); every other packed type starts at bit 0.
 *
 * @param d - A dtype.
 * @returns True for uint1 only.
 */
export function isMsbFirst(d: DType): boolean {
  return d === 'uint1';
}

/**
 * Bytes of `numel` elements in a GPU buffer: what a {@link GpuTensor}'s `byteLength` must be.
 *
 * @param d - A dtype (not `string`).
 * @param numel - The element count.
 * @returns ceil(numel * bits / 8).
 */
export function byteLengthOf(d: FixedDType, numel: number): number {
  return Math.ceil((numel * INFO[d].bits) / 8);
}

/**
 * Entries the host array of `numel` elements has: what a {@link HostTensor}'s `data.length` must be.
 *
 * @param d - A dtype.
 * @param numel - The element count.
 * @returns numel, 2 * numel for complex types, or the byte count for packed types.
 */
export function hostLength(d: DType, numel: number): number {
  const info = INFO[d];
  return info.lanes === 0 ? byteLengthOf(d as FixedDType, numel) : numel * info.lanes;
}

/**
 * The host array class a dtype's data travels in, by name (see {@link HostDataMap}).
 *
 * @param d - A dtype.
 * @returns Its class name, such as 'Float32Array', or 'string[]' for `string`.
 */
export function hostArrayName(d: DType): string {
  return d === 'string' ? 'string[]' : INFO[d].array;
}

/**
 * Every host array class a dtype's data may come in: its {@link hostArrayName}, and for float16 `Float16Array` too.
 */
export function hostArrayNames(d: DType): readonly string[] {
  const also = INFO[d].also;
  return also ? [hostArrayName(d), also] : [hostArrayName(d)];
}

/**
 * Reads one value of a packed sub-byte array.
 *
 * @param d - A packed dtype.
 * @param bytes - The packed data (a host tensor's `data`).
 * @param i - The value's index.
 * @returns Value i as the unsigned integer of its bits (uint1 reads MSB-first); 0 past the end of `bytes`.
 * @example
 * ```ts
 * import { packedValue } from 'cleave-gpu';
 *
 * const bytes = new Uint8Array([0x21, 0x03]); // uint4 [1, 2, 3]
 * console.log(packedValue('uint4', bytes, 1)); // 2
 * ```
 */
export function packedValue(d: PackedDType, bytes: Uint8Array, i: number): number {
  const w = INFO[d].bits;
  let v = 0;
  for (let b = 0; b < w; b++) v |= streamBit(bytes, i * w + b, isMsbFirst(d)) << b;
  return v;
}

/** Bit `k` of a packed stream (LSB-first, or MSB-first within each byte). */
function streamBit(bytes: Uint8Array, k: number, msbFirst: boolean): number {
  const lane = k % 8; // k may pass 2^32 (a 1 GiB tensor has 2^33 bits): no 32-bit bitwise arithmetic on it
  return ((bytes[(k - lane) / 8] ?? 0) >> (msbFirst ? 7 - lane : lane)) & 1;
}
