// Case generation in the style of the WebGPU CTS params builder (combine / expand / filter over
// named parameters, not a full product), seeded random tensors, and an index-by-index reference
// split that shares no code with either executor.

import { type DType, type HostTensor, DTYPES } from '../../src/index.js';

type Params = Record<string, unknown>;

/** A tiny CTS-style builder: each step maps the list of parameter records to a new list. */
export class Cases<P extends Params> {
  private constructor(private readonly list: readonly P[]) {}
  static start(): Cases<{}> { return new Cases([{}]); }
  combine<K extends string, V>(key: K, values: readonly V[]): Cases<P & { [_ in K]: V }> {
    return new Cases(this.list.flatMap((p) => values.map((v) => ({ ...p, [key]: v }) as P & { [_ in K]: V })));
  }
  expand<K extends string, V>(key: K, f: (p: P) => readonly V[]): Cases<P & { [_ in K]: V }> {
    return new Cases(this.list.flatMap((p) => f(p).map((v) => ({ ...p, [key]: v }) as P & { [_ in K]: V })));
  }
  filter(f: (p: P) => boolean): Cases<P> { return new Cases(this.list.filter(f)); }
  get all(): readonly P[] { return this.list; }
}

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', 'héllo', '日本語', '🙂 emoji', 'tab\there', 'x'.repeat(40)];

/** A tensor of `dtype` and `shape` with random bits (all bit patterns: NaN payloads, -0, Inf). */
export function randomTensor(dtype: DType, shape: readonly number[], next: () => number): HostTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  if (dtype === 'string') {
    return { dtype, shape, data: Array.from({ length: n }, (_, i) => `${STRINGS[Math.floor(next() * STRINGS.length)]}#${i}`) };
  }
  const bytes = bytesPerEntry(dtype) * n * (dtype.startsWith('complex') ? 2 : 1);
  const raw = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) raw[i] = Math.floor(next() * 256);
  if (dtype === 'bool') for (let i = 0; i < bytes; i++) raw[i]! &= 1;
  return { dtype, shape, data: fromBytes(dtype, raw) } as HostTensor;
}

function bytesPerEntry(d: DType): number {
  switch (d) {
    case 'int8': case 'uint8': case 'bool': return 1;
    case 'float16': case 'bfloat16': case 'int16': case 'uint16': return 2;
    case 'float32': case 'int32': case 'uint32': case 'complex64': return 4;
    default: return 8;
  }
}

const ARRAYS: Record<Exclude<DType, 'string'>, new (b: ArrayBuffer) => ArrayLike<unknown>> = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
  complex64: Float32Array, complex128: Float64Array,
};

function fromBytes(d: Exclude<DType, 'string'>, raw: Uint8Array): unknown {
  return new ARRAYS[d](raw.buffer as ArrayBuffer);
}

/**
 * Reference split: every output element located by its multi-index, one at a time, moved as raw
 * bytes (never through a JS number, which could quiet a signalling NaN). Strings move as strings.
 */
export function referenceSplit(x: HostTensor, axis: number, sizes: readonly number[]): unknown[][] {
  const ax = axis < 0 ? axis + x.shape.length : axis;
  const width = x.dtype === 'string' ? 1 : bytesPerEntry(x.dtype) * (x.dtype.startsWith('complex') ? 2 : 1);
  const strides = x.shape.map((_, i) => x.shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const data = bitsOf(x);
  let start = 0;
  return sizes.map((size) => {
    const shape = x.shape.map((d, i) => (i === ax ? size : d));
    const n = shape.reduce((a, b) => a * b, 1);
    const out: unknown[] = [];
    for (let k = 0; k < n; k++) {
      let rem = k;
      let src = 0;
      for (let i = shape.length - 1; i >= 0; i--) {
        const idx = rem % shape[i]!;
        rem = Math.floor(rem / shape[i]!);
        src += (i === ax ? idx + start : idx) * strides[i]!;
      }
      for (let b = 0; b < width; b++) out.push(data[src * width + b]);
    }
    start += size;
    return out;
  });
}

/** The raw bytes (or strings) of a host tensor's data, for bit-exact comparison. */
export function bitsOf(t: HostTensor): unknown[] {
  if (t.dtype === 'string') return [...t.data];
  const d = t.data as unknown as { buffer: ArrayBuffer; byteOffset: number; byteLength: number };
  return [...new Uint8Array(d.buffer, d.byteOffset, d.byteLength)];
}

export { DTYPES };
