// The gather shader's text per variant and its memory layout, read from the WGSL itself with
// wgsl_reflect: no byte offset is written by hand here, so editing a struct in the .wgsl file
// moves the host's encoding with it (test/planner/layout.test.ts pins the result).

import { type ArrayInfo, type StructInfo, WgslReflect } from 'wgsl_reflect/wgsl_reflect.module.js';
import gatherSource from '../../shaders/split-gather.wgsl?raw';
import type { Dispatch } from '../planner.js';

export type UnitBytes = 1 | 4 | 8 | 16;

const WORD_TYPE: Record<UnitBytes, string> = { 1: 'u32', 4: 'u32', 8: 'vec2<u32>', 16: 'vec4<u32>' };
const ALIAS_LINE = /^alias Word = .*;$/m;

/** Shader text for a word width: only the alias line changes. The byte variant shares u32's text. */
export function shaderText(unit: UnitBytes): string {
  return gatherSource.replace(ALIAS_LINE, `alias Word = ${WORD_TYPE[unit]};`);
}

export function entryPoint(unit: UnitBytes): 'gather_words' | 'gather_bytes' {
  return unit === 1 ? 'gather_bytes' : 'gather_words';
}

/** Byte offsets of one struct's members, as reflected. */
export type StructLayout<K extends string> = { readonly size: number } & { readonly [P in K]: number };

export interface GatherLayout {
  readonly params: StructLayout<'region_base' | 'region_count' | 'thread_count'>;
  /** Stride of one Region in the `regions` array, and its members' offsets. */
  readonly region: StructLayout<'start' | 'src' | 'dst' | 'row_len' | 'src_stride' | 'rows' | 'count' | 'src_step' | 'dst_step'>
    & { readonly stride: number };
  readonly workgroupSize: number;
  readonly bindings: { readonly params: number; readonly regions: number; readonly src: number; readonly dst: number };
}

let cached: GatherLayout | undefined;

export function gatherLayout(): GatherLayout {
  return (cached ??= reflectLayout(gatherSource));
}

export function reflectLayout(code: string): GatherLayout {
  const r = new WgslReflect(code);
  const uniform = r.uniforms.find((u) => u.name === 'params');
  const [regions, src, dst] = ['regions', 'src', 'dst'].map((n) => r.storage.find((s) => s.name === n));
  const entry = r.entry.compute.find((e) => e.name === 'gather_words');
  if (!uniform || !regions || !src || !dst || !entry) {
    throw new Error('split-gather.wgsl: expected params, regions, src and dst bindings and a gather_words entry point');
  }
  const region = regions.type as ArrayInfo;
  return {
    params: { size: uniform.size, ...offsets(uniform.type as StructInfo) } as GatherLayout['params'],
    region: { size: region.format.size, stride: region.stride, ...offsets(region.format as StructInfo) } as GatherLayout['region'],
    workgroupSize: entry.workgroupSize?.[0] ?? 1,
    bindings: { params: uniform.binding, regions: regions.binding, src: src.binding, dst: dst.binding },
  };
}

function offsets(s: StructInfo): Record<string, number> {
  return Object.fromEntries(s.members.map((m) => [m.name, m.offset]));
}

/** Encodes every dispatch's regions back to back; returns the bytes and each dispatch's first region. */
export function encodeRegions(dispatches: readonly Dispatch[], layout: GatherLayout): { bytes: Uint8Array; bases: number[] } {
  const total = dispatches.reduce((n, d) => n + d.regions.length, 0);
  const bytes = new Uint8Array(Math.max(total, 1) * layout.region.stride);
  const view = new DataView(bytes.buffer);
  const f = layout.region;
  const bases: number[] = [];
  let i = 0;
  for (const d of dispatches) {
    bases.push(i);
    for (const r of d.regions) {
      const o = i++ * f.stride;
      view.setUint32(o + f.start, r.start, true);
      view.setUint32(o + f.src, r.src, true);
      view.setUint32(o + f.dst, r.dst, true);
      view.setUint32(o + f.row_len, r.rowLen, true);
      view.setUint32(o + f.src_stride, r.srcStride, true);
      view.setUint32(o + f.rows, r.rows, true);
      view.setUint32(o + f.count, r.count, true);
      view.setUint32(o + f.src_step, r.srcStep, true);
      view.setUint32(o + f.dst_step, r.dstStep, true);
    }
  }
  return { bytes, bases };
}

/** Encodes one Params struct into `view` at `at`. */
export function encodeParams(view: DataView, at: number, layout: GatherLayout, base: number, d: Dispatch): void {
  const p = layout.params;
  view.setUint32(at + p.region_base, base, true);
  view.setUint32(at + p.region_count, d.regions.length, true);
  view.setUint32(at + p.thread_count, d.threads, true);
}
