// `into`: outputs written where the caller says. Every destination is read once and checked here,
// before any GPU work, against the output it receives: its dtype and shape, a place in its buffer
// read as every GPU tensor's is (read/tensor.ts), a footprint that no other destination and not the
// input share, strides that keep elements apart, a usage that allows writing. A prepared split's
// call compares each destination's strides with the prepared one's instead of checking them again.
// The planner turns the checked destinations into targets and regions.

import { SplitError, type SubjectKey, check, readFailure, show } from '../errors.js';
import type { Destination } from '../tensor.js';
import { type GpuView, readPlace, readShape, readStrides } from './tensor.js';
import { product, rowMajorStrides, sameList } from '../shape.js';

/**
 * Reads `into` for a split of `x` whose outputs have `shapes` (as reported) and, in the plan, `planShapes` (`axis` is
 * the plan's); undefined when absent. `prepared`, a prepared split's destinations,
 * fixes which outputs have one and their strides. `live` refuses a destination whose bytes are no longer its own
 * (a released tensor, a Cleave buffer no lease holds): the engine passes the leases' check, which this layer does
 * not know.
 */
export function readInto(
  raw: unknown,
  x: GpuView,
  shapes: readonly (readonly number[])[],
  planShapes: readonly (readonly number[])[],
  axis: number,
  what: string,
  live: (d: Destination, what: string, subject: SubjectKey) => void,
  prepared?: readonly (Destination | undefined)[],
): (Destination | undefined)[] | undefined {
  if (raw === undefined) return undefined;
  const n = shapes.length;
  check(
    Array.isArray(raw) && raw.length === n,
    'BAD_OPTIONS',
    () =>
      `${what}: 'into' must be an array with one entry (a destination or undefined) per output, ` +
      `${n} here, got ${show(raw)}`,
    'option:into',
  );
  const dests: (Destination | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    // A caller's getter or Proxy that throws becomes a SplitError (a loop, not a closure per entry). Messages and
    // subjects are made when a check fails: a call that passes builds no text.
    try {
      const e = raw[i] as unknown;
      const d = e === undefined ? undefined : readOne(e, x, shapes[i]!, what, i, live, prepared?.[i]);
      // The planner reads strides over the plan's shape: a dropped axis (keepdims 0) has size 1 and stride 0.
      const plain = !d || d.strides.length === planShapes[i]!.length;
      dests.push(plain ? d : { ...d, strides: [...d.strides.slice(0, axis), 0, ...d.strides.slice(axis)] });
    } catch (e) {
      throw readFailure(e, what, `option:into[${i}]`);
    }
    const p = prepared?.[i];
    if (prepared && (p === undefined) !== (dests[i] === undefined)) throw notAsPrepared(what, i, p);
  }
  checkApart(dests, what);
  return dests;
}

/**
 * One destination, checked against output `i` of `shape`, then its lease (`live`); with `p`, the prepared one in its
 * place, whose strides it must keep (the same numbers are not checked again).
 */
function readOne(
  e: unknown,
  x: GpuView,
  shape: readonly number[],
  call: string,
  i: number,
  live: (d: Destination, what: string, subject: SubjectKey) => void,
  p: Destination | undefined,
): Destination {
  const what = `${call}: into[${i}]`;
  const at: SubjectKey = `option:into[${i}].buffer`;
  if (typeof e !== 'object' || e === null)
    throw new SplitError(
      'BAD_INPUT',
      `${what}: a destination is { dtype, shape, buffer, byteOffset?, strides? } or undefined, got ${show(e)}`,
      `option:into[${i}]`,
    );
  const o = e as Record<string, unknown>;
  if (o.dtype !== x.dtype)
    throw new SplitError(
      'BAD_DTYPE',
      `${what}: dtype ${show(o.dtype)} differs from the input's, ${x.dtype}`,
      `option:into[${i}].dtype`,
    );
  if (!sameList(o.shape, shape)) {
    const dims = readShape(o.shape, what, `option:into[${i}]`);
    throw new SplitError(
      'BAD_SHAPE',
      `${what}: shape [${dims.join(', ')}] differs from the output's, [${shape.join(', ')}]`,
      `option:into[${i}].shape`,
    );
  }
  const raw = o.strides;
  const asPrepared =
    p !== undefined &&
    (raw === undefined
      ? p.given === undefined || sameList(p.given, rowMajorStrides(shape))
      : sameList(raw, p.given ?? rowMajorStrides(shape)));
  const given =
    raw === undefined
      ? undefined
      : asPrepared
        ? (p.given ?? rowMajorStrides(shape))
        : readStrides(raw, shape, what, `option:into[${i}]`);
  const place = readPlace(o, x.dtype, shape, product(shape), given, what, at, x);
  const strides = asPrepared ? p.strides : (given ?? rowMajorStrides(shape));
  const d = { buffer: place.buffer, byteOffset: place.byteOffset, strides, given, bytes: place.bytes, source: o };
  live(d, what, at);
  if (p && !asPrepared) throw notAsPrepared(call, i, p);
  return d;
}

/** Destination `i` of a prepared call not where the prepared split has one (`p`), or none. */
function notAsPrepared(what: string, i: number, p: Destination | undefined): SplitError {
  return new SplitError(
    'BAD_OPTIONS',
    `${what}: into[${i}] must be placed as prepared: ` +
      (p ? `a destination with strides [${p.strides.join(', ')}]` : 'no destination (the engine places it)'),
    `option:into[${i}]`,
  );
}

/**
 * Footprints (first byte to last, strided or not) are compared in whole 4-byte words, as the shaders write:
 * interleaved destinations in one buffer are refused, even where no element meets. A few destinations (a decode
 * step's) are compared pairwise, with nothing allocated; many, sorted by buffer and offset, each with the next.
 */
function checkApart(dests: readonly (Destination | undefined)[], what: string): void {
  const at: number[] = [];
  for (let i = 0; i < dests.length; i++) if (dests[i] && dests[i]!.bytes > 0) at.push(i);
  const few = at.length <= 8;
  if (!few) {
    const id = new Map<GPUBuffer, number>();
    for (const i of at) if (!id.has(dests[i]!.buffer)) id.set(dests[i]!.buffer, id.size);
    const key = (i: number) => id.get(dests[i]!.buffer)! * 2 ** 40 + dests[i]!.byteOffset;
    at.sort((i, j) => key(i) - key(j));
  }
  for (let a = 0; a < at.length; a++)
    for (let b = a + 1; b < (few ? at.length : Math.min(a + 2, at.length)); b++) {
      const [lo, hi] = dests[at[a]!]!.byteOffset < dests[at[b]!]!.byteOffset ? [at[a]!, at[b]!] : [at[b]!, at[a]!];
      const [d, prev] = [dests[hi]!, dests[lo]!];
      // A throw, not check(): its subject is text, which a pair that passes should not build.
      if (d.buffer === prev.buffer && Math.ceil((prev.byteOffset + prev.bytes) / 4) > Math.floor(d.byteOffset / 4))
        throw new SplitError(
          'BAD_INPUT',
          `${what}: into[${hi}] overlaps into[${lo}] in one buffer (bytes [${d.byteOffset}, ...) against ` +
            `[${prev.byteOffset}, ${prev.byteOffset + prev.bytes})); destinations in one buffer must lie in separate ` +
            '4-byte words, from first byte to last',
          `option:into[${hi}]`,
        );
    }
}
