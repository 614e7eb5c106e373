// The last few split plans, kept for the whole process, so a repeated split (a decode step, a
// layer after layer, 4096 one-element outputs per call) is planned once: a call whose arguments
// equal a kept plan's gets that same plan object back, which in turn keys the GPU plans made from
// it (gpu-plans.ts). Only plans that passed every check are kept, so a hit needs none; a miss is
// planned and checked in full. A kept plan is shared by every later call with its arguments (and
// `resolveNode` hands it out), so it is frozen with its arrays: nobody's change can reach another
// split. This state lives here, outside the planner, which stays pure.

import type { DType } from '../dtype.js';
import { type PlanSubjects, type SplitPlan, planSplit } from '../planner/split.js';

/** Plans kept, most recently used last: a model's distinct splits in a decode loop fit. */
const KEPT = 16;

const recent: SplitPlan[] = [];

/** `planSplit`, answered from the plans kept when the arguments equal one's. */
export function planSplitRecent(
  dtype: DType,
  shape: readonly number[],
  axis: number,
  sizes: readonly unknown[],
  who?: string,
  subjects?: PlanSubjects,
): SplitPlan {
  for (let k = recent.length - 1; k >= 0; k--) {
    const p = recent[k]!;
    if (!sameArguments(p, dtype, shape, axis, sizes)) continue;
    if (k !== recent.length - 1) recent.push(...recent.splice(k, 1));
    return p;
  }
  const p = frozen(planSplit(dtype, shape, axis, sizes, who, subjects));
  recent.push(p);
  if (recent.length > KEPT) recent.shift();
  return p;
}

/** Whether planSplit(dtype, shape, axis, sizes) would return plan `p` (strict equality throughout). */
function sameArguments(
  p: SplitPlan,
  dtype: DType,
  shape: readonly number[],
  axis: number,
  sizes: readonly unknown[],
): boolean {
  if (p.dtype !== dtype || p.shape.length !== shape.length || p.sizes.length !== sizes.length) return false;
  if (!Number.isSafeInteger(axis) || (axis !== p.axis && axis + shape.length !== p.axis)) return false;
  for (let i = 0; i < shape.length; i++) if (shape[i] !== p.shape[i]) return false;
  for (let i = 0; i < sizes.length; i++) if (sizes[i] !== p.sizes[i]) return false;
  return true;
}

/** `p` and its arrays frozen (output shapes are frozen already). */
function frozen(p: SplitPlan): SplitPlan {
  for (const a of [p.shape, p.sizes, p.starts, p.outputShapes]) Object.freeze(a);
  return Object.freeze(p);
}
