// `into`: outputs written where the caller says. Every destination is read once and checked here,
// before any GPU work, against the output it receives: its dtype and shape, a footprint inside its
// buffer that no other destination and not the input share, strides that keep elements apart, a
// usage that allows writing. The planner turns the checked destinations into regions.

import { type SubjectKey, asInt, check, guardRead, show } from '../errors.js';
import { byteLengthOf, elementBits } from '../dtype.js';
import type { Destination } from '../tensor.js';
import { type GpuView, readShape } from './tensor.js';
import { type BufferFacts, bufferFacts } from './webgpu-object.js';
import { product, rowMajorStrides } from '../shape.js';
import { USAGE, missingUsage } from '../usage.js';

/**
 * The destinations as checked: planner places (target k is buffers[k - 1]), their distinct buffers, the strides as
 * given, and what a lease check reads of each (the caller's object and its buffer), to check them again at a call.
 */
export interface Destinations {
  readonly places: readonly (Destination | undefined)[];
  readonly buffers: readonly GPUBuffer[];
  readonly strides: readonly (readonly number[] | undefined)[];
  readonly live: readonly (Live | undefined)[];
}

/** What a lease check reads of a tensor: the caller's object, and the buffer it named when it was read. */
export type Live = Pick<GpuView, 'source' | 'buffer'>;

/**
 * Refuses a destination whose buffer holds tensors that are no longer live (a released one, or a
 * Cleave buffer no lease holds): the engine passes the executor's lease check, which this layer
 * does not know.
 */
export type LiveCheck = (v: Live, what: string, subject: SubjectKey) => void;

/**
 * Reads `into` for a split of `x` whose outputs have `shapes` (as reported) and, in the plan,
 * `planShapes`; `axis` is the plan's. Undefined when absent.
 */
export function readInto(
  raw: unknown,
  x: GpuView,
  shapes: readonly (readonly number[])[],
  planShapes: readonly (readonly number[])[],
  axis: number,
  what: string,
  live: LiveCheck,
): Destinations | undefined {
  if (raw === undefined) return undefined;
  check(
    Array.isArray(raw) && raw.length === shapes.length,
    'BAD_OPTIONS',
    () =>
      `${what}: 'into' must be an array with one entry (a destination or undefined) per output, ` +
      `${shapes.length} here, got ${show(raw)}`,
    'option:into',
  );
  const entries = Array.from({ length: shapes.length }, (_, i) => raw[i] as unknown);
  const buffers: GPUBuffer[] = [];
  const spans: [buffer: GPUBuffer, begin: number, end: number, i: number][] = [];
  const strides: (readonly number[] | undefined)[] = [];
  const lives: (Live | undefined)[] = [];
  const places = entries.map((e, i): Destination | undefined => {
    if (e === undefined) return undefined;
    const at: SubjectKey = `option:into[${i}]`;
    const d = guardRead(what, () => readOne(e, x, shapes[i]!, `${what}: into[${i}]`, at, live), at);
    strides[i] = d.given;
    lives[i] = d.live;
    if (d.bytes > 0) spans.push([d.buffer, d.byteOffset, d.byteOffset + d.bytes, i]);
    let target = buffers.indexOf(d.buffer) + 1;
    if (!target) target = buffers.push(d.buffer);
    // The planner reads strides over the plan's shape: a dropped axis (keepdims 0) has size 1.
    const s =
      planShapes[i]!.length === d.strides.length
        ? d.strides
        : [...d.strides.slice(0, axis), 0, ...d.strides.slice(axis)];
    return { target, byteOffset: d.byteOffset, strides: s };
  });
  // Footprints (first byte to last, strided or not) are compared in whole 4-byte words, as the
  // shaders write: interleaved destinations in one buffer are refused, even where no element meets.
  spans.sort((a, b) => buffers.indexOf(a[0]) - buffers.indexOf(b[0]) || a[1] - b[1]);
  spans.forEach(([b, begin, , i], k) => {
    const prev = spans[k - 1];
    check(
      !prev || prev[0] !== b || Math.ceil(prev[2] / 4) <= Math.floor(begin / 4),
      'BAD_INPUT',
      () =>
        `${what}: into[${i}] overlaps into[${prev![3]}] in one buffer (bytes [${begin}, ...) against ` +
        `[${prev![1]}, ${prev![2]})); destinations in one buffer must lie in separate 4-byte words, ` +
        'from first byte to last',
      `option:into[${i}]`,
    );
  });
  return { places, buffers, strides, live: lives };
}

/** One destination, checked against the output of `shape` it receives. */
function readOne(e: unknown, x: GpuView, shape: readonly number[], what: string, at: SubjectKey, live: LiveCheck) {
  check(
    typeof e === 'object' && e !== null,
    'BAD_INPUT',
    () => `${what}: a destination is { dtype, shape, buffer, byteOffset, strides? } or undefined, got ${show(e)}`,
    at,
  );
  const o = e as Record<string, unknown>;
  check(
    o.dtype === x.dtype,
    'BAD_DTYPE',
    () => `${what}: dtype ${show(o.dtype)} differs from the input's, ${x.dtype}`,
    `${at}.dtype`,
  );
  const dims = readShape(o.shape, what, at);
  check(
    dims.length === shape.length && dims.every((n, k) => n === shape[k]),
    'BAD_SHAPE',
    () => `${what}: shape [${dims.join(', ')}] differs from the output's, [${shape.join(', ')}]`,
    `${at}.shape`,
  );
  const numel = product(dims);
  const [buffer, facts] = readBuffer(o.buffer, x, what, at);
  const byteOffset = asInt(o.byteOffset, 0);
  check(
    byteOffset !== undefined && byteOffset % 4 === 0,
    'BAD_INPUT',
    () => `${what}: byteOffset must be an integer multiple of 4, got ${show(o.byteOffset)}`,
    `${at}.buffer`,
  );
  const want = byteLengthOf(x.dtype, numel);
  check(
    o.byteLength === undefined || o.byteLength === want,
    'DATA_LENGTH',
    () => `${what}: byteLength ${show(o.byteLength)} is not the output's, ${want}`,
    `${at}.buffer`,
  );
  const given = o.strides === undefined ? undefined : readStrides(o.strides, dims, what, at);
  const s = given ?? rowMajorStrides(dims);
  // The last element's place plus one, in elements: the footprint's end.
  const extent = numel === 0 ? 0 : 1 + dims.reduce((a, n, k) => a + (n - 1) * s[k]!, 0);
  const bytes = Math.ceil((extent * elementBits(x.dtype)) / 8);
  check(
    byteOffset + bytes <= facts.size,
    'DATA_LENGTH',
    () => `${what}: its ${bytes} bytes at byteOffset ${byteOffset} lie outside its ${facts.size}-byte buffer`,
    `${at}.buffer`,
  );
  const v = { source: o, buffer };
  live(v, what, `${at}.buffer`);
  return { buffer, byteOffset, strides: s, given, bytes, live: v };
}

/** A destination's buffer: a GPUBuffer, not the input's, that a split may write; and its facts. */
function readBuffer(buffer: unknown, x: GpuView, what: string, at: SubjectKey): [GPUBuffer, BufferFacts] {
  const facts = bufferFacts(buffer);
  check(
    facts !== undefined,
    'BAD_INPUT',
    () => `${what}: buffer must be a GPUBuffer, got ${show(buffer)}`,
    `${at}.buffer`,
  );
  check(
    buffer !== x.buffer,
    'BAD_INPUT',
    () => `${what}: the destination is in the input's buffer; a split writes outside the buffer it reads`,
    `${at}.buffer`,
  );
  check(
    (~facts.usage & (USAGE.STORAGE | USAGE.COPY_DST)) === 0,
    'BAD_INPUT',
    () =>
      `${what}: the destination's buffer needs usage ` +
      `${missingUsage(facts.usage, ['STORAGE', 'COPY_DST']).join(' | ')} to be written (STORAGE | COPY_DST, ` +
      'whatever the plan)',
    `${at}.buffer`,
  );
  return [buffer as GPUBuffer, facts];
}

/** Element strides, one per dimension, non-negative integers that never make two elements meet. */
function readStrides(raw: unknown, dims: readonly number[], what: string, at: SubjectKey): number[] {
  check(
    Array.isArray(raw) && raw.length === dims.length,
    'BAD_SHAPE',
    () => `${what}: strides must be an array of ${dims.length} integers (one per dimension), got ${show(raw)}`,
    `${at}.shape`,
  );
  const s = dims.map((_, k) => {
    const v = asInt(raw[k] as unknown, 0);
    check(
      v !== undefined,
      'BAD_SHAPE',
      () => `${what}: stride ${k} must be an integer >= 0, got ${show(raw[k])}`,
      `${at}.shape`,
    );
    return v;
  });
  // Innermost first: each dimension's stride must clear everything inside it (no element, no overlap).
  if (dims.includes(0)) return s;
  let reach = 1;
  for (const k of dims
    .map((_, k) => k)
    .filter((k) => dims[k]! > 1)
    .sort((a, b) => s[a]! - s[b]!)) {
    check(
      s[k]! >= reach,
      'BAD_SHAPE',
      () => `${what}: strides [${s.join(', ')}] make elements of shape [${dims.join(', ')}] overlap (dimension ${k})`,
      `${at}.shape`,
    );
    reach = s[k]! * (dims[k]! - 1) + reach;
  }
  return s;
}
