// The one place a caller's tensor is read. `readTensor` reads every field once, at the call, into
// a view Cleave owns: later changes to the caller's object (a new `data`, a getter that changes, a
// shrunk buffer) cannot reach a split that is already under way. The views are what every later
// layer takes.

import { SplitError, type SubjectKey, asInt, check, readFailure, show } from '../errors.js';
import type { DType, FixedDType } from '../dtype.js';
import { byteLengthOf, elementBits, hostArrayNames, hostLength, readDType } from '../dtype.js';
import { hostDataFix } from '../host-data.js';
import { bufferFacts } from './webgpu-object.js';
import { MAX_RANK, MAX_STRINGS, product, rowMajorStrides } from '../shape.js';
import { USAGE, missingUsage } from '../usage.js';

/**
 * A host tensor as read at the call: its bytes (fixed dtypes, safe to use now) or its strings (copied), and the
 * class its data came in, which its outputs come in too.
 */
export interface HostView {
  readonly kind: 'host';
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly numel: number;
  readonly bytes: Uint8Array;
  /** The class of the typed array the data came in (absent for strings). */
  readonly array?: string;
  readonly strings?: readonly string[];
}

/** A GPU tensor as read at the call; `source` is the caller's object, for lease checks. */
export interface GpuView {
  readonly kind: 'gpu';
  readonly dtype: FixedDType;
  readonly shape: readonly number[];
  readonly numel: number;
  readonly buffer: GPUBuffer;
  /** The buffer's usage flags. */
  readonly usage: number;
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly source: object;
}

export type TensorView = HostView | GpuView;

/**
 * Reads a host or GPU tensor; `what` prefixes messages ('split: input'). A GPU tensor read as a `destination` may
 * have strides, its footprint checked with them (a split's input may not).
 */
export function readTensor(
  t: unknown,
  what: string,
  subject: SubjectKey = 'input:input',
  destination = false,
): TensorView {
  // A caller's getter or Proxy that throws becomes a SplitError (no closure: this runs on every call).
  try {
    const o = t as Record<string, unknown>;
    const object = typeof t === 'object' && t !== null;
    const gpu = object && 'buffer' in o;
    check(
      gpu !== (object && 'data' in o),
      'BAD_INPUT',
      () => `${what} must be a tensor { dtype, shape } with either data or buffer, got ${show(t)}${mistake(t)}`,
      subject,
    );
    const dtype = o.dtype;
    readDType(dtype, what, `${subject}.dtype`);
    const shape = readShape(o.shape, what, subject);
    const numel = numelOf(shape, what, subject);
    if (!gpu) return hostView(o.data, dtype, shape, numel, what, `${subject}.data`);
    // A GPU tensor: its place in its buffer, read as a destination's is (readPlace), then what a view must be.
    if (dtype === 'string')
      throw new SplitError('WRONG_BACKEND', `${what}: string tensors cannot live on the GPU`, `${subject}.dtype`);
    const at: SubjectKey = `${subject}.buffer`;
    const strides = o.strides;
    const given = destination && strides !== undefined ? readStrides(strides, shape, what, subject) : undefined;
    const { buffer, facts, byteOffset, byteLength } = readPlace(o, dtype, shape, numel, given, what, at, destination);
    if (facts.size % 4 !== 0)
      throw new SplitError('BAD_INPUT', `${what}: the GPU buffer's size, ${facts.size}, is not a multiple of 4`, at);
    check(
      destination ||
        strides === undefined ||
        (Array.isArray(strides) &&
          strides.length === shape.length &&
          rowMajorStrides(shape).every((s, k) => shape[k]! < 2 || strides[k] === s)),
      'BAD_INPUT',
      () =>
        `${what}: a strided tensor (strides ${show(strides)}) is a view Cleave cannot read as one; ` +
        'pass the whole tensor it lies in',
      at,
    );
    return { kind: 'gpu', dtype, shape, numel, buffer, usage: facts.usage, byteOffset, byteLength, source: o };
  } catch (e) {
    throw readFailure(e, what, subject);
  }
}

/** Reads a tensor that must be a GPU tensor (a call that takes no host tensor). */
export function readGpuTensor(t: unknown, what: string, subject: SubjectKey = 'input:input'): GpuView {
  const v = readTensor(t, what, subject);
  check(v.kind === 'gpu', 'BAD_INPUT', () => `${what}: takes a GPU tensor, got a host tensor`, subject);
  return v;
}

/** The likely slip behind a non-tensor, as a hint that names the fix. */
function mistake(t: unknown): string {
  if (t instanceof Promise) return ': an `await` is missing (await the call that made the tensor)';
  if (Array.isArray(t)) return ': pass one tensor of the array, e.g. outs[0] of a split';
  return '';
}

/** A shape: an array of at most MAX_RANK non-negative safe integers (-0 reads as 0), copied. */
export function readShape(raw: unknown, what: string, subject: SubjectKey): number[] {
  const at: SubjectKey = `${subject}.shape`;
  check(Array.isArray(raw), 'BAD_SHAPE', () => `${what}: shape must be an array, got ${show(raw)}`, at);
  const rank = raw.length;
  check(rank <= MAX_RANK, 'TOO_LARGE', () => `${what}: rank ${rank} is above ${MAX_RANK}`, at);
  // A plain loop, not Array.from with a callback: this runs on every call, and V8 takes Array.from's slow path.
  const shape: number[] = [];
  for (let i = 0; i < rank; i++) {
    const raw_i: unknown = raw[i];
    const d = asInt(raw_i, 0);
    if (d === undefined)
      throw new SplitError(
        'BAD_SHAPE',
        `${what}: dimension ${i} of the shape must be a non-negative integer, got ${show(raw_i)}`,
        at,
      );
    shape.push(d);
  }
  return shape;
}

/** Elements of a checked shape, at most 2^53. */
export function numelOf(shape: readonly number[], what: string, subject: SubjectKey): number {
  const numel = product(shape);
  check(
    Number.isSafeInteger(numel),
    'TOO_LARGE',
    () => `${what}: shape [${shape.join(', ')}] has more than 2^53 elements`,
    `${subject}.shape`,
  );
  return numel;
}

// Typed-array facts come from the intrinsic getters, so an overridden `length` or a Proxy cannot lie.
const TA_PROTO = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsic = <T>(owner: object, key: PropertyKey, x: unknown) => {
  const get = Object.getOwnPropertyDescriptor(owner, key)?.get;
  try {
    return get && (Reflect.apply(get, x, []) as T);
  } catch {
    return undefined;
  }
};

function hostView(data: unknown, dtype: DType, shape: number[], numel: number, what: string, at: SubjectKey): HostView {
  const want = hostLength(dtype, numel);
  const length = (n: unknown) => () =>
    `${what}: shape [${shape.join(', ')}] of ${dtype} needs ${want} data entries, got ${show(n)}`;
  if (dtype === 'string') {
    check(numel <= MAX_STRINGS, 'TOO_LARGE', () => `${what}: more than ${MAX_STRINGS} strings`, at);
    check(Array.isArray(data), 'DATA_TYPE', () => `${what}: string data must be a string[], got ${show(data)}`, at);
    const n = data.length;
    check(n === want, 'DATA_LENGTH', length(n), at);
    const strings = Array.from({ length: n }, (_, i) => data[i] as unknown);
    const bad = strings.findIndex((s) => typeof s !== 'string');
    check(
      bad < 0,
      'DATA_TYPE',
      () => `${what}: string data entry ${bad} is ${show(strings[bad])} (sparse arrays are refused)`,
      at,
    );
    return { kind: 'host', dtype, shape, numel, bytes: new Uint8Array(0), strings: strings as string[] };
  }
  const kind = intrinsic<string>(TA_PROTO, Symbol.toStringTag, data);
  const got = kind ?? show(data);
  const arrays = hostArrayNames(dtype);
  check(
    kind !== undefined && arrays.includes(kind),
    'DATA_TYPE',
    () => `${what}: dtype ${dtype} needs data as ${arrays.join(' or ')}, got ${got}${hostDataFix(dtype, got)}`,
    at,
  );
  const buffer = intrinsic<ArrayBufferLike>(TA_PROTO, 'buffer', data)!;
  const n = intrinsic<number>(TA_PROTO, 'length', data);
  check(!isDetached(buffer), 'DATA_TYPE', () => `${what}: the data's ArrayBuffer is detached`, at);
  check(n === want, 'DATA_LENGTH', length(n), at);
  const offset = intrinsic<number>(TA_PROTO, 'byteOffset', data);
  const bytes = new Uint8Array(buffer, offset, intrinsic<number>(TA_PROTO, 'byteLength', data));
  // Shared and resizable memory can change under a split (and a shared view crashes Dawn's
  // writeBuffer): Cleave splits a copy taken now.
  const shared =
    typeof SharedArrayBuffer === 'function' &&
    intrinsic(SharedArrayBuffer.prototype as object, 'byteLength', buffer) !== undefined;
  const volatile = shared || intrinsic(ArrayBuffer.prototype, 'resizable', buffer) === true;
  return { kind: 'host', dtype, shape, numel, bytes: volatile ? bytes.slice() : bytes, array: kind };
}

function isDetached(b: ArrayBufferLike): boolean {
  try {
    return !new Uint8Array(b, 0, 0);
  } catch {
    return true;
  }
}

/**
 * Where a GPU tensor or a destination lies, read the one way every call reads it: a real GPUBuffer (for a
 * `destination` given as the view of the input a split writes it from, not that input's and one a split may write;
 * `true`, a destination of no split yet, is not checked for those); `byteOffset` a non-negative integer multiple of
 * `unit`, 4 for a destination (0 when absent); `byteLength`, when given, the row-major length of the shape;
 * and its footprint (row-major, or with element `strides`), from its first element's byte to past its last, inside
 * the buffer. A footprint past the end names how far it goes, and for strides the dimension that reaches furthest.
 */
export function readPlace(
  o: Record<string, unknown>,
  dtype: FixedDType,
  shape: readonly number[],
  numel: number,
  strides: readonly number[] | undefined,
  what: string,
  at: SubjectKey,
  destination: GpuView | boolean,
) {
  const { buffer, byteOffset: rawOffset, byteLength } = o;
  const facts = bufferFacts(buffer);
  check(facts !== undefined, 'BAD_INPUT', () => `${what}: buffer must be a GPUBuffer, got ${show(buffer)}`, at);
  if (typeof destination === 'object') checkWritable(buffer as GPUBuffer, facts.usage, destination, what, at);
  const unit = destination ? 4 : 1;
  const byteOffset = rawOffset === undefined ? 0 : asInt(rawOffset, 0);
  check(
    byteOffset !== undefined && byteOffset % unit === 0,
    'BAD_INPUT',
    () =>
      `${what}: byteOffset must be a non-negative integer${unit > 1 ? ' multiple of 4' : ''}, got ${show(rawOffset)}`,
    at,
  );
  const want = byteLengthOf(dtype, numel);
  check(
    byteLength === undefined || byteLength === want,
    'DATA_LENGTH',
    () => `${what}: byteLength ${show(byteLength)} is not the ${want} bytes of shape [${shape.join(', ')}] of ${dtype}`,
    at,
  );
  let [far, reach] = [-1, 0];
  if (strides && numel > 0)
    for (let k = 0; k < shape.length; k++) {
      const r = (shape[k]! - 1) * strides[k]!;
      if (r > 0 && (far < 0 || r > (shape[far]! - 1) * strides[far]!)) far = k;
      reach += r;
    }
  const bytes = strides ? (numel === 0 ? 0 : Math.ceil(((reach + 1) * elementBits(dtype)) / 8)) : want;
  const past = byteOffset + bytes - facts.size;
  check(
    past <= 0,
    'DATA_LENGTH',
    () =>
      `${what}: it runs ${past} bytes past the end of its ${facts.size}-byte buffer ` +
      `(${bytes} bytes from byteOffset ${byteOffset}` +
      (far < 0 ? ')' : `; dimension ${far}, ${shape[far]} × stride ${strides![far]}, reaches furthest)`),
    at,
  );
  return { buffer: buffer as GPUBuffer, facts, byteOffset, byteLength: want, bytes };
}

/** A destination's buffer: not the input's, and one a split may write. */
function checkWritable(buffer: GPUBuffer, usage: number, x: GpuView, what: string, at: SubjectKey): void {
  check(
    buffer !== x.buffer,
    'BAD_INPUT',
    () => `${what}: the destination is in the input's buffer; a split writes outside the buffer it reads`,
    at,
  );
  check(
    (~usage & (USAGE.STORAGE | USAGE.COPY_DST)) === 0,
    'BAD_INPUT',
    () =>
      `${what}: the destination's buffer needs usage ${missingUsage(usage, ['STORAGE', 'COPY_DST']).join(' | ')} ` +
      'to be written (STORAGE | COPY_DST, whatever the plan)',
    at,
  );
}

/** Element strides, one per dimension, non-negative integers that never make two elements meet. */
export function readStrides(raw: unknown, dims: readonly number[], what: string, at: SubjectKey): number[] {
  const shapeAt: SubjectKey = `${at}.shape`;
  check(
    Array.isArray(raw) && raw.length === dims.length,
    'BAD_SHAPE',
    () => `${what}: strides must be an array of ${dims.length} integers (one per dimension), got ${show(raw)}`,
    shapeAt,
  );
  const s: number[] = [];
  for (let k = 0; k < dims.length; k++) {
    const r: unknown = raw[k];
    const v = asInt(r, 0);
    check(v !== undefined, 'BAD_SHAPE', () => `${what}: stride ${k} must be an integer >= 0, got ${show(r)}`, shapeAt);
    s.push(v);
  }
  // Innermost first: each dimension's stride must clear everything inside it (no element, no overlap).
  if (dims.includes(0)) return s;
  let reach = 1;
  for (const k of [...dims.keys()].filter((k) => dims[k]! > 1).sort((a, b) => s[a]! - s[b]!)) {
    check(
      s[k]! >= reach,
      'BAD_SHAPE',
      () => `${what}: strides [${s.join(', ')}] make elements of shape [${dims.join(', ')}] overlap (dimension ${k})`,
      shapeAt,
    );
    reach = s[k]! * (dims[k]! - 1) + reach;
  }
  return s;
}

/**
 * A split's input, read: a tensor Cleave can read, and for a GPU one, a buffer with usage STORAGE | COPY_SRC, whatever
 * the plan (which of the two a split uses depends on the shapes and the device, so a buffer that worked for one split
 * would fail another).
 */
export function readInput(x: unknown, what: string): TensorView {
  const v = readTensor(x, `${what}: input`);
  checkUsage(v, what);
  return v;
}

/** The usage every split's GPU input needs. */
export function checkUsage(v: TensorView, what: string): void {
  if (v.kind === 'gpu' && (~v.usage & (USAGE.STORAGE | USAGE.COPY_SRC)) !== 0)
    throw new SplitError(
      'BAD_INPUT',
      `${what}: the input's GPU buffer needs usage ${missingUsage(v.usage, ['STORAGE', 'COPY_SRC']).join(' | ')}: ` +
        "every split's input needs STORAGE | COPY_SRC " +
        '(create it with GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, or TENSOR_USAGE from cleave-gpu)',
      'input:input.buffer',
    );
}
