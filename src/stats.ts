// What a split did: on the GPU (strategy, shader word width, commands) or on the CPU. For tests,
// the bench and the demo; built from the plan that ran.

import type { GpuPlan, Strategy } from './planner/types.js';

/** What a split did: on the GPU, which strategy and how many commands; or that it ran on the CPU. */
export interface SplitStats {
  /** The GPU strategy the split took, or 'cpu' when the CPU executor split it. */
  readonly strategy: Strategy | 'cpu';
  /** Gather word width in bits (128, 64, 32; 1 = the bit-level variant); 0 when no shader ran. */
  readonly unitBits: 128 | 64 | 32 | 1 | 0;
  /**
   * Gather dispatches: one, more past a binding window or with several output buffers (a caller's destinations,
   * or one per output with layout 'separate'); 0 without a gather.
   */
  readonly dispatches: number;
  /** copyBufferToBuffer commands. */
  readonly copies: number;
}

export const CPU_STATS: SplitStats = { strategy: 'cpu', unitBits: 0, dispatches: 0, copies: 0 };

/** Stats made per GPU plan: a kept plan (cache/gpu-plans.ts) reports the same stats on every split. */
const made = new WeakMap<GpuPlan, SplitStats>();

export function statsOf(gp: GpuPlan): SplitStats {
  let stats = made.get(gp);
  if (!stats) made.set(gp, (stats = Object.freeze(statsFrom(gp))));
  return stats;
}

function statsFrom(gp: GpuPlan): SplitStats {
  switch (gp.strategy) {
    case 'alias':
      return { strategy: 'alias', unitBits: 0, dispatches: 0, copies: 0 };
    case 'copy':
      return { strategy: 'copy', unitBits: 0, dispatches: 0, copies: gp.copies.length };
    case 'gather':
      return {
        strategy: 'gather',
        unitBits: gp.unitBits,
        dispatches: gp.dispatches.length,
        copies: 0,
      };
  }
}
