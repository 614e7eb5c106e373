// Output shapes of many-output splits: GPU outputs of one length share one frozen shape array (a
// 4096-output split builds one, not 4096), so a caller holding one output cannot change another's;
// host outputs keep their own copies.
import { describe, expect } from 'vitest';
import type { GpuTensor, HostTensor } from '../../src/index.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { expectSplitOf } from '../helpers/check.js';
import { downloadAll } from '../helpers/download.js';
import { gpuTest } from '../helpers/gpu.js';

describe('output shapes', () => {
  gpuTest('4096 one-element GPU outputs: frozen shapes no output can change, right values', async (g) => {
    const e = await g.engine();
    const x = randomTensor('float32', [4096, 1], rng(17)) as HostTensor<'float32'>;
    const gx = e.upload(x);
    const outs = await e.split(gx, { axis: 0, parts: 4096 });
    expect(e.stats.strategy).toBe('gather');
    expect(outs.every((o) => Object.isFrozen(o.shape))).toBe(true);
    const held = outs[5]!.shape as number[];
    expect(() => {
      held[0] = 7;
    }).toThrow(TypeError);
    expect(() => held.push(1)).toThrow(TypeError);
    expect(outs.every((o) => o.shape.length === 2 && o.shape[0] === 1 && o.shape[1] === 1)).toBe(true);
    // A spread copy carries the shape (and is still refused once released, as before).
    const copy = { ...outs[9]! };
    expect(copy.shape).toEqual([1, 1]);
    expectSplitOf(await downloadAll(e, outs), x, 0, Array<number>(4096).fill(1));
    for (const o of outs) e.release(o);
    e.release(gx);
  });

  gpuTest('mixed lengths: GPU outputs share frozen shapes, host outputs own theirs', async (g) => {
    const e = await g.engine();
    const x = randomTensor('int32', [3, 7], rng(18)) as HostTensor<'int32'>;
    const outs = await e.split(x, { axis: 1, sizes: [2, 2, 0, 3] });
    expectSplitOf(outs, x, 1, [2, 2, 0, 3]);
    expect(outs.map((o) => o.shape)).toEqual([
      [3, 2],
      [3, 2],
      [3, 0],
      [3, 3],
    ]);
    // Host outputs own their shape arrays (copied, as before): a write to one reaches no other.
    (outs[0]!.shape as number[])[1] = 5;
    expect(outs[1]!.shape).toEqual([3, 2]);
    const gx = e.upload(x);
    const gouts: GpuTensor[] = await e.split(gx, { axis: 1, sizes: [2, 2, 0, 3], alias: 'none' });
    expect(gouts.every((o) => Object.isFrozen(o.shape))).toBe(true);
    expect(gouts[0]!.shape).toBe(gouts[1]!.shape);
    expect(() => {
      (gouts[0]!.shape as number[])[1] = 5;
    }).toThrow(TypeError);
    expect(gouts.map((o) => o.shape)).toEqual([
      [3, 2],
      [3, 2],
      [3, 0],
      [3, 3],
    ]);
    expectSplitOf(await downloadAll(e, gouts), x, 1, [2, 2, 0, 3]);
    for (const o of gouts) e.release(o);
    e.release(gx);
  });
});
