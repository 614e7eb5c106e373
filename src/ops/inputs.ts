// Operator inputs: the data input checked against a version's type constraint, and the parameter
// inputs (split, axis, split_lengths) read into plain numbers on the CPU.

import { type SplitErrorCode, asInt, check } from '../errors.js';
import { type DType, type FixedDType, ONNX_DTYPES } from '../dtype.js';
import { halfToNumber } from '../half.js';
import { hostDataFromBytes } from '../host-data.js';
import { MAX_OUTPUTS } from '../shape.js';
import type { HostView, TensorView } from '../read/tensor.js';

// The integer types (ONNX_DTYPES holds no packed one), int8 to uint64.
export const INTEGER_DTYPES: readonly DType[] = ONNX_DTYPES.filter((d) => /int/.test(d));
export const ONNX_BUT_BFLOAT16: readonly DType[] = ONNX_DTYPES.filter((d) => d !== 'bfloat16');

/** The rule a 1-D parameter of lengths breaks when it has another rank (Split's 'split', VariadicSplit's lengths). */
export const ONE_PER_OUTPUT = 'a 1-D tensor with one length per output';

/** One type parameter of a version's signature, e.g. T of Split-11: how messages name it, and its dtypes. */
export type TypeParam = { readonly name: string; readonly dtypes: readonly DType[] };

/** Refuses a dtype the type parameter does not list; `elsewhere` says where it is allowed (worked out only then). */
export function checkDType(v: TensorView, param: TypeParam, who: string, name: string, elsewhere?: () => string): void {
  check(
    param.dtypes.includes(v.dtype),
    'BAD_DTYPE',
    () =>
      `${who}: input '${name}' has dtype ${v.dtype}, which ${param.name} does not allow ` +
      `(allowed: ${param.dtypes.join(', ')})${elsewhere ? `; ${elsewhere()}` : ''}`,
    `input:${name}.dtype`,
  );
}

/** The dtypes of an ONNX operator's type T (its data input's), by version. */
export type TypeT = Readonly<Record<number, readonly DType[]>>;

/** Refuses data of a dtype this version's type T does not list, naming a version that takes it. */
export function checkData(v: TensorView, op: string, version: number, t: TypeT): void {
  const elsewhere = () => laterVersion(op, v.dtype, version, t);
  checkDType(v, { name: 'type T', dtypes: t[version]! }, `${op}-${version}`, 'input', elsewhere);
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
  check(
    ranks.includes(v.shape.length),
    'BAD_INPUT',
    () => `${who}: input '${name}' must be ${rule}, got shape [${v.shape.join(', ')}]`,
    `input:${name}.shape`,
  );
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
function laterVersion(op: string, d: DType, version: number, t: TypeT): string {
  if (!ONNX_DTYPES.includes(d)) return `no ONNX version of ${op} lists ${d} (an OpenVINO type: VariadicSplit takes it)`;
  const v = Object.keys(t)
    .map(Number)
    .find((x) => x > version && t[x]!.includes(d));
  return v === undefined ? `no version of ${op} takes ${d}` : `${d} is allowed from ${op}-${v} (opset ${v})`;
}
