// The gather shader's bindings and structs: reflected from shaders/split-gather.wgsl at build time
// into src/gpu/shader.generated.ts. A WGSL edit that moves a member fails here (and in the build) until
// the generated file is rewritten; the host encoders follow it, never hand-written offsets.
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { BINDING, GROUPS, REFLECTED, TARGETS_PER_DISPATCH, TARGET_GROUP } from '../../src/gpu/shader.js';
import { bindGroupLayoutEntries, encodeStruct } from '../../src/gpu/shader.js';
import { COMPUTE_STAGE } from '../../src/usage.js';
import { entryPoint, shaderText } from '../../src/gpu/shader.js';

test('the generated layout matches the WGSL (wgsl_reflect, run again now)', () => {
  // Exits non-zero, naming the file, when they disagree.
  expect(() => execFileSync('node', ['scripts/wgsl-reflect.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
});

test('pinned layout', () => {
  expect(REFLECTED.params).toEqual({ size: 12, members: { tile_base: 0, tile_count: 4, keep_tail: 8 } });
  // 0.7: a tile names the target it writes (dst_binding), so one dispatch writes up to six target buffers.
  const members = ['src', 'dst', 'row_len', 'rows', 'src_stride', 'dst_stride', 'first', 'last', 'dst_binding'];
  // Nine u32 members back to back: member k at byte 4k, a tile 36 bytes.
  expect(REFLECTED.tile).toEqual({
    size: 36,
    stride: 36,
    members: Object.fromEntries(members.map((m, k) => [m, 4 * k])),
  });
  expect(REFLECTED.workgroupSize).toBe(256);
  const dst = (k: number) => ({ group: 2, binding: k, name: `dst${k}`, type: 'storage' });
  expect(BINDING).toEqual({
    params: { group: 0, binding: 0, name: 'params', type: 'uniform' },
    tiles: { group: 0, binding: 1, name: 'tiles', type: 'read-only-storage' },
    src: { group: 1, binding: 0, name: 'src', type: 'read-only-storage' },
    ...Object.fromEntries([0, 1, 2, 3, 4, 5].map((k) => [`dst${k}`, dst(k)])),
  });
  // Six target bindings, all in group 2, in binding order: what a dispatch of the planner may bind.
  expect([TARGETS_PER_DISPATCH, TARGET_GROUP, GROUPS]).toEqual([6, 2, [0, 1, 2]]);
});

test('bind group entry types come from each variable address space and access', () => {
  const entries = [0, 1, 2].map((g) => bindGroupLayoutEntries(g, 3).map((e) => [e.binding, e.buffer?.type]));
  expect(entries).toEqual([
    [
      [0, 'uniform'],
      [1, 'read-only-storage'],
    ],
    [[0, 'read-only-storage']],
    [0, 1, 2, 3, 4, 5].map((k) => [k, 'storage']),
  ]);
});

test('dynamic offsets: the params, the source and the first `moving` targets; the tiles never', () => {
  const dynamic = (moving: number) =>
    [0, 1, 2].map((g) => bindGroupLayoutEntries(g, moving).map((e) => e.buffer?.hasDynamicOffset));
  // WebGPU's default limits: 4 dynamic storage buffers, the source's and three targets'.
  expect(dynamic(3)).toEqual([[true, false], [true], [true, true, true, false, false, false]]);
  // A device that allows 7 or more: every target moves.
  expect(dynamic(6)).toEqual([[true, false], [true], [true, true, true, true, true, true]]);
  // Every entry is the compute stage's, whatever moves.
  for (const moving of [3, 6])
    for (const g of GROUPS)
      expect(bindGroupLayoutEntries(g, moving).every((e) => e.visibility === COMPUTE_STAGE)).toBe(true);
});

test('a tile is encoded member by member at the reflected offsets', () => {
  const view = new DataView(new ArrayBuffer(36));
  const tile = { src: 1, dst: 2, row_len: 3, rows: 4, src_stride: 5, dst_stride: 6, first: 7, last: 8, dst_binding: 5 };
  encodeStruct(view, 0, REFLECTED.tile.members, tile);
  expect([...new Uint32Array(view.buffer)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 5]);
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
