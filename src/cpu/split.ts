// The CPU executor: the same plan, carried out with typed-array copies. It serves strings always,
// complex host tensors, and every dtype on an engine with `backend: 'cpu'`.

import { type DType, type HostDataMap, type TypedArray, lanes } from '../dtype.js';
import type { HostTensor } from '../tensor.js';
import type { SplitPlan } from '../planner.js';

export function splitOnCpu<D extends DType>(plan: SplitPlan, x: HostTensor<D>,
  shapes: readonly (readonly number[])[] = plan.outputShapes): HostTensor<D>[] {
  const inner = plan.inner * lanes(x.dtype);
  const rowStride = plan.axisLen * inner;
  return plan.sizes.map((size, i) => {
    const run = size * inner;
    const src = x.data;
    let data: HostDataMap[DType];
    if (Array.isArray(src)) {
      const out: string[] = [];
      for (let o = 0; o < plan.outer; o++) {
        const at = o * rowStride + plan.starts[i]! * inner;
        for (let k = 0; k < run; k++) out.push(src[at + k]!);
      }
      data = out;
    } else {
      const typed = src as TypedArray;
      const out = new (typed.constructor as new (n: number) => TypedArray)(plan.outer * run);
      for (let o = 0; o < plan.outer; o++) {
        const at = o * rowStride + plan.starts[i]! * inner;
        (out as Uint8Array).set((typed as Uint8Array).subarray(at, at + run), o * run);
      }
      data = out;
    }
    return { dtype: x.dtype, shape: [...shapes[i]!], data } as unknown as HostTensor<D>;
  });
}
