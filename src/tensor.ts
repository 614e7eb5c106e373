// Tensor types, and the one place a caller's tensor is read. A HostTensor's `data` type follows
// its `dtype`, so a mismatched pair fails to compile; plain JavaScript callers get the same rules
// at run time. `readTensor` reads every field once, at the call, into a view Cleave owns: later
// changes to the caller's object (a new `data`, a getter that changes, a shrunk buffer) cannot
// reach a split that is already under way.

import { type SplitSubject, SplitError, check, guardRead, show } from './errors.js';
import {
  type DType, type FixedDType, type HostDataMap,
  byteLengthOf, hostArrayName, hostLength, isDType, isPacked,
} from './dtype.js';

/** A tensor in host memory. `HostTensor` alone is the union over every dtype. */
export type HostTensor<D extends DType = DType> = {
  [K in D]: { readonly dtype: K; readonly shape: readonly number[]; readonly data: HostDataMap[K] };
}[D];

/** A tensor in a GPU buffer: `byteLength` bytes at `byteOffset`, row-major, no padding between elements. */
export type GpuTensor<D extends FixedDType = FixedDType> = {
  [K in D]: {
    readonly dtype: K;
    readonly shape: readonly number[];
    readonly buffer: GPUBuffer;
    readonly byteOffset: number;
    readonly byteLength: number;
  };
}[D];

export type AnyTensor = HostTensor | GpuTensor;

/** Most dimensions a shape may have. */
export const MAX_RANK = 64;
/** Most elements of a string tensor (strings are split on the CPU, one JS string each). */
export const MAX_STRINGS = 1 << 24;

interface ViewBase {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly numel: number;
}

/** A host tensor as read at the call: its bytes (fixed dtypes) or its strings, owned or safe to use now. */
export interface HostView extends ViewBase {
  readonly kind: 'host';
  readonly bytes: Uint8Array;
  readonly strings: readonly string[] | undefined;
}

/** A GPU tensor as read at the call; `source` is the caller's object, for lease checks. */
export interface GpuView extends ViewBase {
  readonly kind: 'gpu';
  readonly dtype: FixedDType;
  readonly buffer: GPUBuffer;
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly source: object;
}

export type TensorView = HostView | GpuView;

/** Reads a host or GPU tensor; `what` prefixes messages ('split: input'). */
export function readTensor(t: unknown, what: string, subject: SplitSubject = { kind: 'input', name: 'input' }): TensorView {
  return guardRead(what, () => {
    check(typeof t === 'object' && t !== null && !Array.isArray(t), 'BAD_INPUT',
      () => `${what}: expected a tensor object { dtype, shape, data } or { dtype, shape, buffer, byteOffset, byteLength }, got ${show(t)}`, subject);
    const o = t as Record<string, unknown>;
    const gpu = 'buffer' in o;
    check(!(gpu && 'data' in o), 'BAD_INPUT', () => `${what}: a tensor has either 'data' (host) or 'buffer' (GPU), not both`, subject);
    check(gpu || 'data' in o, 'BAD_INPUT', () => `${what}: a tensor needs 'data' (host) or 'buffer' (GPU)`, subject);
    const dtype = o.dtype;
    check(isDType(dtype), 'BAD_DTYPE', () => `${what}: unknown dtype ${show(dtype)}`, { ...subject, part: 'dtype' });
    const shape = readShape(o.shape, what, subject);
    const numel = countElements(shape, what, subject);
    return gpu ? gpuView(o, dtype, shape, numel, what, subject) : hostView(o.data, dtype, shape, numel, what, subject);
  }, subject);
}

/** A shape: an array of at most MAX_RANK non-negative safe integers (-0 reads as 0), copied. */
export function readShape(raw: unknown, what: string, subject: SplitSubject): number[] {
  const at: SplitSubject = { ...subject, part: 'shape' };
  check(Array.isArray(raw), 'BAD_SHAPE', () => `${what}: shape must be an array of dimensions, got ${show(raw)}`, at);
  const rank = raw.length;
  check(rank <= MAX_RANK, 'TOO_LARGE', () => `${what}: shape has ${rank} dimensions; Cleave takes at most ${MAX_RANK}`, at);
  const shape = new Array<number>(rank);
  for (let i = 0; i < rank; i++) {
    const d: unknown = raw[i];
    if (!(typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
      throw new SplitError('BAD_SHAPE', `${what}: dimension ${i} of the shape must be a non-negative integer, got ${show(d)}`, at);
    }
    shape[i] = d + 0; // -0 -> 0
  }
  return shape;
}

function countElements(shape: readonly number[], what: string, subject: SplitSubject): number {
  let n = 1;
  for (const d of shape) n *= d;
  check(Number.isSafeInteger(n), 'TOO_LARGE', () => `${what}: shape [${shape.join(', ')}] has more elements than 2^53`, { ...subject, part: 'shape' });
  return n;
}

// The typed-array facts come from the intrinsic getters, so an overridden `length` or a Proxy
// cannot lie about them.
const TA_PROTO = Object.getPrototypeOf(Uint8Array.prototype) as object;
const getter = (key: PropertyKey) => Object.getOwnPropertyDescriptor(TA_PROTO, key)!.get! as (this: unknown) => unknown;
const TA = { kind: getter(Symbol.toStringTag), buffer: getter('buffer'), offset: getter('byteOffset'), bytes: getter('byteLength'), length: getter('length') };
const intrinsic = <T>(g: (this: unknown) => unknown, x: unknown) => Reflect.apply(g, x, []) as T;
const SAB_SIZE = typeof SharedArrayBuffer === 'function'
  ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength')?.get : undefined;
const RESIZABLE = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'resizable')?.get;

function isShared(b: object): boolean {
  if (!SAB_SIZE) return false;
  try { Reflect.apply(SAB_SIZE, b, []); return true; } catch { return false; }
}

function isDetached(b: ArrayBufferLike): boolean {
  try { new Uint8Array(b, 0, 0); return false; } catch { return true; }
}

function hostView(data: unknown, dtype: DType, shape: number[], numel: number, what: string, subject: SplitSubject): HostView {
  const at: SplitSubject = { ...subject, part: 'data' };
  const want = hostLength(dtype, numel);
  const packedNote = isPacked(dtype) ? ` (packed: ceil(${numel} x bits / 8) bytes)` : dtype.startsWith('complex') ? ' (interleaved re, im)' : '';
  if (dtype === 'string') {
    check(numel <= MAX_STRINGS, 'TOO_LARGE', () => `${what}: a string tensor holds at most ${MAX_STRINGS} elements, this shape has ${numel}`, at);
    check(Array.isArray(data), 'DATA_TYPE', () => `${what}: dtype string needs data as string[], got ${show(data)}`, at);
    const length = data.length;
    check(length === want, 'DATA_LENGTH', () => `${what}: shape [${shape.join(', ')}] of string needs ${want} data entries, got ${length}`, at);
    const strings = new Array<string>(length);
    for (let i = 0; i < length; i++) {
      const s: unknown = data[i];
      if (typeof s !== 'string') {
        throw new SplitError('DATA_TYPE', `${what}: string data entry ${i} is ${show(s)}; every entry must be a string (sparse arrays are refused)`, at);
      }
      strings[i] = s;
    }
    return { kind: 'host', dtype, shape, numel, bytes: new Uint8Array(0), strings };
  }
  const kind = intrinsic<string | undefined>(TA.kind, data);
  check(kind === hostArrayName(dtype), 'DATA_TYPE',
    () => `${what}: dtype ${dtype} needs data as ${hostArrayName(dtype)}, got ${kind ?? show(data)}`, at);
  const buffer = intrinsic<ArrayBufferLike>(TA.buffer, data);
  check(!isDetached(buffer), 'DATA_TYPE', () => `${what}: the data's ArrayBuffer is detached (transferred away); nothing to read`, at);
  const length = intrinsic<number>(TA.length, data);
  check(length === want, 'DATA_LENGTH',
    () => `${what}: shape [${shape.join(', ')}] of ${dtype} needs ${want} data entries${packedNote}, got ${length}`, at);
  const view = new Uint8Array(buffer, intrinsic<number>(TA.offset, data), intrinsic<number>(TA.bytes, data));
  // Shared and resizable memory can change under a split (and a shared view crashes Dawn's
  // writeBuffer): Cleave splits a copy taken now.
  const volatile = isShared(buffer) || (RESIZABLE !== undefined && Reflect.apply(RESIZABLE, buffer, []) === true);
  return { kind: 'host', dtype, shape, numel, bytes: volatile ? view.slice() : view, strings: undefined };
}

function gpuView(o: Record<string, unknown>, dtype: DType, shape: number[], numel: number, what: string, subject: SplitSubject): GpuView {
  check(dtype !== 'string', 'WRONG_BACKEND', () => `${what}: string tensors cannot live on the GPU`, { ...subject, part: 'dtype' });
  const at: SplitSubject = { ...subject, part: 'buffer' };
  const buffer = o.buffer;
  check(isGpuBuffer(buffer), 'BAD_INPUT', () => `${what}: 'buffer' must be a GPUBuffer, got ${show(buffer)}`, at);
  const byteOffset = o.byteOffset;
  const byteLength = o.byteLength;
  const size = buffer.size;
  const want = byteLengthOf(dtype, numel);
  check(typeof byteLength === 'number' && byteLength === want, 'DATA_LENGTH',
    () => `${what}: shape [${shape.join(', ')}] of ${dtype} needs byteLength ${want}, got ${show(byteLength)}`, at);
  check(typeof byteOffset === 'number' && Number.isSafeInteger(byteOffset) && byteOffset >= 0 && byteOffset + want <= size,
    'DATA_LENGTH', () => typeof byteOffset === 'number' && Number.isSafeInteger(byteOffset) && byteOffset >= 0
      ? `${what}: bytes [${byteOffset}, ${byteOffset + want}) lie outside its ${size}-byte buffer`
      : `${what}: byteOffset must be a non-negative integer, got ${show(byteOffset)}`, at);
  check(size % 4 === 0, 'BAD_INPUT', () => `${what}: GPU buffer size must be a multiple of 4, got ${size}`, at);
  return { kind: 'gpu', dtype, shape, numel, buffer, byteOffset: byteOffset + 0, byteLength: want, source: o };
}

/** A real GPUBuffer where the environment names the class; otherwise one that quacks like it. */
export function isGpuBuffer(b: unknown): b is GPUBuffer {
  const cls = (globalThis as { GPUBuffer?: unknown }).GPUBuffer;
  if (typeof cls === 'function') return b instanceof (cls as new () => GPUBuffer);
  const x = b as Partial<GPUBuffer> | null;
  return typeof x === 'object' && x !== null && typeof x.size === 'number' && typeof x.usage === 'number' && typeof x.mapAsync === 'function';
}
