// Operator inputs: the data input (host or GPU) checked against a version's type constraint, and
// the parameter inputs (split, axis, split_lengths) read into plain numbers. Parameters must be
// host tensors: Cleave plans on the CPU and never reads GPU data back behind the caller's back.

import { type SplitErrorCode, SplitError, check, guardRead } from '../errors.js';
import { type DType, type FixedDType, ONNX_DTYPES, halfToNumber, hostDataFromBytes } from '../dtype.js';
import { MAX_OUTPUTS } from '../planner/split.js';
import type { HostView, TensorView } from '../tensor.js';

export const INTEGER_DTYPES: readonly DType[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
export const ONNX_ALL: readonly DType[] = ONNX_DTYPES;
export const ONNX_BUT_BFLOAT16: readonly DType[] = ONNX_DTYPES.filter((d) => d !== 'bfloat16');

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
    `(allowed: ${param.dtypes.join(', ')})${elsewhere ? `; ${elsewhere}` : ''}`, { kind: 'input', name: input, part: 'dtype' });
}

/** The data input: its dtype within the version's constraint. */
export function dataInput(v: TensorView, who: string, input: string, param: TypeParam, elsewhere?: (d: DType) => string | undefined): TensorView {
  checkDType(v.dtype, param, who, input, elsewhere?.(v.dtype));
  return v;
}

/** A parameter input, which the planner reads on the CPU, must be a host tensor: refused before it is read further. */
export function refuseGpuParam(t: unknown, who: string, input: string): void {
  const gpu = guardRead(who, () => typeof t === 'object' && t !== null && 'buffer' in t);
  check(!gpu, 'BAD_INPUT',
    () => `${who}: input '${input}' is a GPU tensor, but Cleave plans on the CPU and does not read GPU data back ` +
      `implicitly; pass '${input}' as a HostTensor (download it first if it only exists on the GPU)`, { kind: 'input', name: input });
}

/** A parameter input as a host view (inputSlots has refused GPU tensors). */
export function hostParam(v: TensorView): HostView {
  if (v.kind !== 'host') throw new Error('unreachable: inputSlots refuses GPU parameters');
  return v;
}

/** Checks a parameter's rank: `ranks` lists the ones allowed. */
export function checkRank(v: TensorView, who: string, input: string, ranks: readonly number[], rule: string): void {
  check(ranks.includes(v.shape.length), 'BAD_INPUT',
    () => `${who}: input '${input}' must be ${rule}, got shape [${v.shape.join(', ')}]`, { kind: 'input', name: input, part: 'shape' });
}

/**
 * The values of an integer or float parameter tensor as JS numbers, at most MAX_OUTPUTS of them.
 * Every value must be an integer within +-(2^53 - 1); anything else fails with `code`.
 */
export function readIntegers(v: HostView, who: string, input: string, code: SplitErrorCode): number[] {
  const at = { kind: 'input', name: input, part: 'values' } as const;
  check(v.numel <= MAX_OUTPUTS, 'TOO_LARGE', () => `${who}: input '${input}' holds ${v.numel} values; a split makes at most ${MAX_OUTPUTS} outputs`, at);
  const data = hostDataFromBytes(v.dtype as FixedDType, v.bytes) as ArrayLike<number | bigint>;
  const out: number[] = [];
  for (let i = 0; i < v.numel; i++) {
    const raw = data[i]!;
    const n = typeof raw === 'bigint' ? raw : v.dtype === 'float16' ? halfToNumber(raw) : raw;
    if (typeof n === 'bigint') {
      check(n >= -BigInt(Number.MAX_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER), code,
        () => `${who}: input '${input}' value ${n} at index ${i} lies beyond +-(2^53 - 1), far outside any dimension`, at);
      out.push(Number(n));
    } else {
      check(Number.isInteger(n), code, () => `${who}: input '${input}' value ${n} at index ${i} is not an integer`, at);
      check(Number.isSafeInteger(n), code,
        () => `${who}: input '${input}' value ${n} at index ${i} lies beyond +-(2^53 - 1), far outside any dimension`, at);
      out.push(n + 0); // -0 (a float16 or float split) would leak into shapes
    }
  }
  return out;
}

/** Where a dtype a version refuses is allowed: "bfloat16 is allowed from Split-13 (opset 13)". */
export function laterVersion(op: string, d: DType, version: number, types: Readonly<Record<number, TypeParam>>): string {
  if (!ONNX_DTYPES.includes(d)) return `no ONNX version of ${op} lists ${d} (an OpenVINO type: OpenVINO's VariadicSplit takes it)`;
  const v = Object.keys(types).map(Number).sort((a, b) => a - b).find((x) => x > version && types[x]!.dtypes.includes(d));
  return v === undefined ? `no version of ${op} takes ${d}` : `${d} is allowed from ${op}-${v} (opset ${v})`;
}
