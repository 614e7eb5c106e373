// Operator inputs: the data input (host or GPU) checked against a version's type constraint, and
// the parameter inputs (split, axis, split_lengths) read into plain numbers. Parameters must be
// host tensors: Cleave plans on the CPU and never reads GPU data back behind the caller's back.

import { type SplitErrorCode, SplitError, check } from '../errors.js';
import { type DType, DTYPES, halfToNumber } from '../dtype.js';
import { type AnyTensor, type HostTensor, isGpuTensor, validateTensor } from '../tensor.js';

export const INTEGER_DTYPES: readonly DType[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
export const ALL_DTYPES: readonly DType[] = DTYPES;
export const ALL_BUT_BFLOAT16: readonly DType[] = DTYPES.filter((d) => d !== 'bfloat16');

/** One type parameter of a version's signature, e.g. T of Split-11. */
export interface TypeParam {
  /** How messages name it: 'type T', 'tensor(int64)'. */
  readonly name: string;
  readonly dtypes: readonly DType[];
}

/**
 * Refuses a dtype the type parameter does not list. `elsewhere` names the versions that would
 * take it, so the message says what to change.
 */
export function checkDType(dtype: DType, param: TypeParam, who: string, input: string, elsewhere?: string): void {
  if (param.dtypes.includes(dtype)) return;
  throw new SplitError('BAD_DTYPE', `${who}: input '${input}' has dtype ${dtype}, which ${param.name} does not allow ` +
    `(allowed: ${param.dtypes.join(', ')})${elsewhere ? `; ${elsewhere}` : ''}`);
}

/** The data input: host or GPU, validated, its dtype within the version's constraint. */
export function dataInput(t: AnyTensor, who: string, input: string, param: TypeParam, elsewhere?: (d: DType) => string | undefined): AnyTensor {
  validateTensor(t, `${who}: input '${input}'`);
  checkDType(t.dtype, param, who, input, elsewhere?.(t.dtype));
  return t;
}

/** A parameter input, which the planner reads on the CPU: it must be a host tensor. */
export function hostParam(t: AnyTensor, who: string, input: string): HostTensor {
  check(typeof t !== 'object' || t === null || !isGpuTensor(t), 'BAD_INPUT',
    () => `${who}: input '${input}' is a GPU tensor, but Cleave plans on the CPU and does not read GPU data back ` +
      `implicitly; pass '${input}' as a HostTensor (download it first if it only exists on the GPU)`);
  validateTensor(t, `${who}: input '${input}'`);
  return t as HostTensor;
}

/** Checks a parameter's rank: `ranks` lists the ones allowed. */
export function checkRank(t: HostTensor, who: string, input: string, ranks: readonly number[], rule: string): void {
  check(ranks.includes(t.shape.length), 'BAD_INPUT',
    () => `${who}: input '${input}' must be ${rule}, got shape [${t.shape.join(', ')}]`);
}

/**
 * The values of an integer or float parameter tensor as JS numbers. Every value must be an
 * integer within +-(2^53 - 1); anything else fails with `code`.
 */
export function readIntegers(t: HostTensor, who: string, input: string, code: SplitErrorCode): number[] {
  const data = t.data as ArrayLike<number | bigint | string>;
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const raw = data[i]!;
    const v = typeof raw === 'bigint' ? raw
      : t.dtype === 'float16' ? halfToNumber(raw as number)
        : typeof raw === 'number' ? raw : NaN;
    if (typeof v === 'bigint') {
      check(v >= -BigInt(Number.MAX_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER), code,
        () => `${who}: input '${input}' value ${v} at index ${i} lies beyond +-(2^53 - 1), far outside any dimension`);
      out.push(Number(v));
    } else {
      check(Number.isInteger(v), code, () => `${who}: input '${input}' value ${v} at index ${i} is not an integer`);
      check(Number.isSafeInteger(v), code,
        () => `${who}: input '${input}' value ${v} at index ${i} lies beyond +-(2^53 - 1), far outside any dimension`);
      out.push(v === 0 ? 0 : v); // -0 (a float16 or float split) would leak into shapes
    }
  }
  return out;
}


/** Where a dtype a version refuses is allowed: "bfloat16 is allowed from Split-13 (opset 13)". */
export function laterVersion(op: string, d: DType, version: number, types: Readonly<Record<number, TypeParam>>): string {
  const v = Object.keys(types).map(Number).sort((a, b) => a - b).find((x) => x > version && types[x]!.dtypes.includes(d));
  return v === undefined ? `no version of ${op} takes ${d}` : `${d} is allowed from ${op}-${v} (opset ${v})`;
}
