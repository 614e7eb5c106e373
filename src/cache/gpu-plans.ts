// GPU plans kept per split plan: the split planner hands a repeated split the same plan object
// (recent-plans.ts), and its GPU plan is then made once per input offset, alias rule, layout,
// forced strategy and cost model, not once per call. A GPU plan is never changed after it is made, so
// every split that gets it may read it. Splits into a caller's destinations are planned each time.

import type { SplitPlan } from '../planner/split.js';
import type { GpuLimits, GpuPlan, GpuPlanOptions } from '../planner/types.js';
import { planGpu } from '../planner/gpu.js';

interface Kept {
  readonly srcByteOffset: number;
  readonly allowAlias: boolean;
  readonly separate: boolean;
  readonly strategy: GpuPlanOptions['strategy'];
  readonly costs: GpuLimits['costs'];
  readonly plan: GpuPlan;
}

/** GPU plans kept per split plan: a tensor split at a few offsets, under a forced strategy or not. */
const PER_PLAN = 4;

export class GpuPlanCache {
  private readonly kept = new WeakMap<SplitPlan, Kept[]>();

  constructor(private readonly limits: GpuLimits) {}

  /** planGpu(plan, limits, opts), kept for the next split of the same plan. */
  get(plan: SplitPlan, opts: GpuPlanOptions): GpuPlan {
    if (opts.into) return planGpu(plan, this.limits, opts);
    const { srcByteOffset, allowAlias, strategy } = opts;
    const separate = opts.separate ?? false;
    // Read once: calibration replaces the cost model, and the plans made under the old one lapse.
    const costs = this.limits.costs;
    let list = this.kept.get(plan);
    if (!list) this.kept.set(plan, (list = []));
    for (const k of list)
      if (
        k.srcByteOffset === srcByteOffset &&
        k.allowAlias === allowAlias &&
        k.separate === separate &&
        k.strategy === strategy &&
        k.costs === costs
      )
        return k.plan;
    const made = planGpu(plan, this.limits, opts);
    list.push({ srcByteOffset, allowAlias, separate, strategy, costs, plan: made });
    if (list.length > PER_PLAN) list.shift();
    return made;
  }
}
