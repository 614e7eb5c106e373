// The gather shader as the host knows it: its text per variant, and what was reflected from the WGSL at build time
// (shader.generated.ts): bind group entries typed from each variable's access, how many target buffers a dispatch
// binds, and struct encoding through one field map per struct. Only the `alias Word` line changes between variants;
// the bit-level variants are the u32 text with the gather_bits entry point (MSB_FIRST set for uint1), and each
// variant has a pipeline for one target (ONE_TARGET) and one for many (gpu/pipelines.ts). The compiler
// checks that every member the host fills exists in the shader and that the shader has none the host leaves unfilled.

import gatherSource from '../../shaders/split-gather.wgsl?raw';
import { SHADER_TILE_MEMBERS, type UnitBits } from '../planner/types.js';
import { COMPUTE_STAGE } from '../usage.js';
import { GATHER_SHADER } from './shader.generated.js';

export const REFLECTED = GATHER_SHADER;

/** A binding's role: the table's params and tiles, the source, and target k's buffer (`dst0` to `dst5`). */
export type Role = 'params' | 'tiles' | 'src' | `dst${number}`;

/** `true` when two unions of names hold the same names, `false` otherwise (a compile-time check). */
type SameNames<A extends string, B extends string> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The build fails when the shader gains a member the host does not fill or lacks one it fills (the generated file is
// checked against the WGSL by the build, and pinned in a test; encodeStruct takes every member of its struct).
true satisfies SameNames<keyof typeof REFLECTED.tile.members, (typeof SHADER_TILE_MEMBERS)[number]>;
REFLECTED.bindings satisfies readonly { readonly name: Role }[];

/** Bind group and binding number of each role. */
export const BINDING = Object.fromEntries(REFLECTED.bindings.map((b) => [b.name, b])) as unknown as Readonly<
  Record<Role, { readonly group: number; readonly binding: number }>
>;

/** The target buffers one dispatch binds: the shader's `dst` bindings, in binding order, all in one group. */
export const TARGETS_PER_DISPATCH = REFLECTED.bindings.filter((b) => b.name.startsWith('dst')).length;

/** The group of the targets' bindings. */
export const TARGET_GROUP = REFLECTED.bindings.find((b) => b.name === 'dst0')!.group;

/**
 * The entries of bind group `group`'s layout. Bound at a dynamic offset: the params (one slot per dispatch of a
 * table), the source, and the first `moving` targets (the device's limit on dynamic storage buffers, less the
 * source's); the tiles are bound whole, the other targets at offsets fixed in their bind group.
 */
export function bindGroupLayoutEntries(group: number, moving: number): GPUBindGroupLayoutEntry[] {
  return REFLECTED.bindings
    .filter((b) => b.group === group)
    .map((b) => ({
      binding: b.binding,
      visibility: COMPUTE_STAGE,
      buffer: {
        type: b.type,
        hasDynamicOffset: b.name === 'params' || b.name === 'src' || (b.group === TARGET_GROUP && b.binding < moving),
      },
    }));
}

/** The bind groups the shader binds, in order. */
export const GROUPS = [...new Set(REFLECTED.bindings.map((b) => b.group))];

/** Writes a struct's members (little-endian u32) at byte `at`, every member from `values` by name. */
export function encodeStruct<K extends string>(
  view: DataView,
  at: number,
  members: Readonly<Record<K, number>>,
  values: Readonly<Record<K, number>>,
): void {
  for (const name in members) view.setUint32(at + members[name], values[name], true);
}

const WORD_TYPE: Readonly<Record<UnitBits, string>> = { 1: 'u32', 32: 'u32', 64: 'vec2<u32>', 128: 'vec4<u32>' };
const ALIAS_LINE = /^alias Word = .*;$/m;

export function shaderText(unit: UnitBits): string {
  return gatherSource.replace(ALIAS_LINE, `alias Word = ${WORD_TYPE[unit]};`);
}

export function entryPoint(unit: UnitBits): 'gather_words' | 'gather_bits' {
  return unit === 1 ? 'gather_bits' : 'gather_words';
}
