// Splits of many outputs, as the planner builds them: shapes shared and frozen, and the one-pass
// layout (outputs, regions, runs) for equal and mixed lengths.
import { describe, expect, test } from 'vitest';
import { equalParts, planSplit } from '../../src/index.js';
import { COST_TABLES } from '../../src/planner/costs.js';
import type { GpuLimits, GpuPlan, PlanKey } from '../../src/planner/types.js';
import { basesOf, planGpu } from '../../src/planner/gpu.js';

const LIMITS: GpuLimits = {
  alignment: 256,
  maxBindingBytes: 128 << 20,
  maxBufferBytes: 256 << 20,
  targetsPerDispatch: 6,
};

/** A plan key for a call without destinations: the input `srcByteOffset` past an aligned base. */
const key = (srcByteOffset: number, allowAlias: boolean, over: Partial<PlanKey> = {}): PlanKey => ({
  srcByteOffset,
  allowAlias,
  separate: false,
  strategy: 'auto',
  costs: COST_TABLES.software,
  into: undefined,
  ...over,
});

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
    const g = gatherOf(planGpu(p, LIMITS, key(0, true)));
    expect(g.outputs).toHaveLength(4096);
    expect(g.outputs.every((o, i) => o.target === 0 && o.byteOffset === i * 256 && o.byteLength === 4)).toBe(true);
    expect(g.targets).toEqual([{ kind: 'shared', bytes: 4095 * 256 + 4 }]);
    expect(g.dispatches).toHaveLength(1);
    // The run is one geometry whose rows are the outputs: its strides are the steps between them. One tile.
    expect(g.dispatches[0]!.tiles).toEqual([
      { src: 0, dst: 0, row_len: 1, rows: 4096, src_stride: 1, dst_stride: 64, first: 0, last: 4096, dst_binding: 0 },
    ]);
  });

  test('mixed lengths: an empty output takes no room and breaks no run of the others', () => {
    // float32 [9], lengths 2 2 0 2 3, one row each (bits: 64 64 0 64 96), the input 8 bytes past its base.
    const row = planSplit('float32', [9], 0, [2, 2, 0, 2, 3]);
    const r = gatherOf(planGpu(row, LIMITS, key(8, false, { strategy: 'gather' })));
    expect(r.outputs.map((o) => o.byteOffset)).toEqual([0, 256, 512, 512, 768]);
    expect(r.dispatches[0]!.srcWindow).toEqual([0, 44]);
    // The empty output takes no room, so outputs 0, 1 and 3 are equal and equally spaced: one run, a geometry of three
    // rows; output 4 differs in length.
    expect(r.dispatches[0]!.tiles.map((t) => [t.src, t.dst, t.row_len, t.rows, t.src_stride, t.dst_stride])).toEqual([
      [2, 0, 2, 3, 2, 64],
      [8, 192, 3, 1, 3, 3],
    ]);
    // float32 [2, 9] along axis 1: strided rows, the same lengths (row 288 bits).
    const p = planSplit('float32', [2, 9], 1, [2, 2, 0, 2, 3]);
    const g = gatherOf(planGpu(p, LIMITS, key(8, false)));
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
    // Outputs of several rows are a geometry each (a tile has one pair of strides, and its rows are the output's),
    // the empty one none.
    expect(d.tiles.map((t) => [t.src, t.dst, t.row_len, t.src_stride, t.rows])).toEqual([
      [2, 0, 2, 9, 2],
      [4, 64, 2, 9, 2],
      [6, 128, 2, 9, 2],
      [8, 192, 3, 9, 2],
    ]);
  });

  test('copies of contiguous outputs go to each output at its slot, in its target', () => {
    const p = planSplit('int32', [12], 0, [4, 0, 8]);
    const g = planGpu(p, LIMITS, key(0, false));
    expect(g.strategy).toBe('copy');
    if (g.strategy !== 'copy') return;
    expect(g.copies).toEqual([
      { target: 0, src: 0, dst: 0, size: 16 },
      { target: 0, src: 16, dst: 256, size: 32 },
    ]);
  });

  test('views: each output at its place in the input, empty ones at the input itself', () => {
    // The input at byte 512 of its buffer: the plan of its key (0 past an aligned base), at base 512.
    const p = planSplit('uint8', [1024], 0, [256, 0, 768]);
    const gp = planGpu(p, LIMITS, key(512 % 256, true));
    const { strategy, targets, outputs, copies, dispatches } = gp;
    expect({ strategy, targets, outputs, copies, dispatches }).toEqual({
      copies: [],
      dispatches: [],
      strategy: 'alias',
      targets: [{ kind: 'input', bytes: 0 }],
      outputs: [
        { target: 0, byteOffset: 0, byteLength: 256 },
        { target: 0, byteOffset: 0, byteLength: 0 },
        { target: 0, byteOffset: 256, byteLength: 768 },
      ],
    });
    expect(basesOf(gp, 512, undefined, true, 256)).toEqual([512]);
  });
});
