// The split plan: pure functions from (dtype, shape, axis, split lengths) to the [outer, axis,
// inner] view every executor carries out. Nothing here knows of GPUs or of operator versions.

import { SplitError, type SubjectKey, asInt, check, show, showList } from '../errors.js';
import type { DType } from '../dtype.js';
import { product } from '../shape.js';

/** A split seen as [outer, axisLen, inner]: every output is [outer, size_i, inner]. */
export interface SplitPlan {
  /** The input's dtype. */
  readonly dtype: DType;
  /** The input's shape. */
  readonly shape: readonly number[];
  /** The axis split, from 0 (a negative axis resolved). */
  readonly axis: number;
  /** The product of the dimensions before the axis. */
  readonly outer: number;
  /** The axis's length. */
  readonly axisLen: number;
  /** The product of the dimensions after the axis. */
  readonly inner: number;
  /** Each output's length along the axis. */
  readonly sizes: readonly number[];
  /** Offset of each output along the axis. */
  readonly starts: readonly number[];
  /** Each output's shape: the input's, with the axis's length replaced by the output's. */
  readonly outputShapes: readonly (readonly number[])[];
}

/** Where each argument of a split came from, so an error names it. */
export type PlanSubjects = { readonly axis: SubjectKey; readonly sizes: SubjectKey };

const OPTION_SUBJECTS: PlanSubjects = { axis: 'option:axis', sizes: 'option:sizes' };

/** Resolves a possibly negative axis, as given, against a rank; `who` prefixes the message. */
function normalizeAxis(given: unknown, rank: number, who: string, subject: SubjectKey): number {
  const axis = asInt(given);
  check(axis !== undefined, 'AXIS_RANGE', () => `${who}: axis must be an integer, got ${show(given)}`, subject);
  check(rank > 0, 'RANK', () => `${who}: the input is rank 0 (a scalar): no axis to split`, 'input:input.shape');
  check(
    axis >= -rank && axis < rank,
    'AXIS_RANGE',
    () => `${who}: axis ${axis} is outside [${-rank}, ${rank - 1}] for rank ${rank}`,
    subject,
  );
  return axis < 0 ? axis + rank : axis;
}

/**
 * Equal parts with a smaller tail: chunks of ceil(dim/parts), clamped to what remains, so trailing
 * chunks may be empty (5 into 4 = [2, 2, 1, 0]). This is the ONNX reference implementation's rule.
 * `parts` has been checked (an integer from 1 to MAX_OUTPUTS).
 */
export function equalParts(dim: number, parts: number): number[] {
  const chunk = Math.ceil(dim / parts);
  const sizes = new Array<number>(parts);
  let left = dim;
  for (let i = 0; i < parts; i++) {
    sizes[i] = Math.min(chunk, left);
    left -= sizes[i]!;
  }
  return sizes;
}

/**
 * The split lengths along an axis: as given, or worked out from the axis's length `dim` and its index (from 0) by
 * the caller's rule (equal parts, chunks, one length inferred), so that the axis is resolved here only.
 */
export type Sizes = readonly unknown[] | ((dim: number, axis: number) => readonly unknown[]);

/**
 * Plans a split of `shape` along `axis` (as given: undefined is the default, 0) into `given` sizes, checking every
 * rule. Plain loops, no closure per size: this runs whenever a split is made, and 4096-output splits are a case we
 * care about; a message's closure is made only for a bad size. The sizes are capped (MAX_OUTPUTS) where they are read.
 */
export function planSplit(
  dtype: DType,
  shape: readonly number[],
  axis: unknown,
  given: Sizes,
  who = 'split',
  subjects: PlanSubjects = OPTION_SUBJECTS,
): SplitPlan {
  const ax = normalizeAxis(axis === undefined ? 0 : axis, shape.length, who, subjects.axis);
  const axisLen = shape[ax]!;
  const sizes = typeof given === 'function' ? given(axisLen, ax) : given;
  // No outputs at all only makes sense for an empty axis (SplitToSequence's empty sequence).
  check(
    sizes.length > 0 || axisLen === 0,
    'BAD_SIZE',
    () => `${who}: no split lengths for dimension ${ax} of length ${axisLen}`,
    subjects.sizes,
  );
  const n = sizes.length;
  const clean: number[] = [];
  const starts: number[] = [];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = sizes[i];
    if (!(typeof s === 'number' && Number.isSafeInteger(s) && s >= 0))
      throw new SplitError(
        'BAD_SIZE',
        `${who}: split length ${i} must be an integer >= 0, got ${show(s)}`,
        subjects.sizes,
      );
    clean.push(s + 0); // -0 never reaches a shape
    starts.push(sum);
    sum += s;
  }
  check(
    sum === axisLen,
    'SIZE_SUM',
    () =>
      `${who}: split lengths ${showList(clean)} sum to ${sum} but dimension ${ax} of the input has length ${axisLen}` +
      (axis === undefined ? ' (the axis defaulted to 0: give one to split another)' : ''),
    subjects.sizes,
  );
  return {
    dtype,
    shape: [...shape],
    axis: ax,
    axisLen,
    outer: product(shape.slice(0, ax)),
    inner: product(shape.slice(ax + 1)),
    sizes: clean,
    starts,
    outputShapes: outputShapesOf(shape, ax, clean),
  };
}

/**
 * Output shapes, frozen: outputs of one length share one array (4096 equal parts build one shape,
 * not 4096), and since none can be written, no caller can change another output's shape.
 */
function outputShapesOf(shape: readonly number[], ax: number, sizes: readonly number[]): (readonly number[])[] {
  const out = new Array<readonly number[]>(sizes.length);
  let last: readonly number[] | undefined;
  for (let i = 0; i < sizes.length; i++) {
    const s = sizes[i]!;
    if (last === undefined || last[ax] !== s) {
      const dims = [...shape];
      dims[ax] = s;
      last = Object.freeze(dims);
    }
    out[i] = last;
  }
  return out;
}
