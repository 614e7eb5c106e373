// Plans kept for repeated splits: the split plan (cache/recent-plans.ts) and the GPU plans made
// from it (cache/gpu-plans.ts). A kept plan comes back only for arguments that planSplit would
// plan the same, and a bad call after a good one of the same shape is still refused.
import { describe, expect, test } from 'vitest';
import { SplitError, equalParts, resolveNode } from '../../src/index.js';
import { planSplit } from '../../src/planner/split.js';
import { planSplitRecent } from '../../src/cache/recent-plans.js';
import { DEFAULT_COSTS, type CostModel } from '../../src/planner/costs.js';
import type { GpuLimits } from '../../src/planner/types.js';
import { planGpu } from '../../src/planner/gpu.js';
import { GpuPlanCache } from '../../src/cache/gpu-plans.js';

describe('split plans kept', () => {
  test('equal arguments get the same plan object, equal to a fresh plan', () => {
    const sizes = equalParts(4096, 4096);
    const a = planSplitRecent('float32', [4096, 1], 0, sizes);
    const b = planSplitRecent('float32', [4096, 1], 0, [...sizes]);
    expect(b).toBe(a);
    expect(b).toEqual(planSplit('float32', [4096, 1], 0, sizes));
  });

  test('a negative axis names the same plan as its positive form', () => {
    const a = planSplitRecent('int8', [2, 6, 3], 1, [4, 2]);
    expect(planSplitRecent('int8', [2, 6, 3], -2, [4, 2])).toBe(a);
    expect(planSplitRecent('int8', [2, 6, 3], -2, [4, 2]).axis).toBe(1);
  });

  test('any difference in dtype, shape, axis or lengths is a plan of its own', () => {
    const a = planSplitRecent('float32', [6, 6], 0, [2, 4]);
    const others = [
      planSplitRecent('int32', [6, 6], 0, [2, 4]),
      planSplitRecent('float32', [6, 7], 0, [2, 4]),
      planSplitRecent('float32', [6, 6, 1], 0, [2, 4]),
      planSplitRecent('float32', [6, 6], 1, [2, 4]),
      planSplitRecent('float32', [6, 6], 0, [4, 2]),
      planSplitRecent('float32', [6, 6], 0, [2, 4, 0]),
    ];
    for (const p of others) expect(p).not.toBe(a);
    expect(others.map((p) => [p.dtype, p.shape, p.axis, p.sizes])).toEqual([
      ['int32', [6, 6], 0, [2, 4]],
      ['float32', [6, 7], 0, [2, 4]],
      ['float32', [6, 6, 1], 0, [2, 4]],
      ['float32', [6, 6], 1, [2, 4]],
      ['float32', [6, 6], 0, [4, 2]],
      ['float32', [6, 6], 0, [2, 4, 0]],
    ]);
  });

  test('lengths that only look equal are checked, not answered from a kept plan', () => {
    const a = planSplitRecent('float32', [3], 0, [1, 2]);
    expect(planSplitRecent('float32', [3], 0, [1, -0, 2])).not.toBe(a);
    expect(() => planSplitRecent('float32', [3], 0, ['1', 2])).toThrow(SplitError);
    expect(() => planSplitRecent('float32', [3], 0, [1, 2.5])).toThrow(SplitError);
    expect(() => planSplitRecent('float32', [3], 0, [1, 1])).toThrow(/sum to 2/);
    expect(() => planSplitRecent('float32', [3], 3, [1, 2])).toThrow(/axis 3 is outside/);
    expect(() => planSplitRecent('float32', [3], -4, [1, 2])).toThrow(/axis -4 is outside/);
    expect(planSplitRecent('float32', [3], 0, [1, 2])).toBe(a);
  });

  test('an axis that only adds up to a kept one is checked, not answered from the kept plan', () => {
    const a = planSplitRecent('float32', [2, 3], 1, [1, 2]);
    // -0.9999999999999999 + 2 === 1 in floating point, but it is no integer axis.
    expect(() => planSplitRecent('float32', [2, 3], -0.9999999999999999, [1, 2])).toThrow(/axis .* is outside/);
    expect(planSplitRecent('float32', [2, 3], -1, [1, 2])).toBe(a);
  });

  test('a kept plan and its arrays are frozen: a change to one it handed out reaches no later split', () => {
    const node = {
      op: 'Split',
      opset: 13,
      inputs: [
        { dtype: 'float32', shape: [4], data: new Float32Array([1, 2, 3, 4]) },
        { dtype: 'int64', shape: [2], data: new BigInt64Array([2n, 2n]) },
      ],
      attrs: { axis: 0 },
    } as const;
    const r = resolveNode(node);
    for (const a of [r.plan, r.plan.shape, r.plan.sizes, r.plan.starts, r.plan.outputShapes, r.outputShapes])
      expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      (r.plan.starts as number[])[1] = 0;
    }).toThrow(TypeError);
    expect(() => {
      (r.outputShapes as (readonly number[])[])[1] = [7];
    }).toThrow(TypeError);
    const again = resolveNode(node);
    expect(again.plan).toBe(r.plan);
    expect(again.plan.starts).toEqual([0, 2]);
    expect(again.outputShapes).toEqual([[2], [2]]);
  });

  test('-0 in the lengths plans as 0 and finds the plan of 0', () => {
    const a = planSplitRecent('float32', [3], 0, [3, 0]);
    const b = planSplitRecent('float32', [3], 0, [3, -0]);
    expect(b).toBe(a);
    expect(Object.is(b.sizes[1], 0)).toBe(true);
  });

  test('sixteen other plans later, the first is planned again (a new object, equal)', () => {
    const a = planSplitRecent('uint8', [10], 0, [5, 5]);
    for (let n = 1; n <= 16; n++) planSplitRecent('uint8', [10 + n], 0, [5, 5 + n]);
    const b = planSplitRecent('uint8', [10], 0, [5, 5]);
    expect(b).not.toBe(a);
    expect(b).toEqual(a);
  });
});

describe('GPU plans kept per split plan', () => {
  function limitsWith(costs: { current: CostModel }): GpuLimits {
    return {
      alignment: 256,
      maxBindingBytes: 128 << 20,
      maxBufferBytes: 256 << 20,
      get costs() {
        return costs.current;
      },
    };
  }

  test('the same plan, offset, alias rule and strategy give the same GPU plan, equal to a fresh one', () => {
    const costs = { current: DEFAULT_COSTS };
    const limits = limitsWith(costs);
    const cache = new GpuPlanCache(limits);
    const p = planSplit('float32', [4096, 1], 0, equalParts(4096, 4096));
    const opts = { srcByteOffset: 0, allowAlias: true };
    const a = cache.get(p, opts);
    expect(cache.get(p, { ...opts })).toBe(a);
    expect(a).toEqual(planGpu(p, limits, opts));
  });

  test('another offset, alias rule, strategy or cost model is planned again', () => {
    const costs = { current: DEFAULT_COSTS };
    const limits = limitsWith(costs);
    const cache = new GpuPlanCache(limits);
    const p = planSplit('float32', [64, 4], 0, [32, 32]);
    const base = { srcByteOffset: 0, allowAlias: true } as const;
    const a = cache.get(p, base);
    const variants = [
      { ...base, srcByteOffset: 256 },
      { ...base, allowAlias: false },
      { ...base, strategy: 'gather' as const },
    ];
    for (const o of variants) {
      const g = cache.get(p, o);
      expect(g).not.toBe(a);
      expect(g).toEqual(planGpu(p, limits, o));
    }
    expect(cache.get(p, variants[1]!).strategy).toBe(planGpu(p, limits, variants[1]!).strategy);
    // A calibration replaces the cost model: plans made under the old one are not used again.
    costs.current = { ...DEFAULT_COSTS, copyCommandNs: 1e9 };
    const after = cache.get(p, { ...base, allowAlias: false });
    expect(after).toEqual(planGpu(p, limits, { ...base, allowAlias: false }));
    expect(after.strategy).toBe('gather');
    expect(planGpu(p, { ...limits, costs: DEFAULT_COSTS }, { ...base, allowAlias: false }).strategy).toBe('copy');
  });

  test("a split into a caller's destinations is planned every time", () => {
    const cache = new GpuPlanCache(limitsWith({ current: DEFAULT_COSTS }));
    const p = planSplit('float32', [8], 0, [4, 4]);
    const into = [
      { target: 1, byteOffset: 0, strides: [1] },
      { target: 1, byteOffset: 16, strides: [1] },
    ];
    const opts = { srcByteOffset: 0, allowAlias: false, into };
    expect(cache.get(p, opts)).not.toBe(cache.get(p, opts));
    expect(cache.get(p, opts)).toEqual(planGpu(p, limitsWith({ current: DEFAULT_COSTS }), opts));
  });
});
