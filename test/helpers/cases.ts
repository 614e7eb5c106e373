// Test data shared by every tier: a CTS-style params builder (combine / expand / filter over named
// parameters, never a blind full product) and seeded random tensors covering every bit pattern.
// The reference split is test/helpers/reference.ts.

import type { DType, HostTensor } from '../../src/index.js';
import { numel } from './dtypes.js';
import { PACKED_WIDTH, isPackedType } from './packed.js';

type Params = Record<string, unknown>;

export class ParamsBuilder<P extends Params> {
  private constructor(private readonly list: readonly P[]) {}
  static start(): ParamsBuilder<Record<never, never>> {
    return new ParamsBuilder([{}]);
  }
  combine<K extends string, V>(key: K, values: readonly V[]): ParamsBuilder<P & { [_ in K]: V }> {
    this.fresh(key);
    return new ParamsBuilder(this.list.flatMap((p) => values.map((v) => ({ ...p, [key]: v }) as P & { [_ in K]: V })));
  }
  expand<K extends string, V>(key: K, f: (p: P) => readonly V[]): ParamsBuilder<P & { [_ in K]: V }> {
    this.fresh(key);
    return new ParamsBuilder(this.list.flatMap((p) => f(p).map((v) => ({ ...p, [key]: v }) as P & { [_ in K]: V })));
  }
  filter(f: (p: P, index: number) => boolean): ParamsBuilder<P> {
    return new ParamsBuilder(this.list.filter(f));
  }
  get cases(): readonly P[] {
    return this.list;
  }
  /** A key given twice would silently overwrite the first: refused, as gpuweb/cts's builder does. */
  private fresh(key: string): void {
    if (this.list.some((p) => Object.hasOwn(p, key)))
      throw new Error(`ParamsBuilder: parameter '${key}' is already set`);
  }
}

/** mulberry32. */
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

/** A stable 32-bit hash of a parameter record, to seed its data and to sample cases. */
export function hashParams(p: Params): number {
  const s = JSON.stringify(p);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export const int = (next: () => number, lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));

/** Random lengths >= 0 (zeros included) that add up to `dim`. */
export function randomSizes(dim: number, count: number, next: () => number): number[] {
  const cuts = Array.from({ length: count - 1 }, () => int(next, 0, dim)).sort((a, b) => a - b);
  return [...cuts, dim].map((c, i) => c - (i === 0 ? 0 : cuts[i - 1]!));
}

/** A random split: rank 1 to 4, each dimension 1 to 5, a random axis, 1 to 4 random lengths (zeros included). */
export function randomSplit(next: () => number): { shape: number[]; axis: number; sizes: number[] } {
  const rank = int(next, 1, 4);
  const shape = Array.from({ length: rank }, () => int(next, 1, 5));
  const axis = int(next, 0, rank - 1);
  return { shape, axis, sizes: randomSizes(shape[axis]!, int(next, 1, 4), next) };
}

const STRINGS = ['', 'a', 'héllo', '日本語', '🙂👍🏽', 'tab\there', 'nul\u0000in', 'x'.repeat(33)];

/**
 * Random data covering every bit pattern (NaN payloads, -0, Inf, subnormals, int extremes).
 * `forOrt`: data onnxruntime-node carries unchanged: bfloat16 without NaN or subnormals (it
 * travels through a Cast to float32, which canonicalises NaN), strings without U+0000 (ORT's
 * JavaScript binding cuts a string at its first NUL).
 */
export function randomTensor(
  dtype: DType,
  shape: readonly number[],
  next: () => number,
  opts: { forOrt?: boolean } = {},
): HostTensor {
  const n = numel(shape);
  const bytes = (k: number) => Uint8Array.from({ length: k }, () => int(next, 0, 255));
  const ofBytes = <T>(C: { new (b: ArrayBuffer): T; BYTES_PER_ELEMENT: number }, lanes = 1) =>
    new C(bytes(n * lanes * C.BYTES_PER_ELEMENT).buffer);
  const t = (data: unknown) => ({ dtype, shape: [...shape], data }) as HostTensor;
  if (isPackedType(dtype)) return t(bytes(Math.ceil((n * PACKED_WIDTH[dtype]) / 8))); // trailing bits random too
  switch (dtype) {
    case 'float8e4m3fn':
    case 'float8e5m2':
    case 'float8e8m0':
      return t(bytes(n));
    case 'string': {
      const pool = opts.forOrt ? STRINGS.filter((s) => !s.includes('\u0000')) : STRINGS;
      return t(Array.from({ length: n }, () => pool[int(next, 0, pool.length - 1)]!));
    }
    case 'bool':
      return t(Uint8Array.from({ length: n }, () => int(next, 0, 1)));
    case 'float32':
      return t(withSpecials(ofBytes(Float32Array), next, [0x7fc00001, 0xff800000, 0x80000000, 0x7f800000, 0x00000001]));
    case 'float64':
      return t(ofBytes(Float64Array));
    case 'float16':
      return t(withSpecials(ofBytes(Uint16Array), next, [0x7e01, 0xfc00, 0x8000, 0x7c00, 0x0001]));
    case 'bfloat16': {
      const u = ofBytes(Uint16Array);
      if (opts.forOrt) {
        for (let i = 0; i < u.length; i++) {
          const e = (u[i]! >> 7) & 0xff;
          if (e === 0xff && (u[i]! & 0x7f) !== 0) u[i] = u[i]! & 0xff80; // NaN -> Inf of the same sign
          if (e === 0 && (u[i]! & 0x7f) !== 0) u[i] = u[i]! & 0x8000; // subnormal -> signed zero
        }
        return t(u);
      }
      return t(withSpecials(u, next, [0x7fc1, 0xff80, 0x8000, 0x7f80, 0x0001]));
    }
    case 'complex64':
      return t(ofBytes(Float32Array, 2));
    case 'complex128':
      return t(ofBytes(Float64Array, 2));
    case 'int8':
      return t(ofBytes(Int8Array));
    case 'uint8':
      return t(ofBytes(Uint8Array));
    case 'int16':
      return t(ofBytes(Int16Array));
    case 'uint16':
      return t(ofBytes(Uint16Array));
    case 'int32':
      return t(ofBytes(Int32Array));
    case 'uint32':
      return t(ofBytes(Uint32Array));
    case 'int64':
      return t(ofBytes(BigInt64Array));
    case 'uint64':
      return t(ofBytes(BigUint64Array));
  }
}

/** Plants special bit patterns at random places, so small tensors carry them too. */
function withSpecials<T extends Float32Array | Uint16Array>(a: T, next: () => number, specials: readonly number[]): T {
  if (a.length === 0) return a;
  const bits = a instanceof Float32Array ? new Uint32Array(a.buffer) : (a as Uint16Array);
  for (const s of specials) if (next() < 0.5) bits[int(next, 0, bits.length - 1)] = s;
  return a;
}
