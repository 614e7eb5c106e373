// Pins the layout reflected from shaders/split-gather.wgsl: a WGSL edit that moves a member
// fails here first, and the host encoders follow the reflection, never hand-written offsets.
import { expect, test } from 'vitest';
import { entryPoint, gatherLayout, shaderText } from '../../src/gpu/shader.js';

test('reflected gather layout', () => {
  expect(gatherLayout()).toEqual({
    params: { size: 16, region_base: 0, region_count: 4, thread_count: 8, pad: 12 },
    region: { size: 36, stride: 36, start: 0, src: 4, dst: 8, row_len: 12, src_stride: 16, rows: 20, count: 24, src_step: 28, dst_step: 32 },
    workgroupSize: 256,
    bindings: { params: 0, regions: 1, src: 2, dst: 3 },
  });
});

test('variants change only the Word alias', () => {
  const lines = (u: 1 | 4 | 8 | 16) => shaderText(u).split('\n');
  const base = lines(4);
  for (const u of [8, 16] as const) {
    const diff = lines(u).filter((l, i) => l !== base[i]);
    expect(diff).toEqual([`alias Word = ${u === 8 ? 'vec2<u32>' : 'vec4<u32>'};`]);
  }
  expect(shaderText(1)).toBe(shaderText(4));
  expect(entryPoint(1)).toBe('gather_bytes');
  expect(entryPoint(16)).toBe('gather_words');
});
