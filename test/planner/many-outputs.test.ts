// Splits of many outputs, as the planner builds them: shapes shared and frozen, and the one-pass
// layout (outputs, regions, runs) for equal and mixed lengths.
import { describe, expect, test } from 'vitest';
import { equalParts, planSplit } from '../../src/index.js';
import { DEFAULT_COSTS } from '../../src/planner/costs.js';
import type { GpuLimits, GpuPlan } from '../../src/planner/types.js';
import { planGpu } from '../../src/planner/gpu.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  costs: DEFAULT_COSTS,
};

function gatherOf(g: GpuPlan): GpuPlan {
  expect(g.strategy).toBe('gather');
  return g as GpuPlan;
}

describe('output shapes', () => {
  test('outputs of one length share one frozen shape; other lengths get their own', () => {
    const p = planSplit('float32', [3, 5, 2], 1, [2, 2, 1, 0]);
    expect(p.outputShapes).toEqual([
      [3, 2, 2],
      [3, 2, 2],
      [3, 1, 2],
      [3, 0, 2],
    ]);
    expect(p.outputShapes.every((s) => Object.isFrozen(s))).toBe(true);
    expect(p.outputShapes[0]).toBe(p.outputShapes[1]);
    expect(new Set(p.outputShapes).size).toBe(3);
    // The plan's own shape is the caller's copy, not frozen, not shared with any output.
    expect(Object.isFrozen(p.shape)).toBe(false);
  });

  test('4096 equal parts build one shape, and no output can change it', () => {
    const p = planSplit('float32', [4096, 1], 0, equalParts(4096, 4096));
    expect(new Set(p.outputShapes).size).toBe(1);
    const shape = p.outputShapes[7]! as number[];
    expect(() => {
      shape[0] = 9;
    }).toThrow(TypeError);
    expect(() => shape.push(1)).toThrow(TypeError);
    expect(p.outputShapes[4095]).toEqual([1, 1]);
  });
});

describe('layout of many outputs', () => {
  test('4096 one-element outputs: aligned slots, one run of 4096 regions', () => {
    const p = planSplit('float32', [4096, 1], 0, equalParts(4096, 4096));
    const g = gatherOf(planGpu(p, LIMITS, { srcByteOffset: 0, allowAlias: true }));
    expect(g.outputs).toHaveLength(4096);
    expect(g.outputs.every((o, i) => o.byteOffset === i * 256 && o.byteLength === 4)).toBe(true);
    expect(g.targets[0]!.bytes).toBe(4095 * 256 + 4);
    expect(g.dispatches).toHaveLength(1);
    expect(g.dispatches[0]!.series).toEqual([
      { src: 0, dst: 0, row_len: 1, src_stride: 1, dst_stride: 1, rows: 1, count: 4096, src_step: 1, dst_step: 64 },
    ]);
  });

  test('mixed lengths: an empty output takes no room and breaks no run of the others', () => {
    // float32 [2, 9] along axis 1: strided rows, lengths 2 2 0 2 3 (bits: 64 64 0 64 96; row 288).
    const p = planSplit('float32', [2, 9], 1, [2, 2, 0, 2, 3]);
    const g = gatherOf(planGpu(p, LIMITS, { srcByteOffset: 8, allowAlias: false }));
    expect(g.outputs).toEqual([
      { target: 0, byteOffset: 0, byteLength: 16 },
      { target: 0, byteOffset: 256, byteLength: 16 },
      { target: 0, byteOffset: 512, byteLength: 0 },
      { target: 0, byteOffset: 512, byteLength: 16 },
      { target: 0, byteOffset: 768, byteLength: 24 },
    ]);
    expect(g.unitBits).toBe(32);
    const d = g.dispatches[0]!;
    expect(d.srcWindow).toEqual([0, 80]);
    // The empty output takes no room, so outputs 0, 1 and 3 are equal and equally spaced: one run;
    // output 4 differs in length.
    expect(d.series.map((r) => [r.src, r.dst, r.row_len, r.src_stride, r.rows, r.count])).toEqual([
      [2, 0, 2, 9, 2, 3],
      [8, 192, 3, 9, 2, 1],
    ]);
  });

  test('copies of contiguous outputs go to each output at its slot, named by output', () => {
    const p = planSplit('int32', [12], 0, [4, 0, 8]);
    const g = planGpu(p, LIMITS, { srcByteOffset: 0, allowAlias: false });
    expect(g.strategy).toBe('copy');
    if (g.strategy !== 'copy') return;
    expect(g.copies).toEqual([
      { output: 0, target: 0, src: 0, dst: 0, size: 16 },
      { output: 2, target: 0, src: 16, dst: 256, size: 32 },
    ]);
  });

  test('views: each output at its place in the input, empty ones at the input itself', () => {
    const p = planSplit('uint8', [1024], 0, [256, 0, 768]);
    const { strategy, outputs, copies, dispatches } = planGpu(p, LIMITS, { srcByteOffset: 512, allowAlias: true });
    expect({ strategy, outputs, copies, dispatches }).toEqual({
      copies: [],
      dispatches: [],
      strategy: 'alias',
      outputs: [
        { target: 0, byteOffset: 512, byteLength: 256 },
        { target: 0, byteOffset: 512, byteLength: 0 },
        { target: 0, byteOffset: 768, byteLength: 768 },
      ],
    });
  });
});
