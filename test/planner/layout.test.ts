// The gather shader's layout: reflected from shaders/split-gather.wgsl at build time into
// src/gpu/layout.generated.ts. A WGSL edit that moves a member fails here (and in the build) until
// the generated layout is rewritten; the host encoders follow the layout, never hand-written offsets.
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { BINDING, LAYOUT, bindGroupLayoutEntries, encodeRegion } from '../../src/gpu/layout.js';
import { entryPoint, shaderText } from '../../src/gpu/shader.js';

test('the generated layout matches the WGSL (wgsl_reflect, run again now)', () => {
  // Exits non-zero, naming the file, when they disagree.
  expect(() => execFileSync('node', ['scripts/wgsl-layout.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
});

test('pinned layout', () => {
  expect(LAYOUT.params).toEqual({
    size: 16,
    members: { region_base: 0, region_count: 4, thread_count: 8, msb_first: 12 },
  });
  expect(LAYOUT.region).toEqual({
    size: 36,
    stride: 36,
    members: { start: 0, src: 4, dst: 8, row_len: 12, src_stride: 16, rows: 20, count: 24, src_step: 28, dst_step: 32 },
  });
  expect(LAYOUT.workgroupSize).toBe(256);
  expect(BINDING).toEqual({ params: 0, regions: 1, src: 2, dst: 3 });
});

test('bind group entry types come from each variable address space and access', () => {
  expect(bindGroupLayoutEntries().map((e) => e.buffer?.type)).toEqual([
    'uniform',
    'read-only-storage',
    'read-only-storage',
    'storage',
  ]);
});

test('a region is encoded member by member at the reflected offsets', () => {
  const view = new DataView(new ArrayBuffer(36));
  encodeRegion(view, 0, {
    start: 1,
    src: 2,
    dst: 3,
    row_len: 4,
    src_stride: 5,
    rows: 6,
    count: 7,
    src_step: 8,
    dst_step: 9,
  });
  expect([...new Uint32Array(view.buffer)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('variants change only the Word alias', () => {
  const lines = (u: 1 | 32 | 64 | 128) => shaderText(u).split('\n');
  const base = lines(32);
  for (const u of [64, 128] as const) {
    const diff = lines(u).filter((l, i) => l !== base[i]);
    expect(diff).toEqual([`alias Word = ${u === 64 ? 'vec2<u32>' : 'vec4<u32>'};`]);
  }
  expect(shaderText(1)).toBe(shaderText(32));
  expect(entryPoint(1)).toBe('gather_bits');
  expect(entryPoint(128)).toBe('gather_words');
});
