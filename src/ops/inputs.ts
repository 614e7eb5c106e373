// Operator inputs: the data input checked against a version's type constraint, and the parameter
// inputs (split, axis, split_lengths) read into plain numbers on the CPU.

import { type SplitErrorCode, SplitError, asInt, check } from '../errors.js';
import { type DType, type FixedDType, ONNX_DTYPES } from '../dtype.js';
import { halfToNumber } from '../half.js';
import { hostDataFromBytes } from '../host-data.js';
import { MAX_OUTPUTS } from '../shape.js';
import type { HostView, TensorView } from '../read/tensor.js';

export const INTEGER_DTYPES: readonly DType[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
];
export const ONNX_BUT_BFLOAT16: readonly DType[] = ONNX_DTYPES.filter((d) => d !== 'bfloat16');

/** One type parameter of a version's signature, e.g. T of Split-11: how messages name it, and its dtypes. */
export interface TypeParam {
  readonly name: string;
  readonly dtypes: readonly DType[];
}

/** Refuses a dtype the type parameter does not list; `elsewhere` says where it is allowed (worked out only then). */
export function checkDType(v: TensorView, param: TypeParam, who: string, name: string, elsewhere?: () => string): void {
  if (!param.dtypes.includes(v.dtype)) {
    throw new SplitError(
      'BAD_DTYPE',
      `${who}: input '${name}' has dtype ${v.dtype}, which ${param.name} does not allow ` +
        `(allowed: ${param.dtypes.join(', ')})${elsewhere ? `; ${elsewhere()}` : ''}`,
      `input:${name}.dtype`,
    );
  }
}

/** A parameter's rank must be one of `ranks`. */
export function checkRank(v: TensorView, who: string, name: string, ranks: readonly number[], rule: string): void {
  check(
    ranks.includes(v.shape.length),
    'BAD_INPUT',
    () => `${who}: input '${name}' must be ${rule}, got shape [${v.shape.join(', ')}]`,
    `input:${name}.shape`,
  );
}

/**
 * A parameter tensor (a host tensor: inputSlots refuses GPU ones) of one of `param`'s dtypes and
 * one of `ranks`, read as JS numbers: at most MAX_OUTPUTS integers within +-(2^53 - 1), else `code`.
 */
export function readParam(
  t: TensorView,
  who: string,
  name: string,
  param: TypeParam,
  ranks: readonly number[],
  rule: string,
  code: SplitErrorCode,
): { values: number[]; rank: number } {
  const v = t as HostView;
  checkDType(v, param, who, name);
  checkRank(v, who, name, ranks, rule);
  const at = `input:${name}.values` as const;
  check(
    v.numel <= MAX_OUTPUTS,
    'TOO_LARGE',
    () => `${who}: input '${name}' holds ${v.numel} values; at most ${MAX_OUTPUTS}`,
    at,
  );
  const data = hostDataFromBytes(v.dtype as FixedDType, v.bytes) as ArrayLike<number | bigint>;
  const values = Array.from({ length: v.numel }, (_, i) => {
    const raw = data[i]!;
    const n = Number(v.dtype === 'float16' ? halfToNumber(raw as number) : raw);
    check(Number.isInteger(n), code, () => `${who}: input '${name}' value ${raw} at index ${i} is not an integer`, at);
    const k = asInt(n); // -0 (a float16 or float split) reads as 0, so it never reaches a shape
    check(k !== undefined, code, () => `${who}: input '${name}' value ${raw} at index ${i} is beyond 2^53`, at);
    return k;
  });
  return { values, rank: v.shape.length };
}

/** Where a dtype a version refuses is allowed: "bfloat16 is allowed from Split-13 (opset 13)". */
export function laterVersion(
  op: string,
  d: DType,
  version: number,
  types: Readonly<Record<number, TypeParam>>,
): string {
  if (!ONNX_DTYPES.includes(d)) return `no ONNX version of ${op} lists ${d} (an OpenVINO type: VariadicSplit takes it)`;
  const v = Object.keys(types)
    .map(Number)
    .find((x) => x > version && types[x]!.dtypes.includes(d));
  return v === undefined ? `no version of ${op} takes ${d}` : `${d} is allowed from ${op}-${v} (opset ${v})`;
}
