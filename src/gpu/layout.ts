// The gather shader's layout, as reflected from the WGSL at build time (layout.generated.ts), and
// the host side that follows it: bind group layout entries typed from each variable's access, and
// struct encoding through one field map per struct. The compiler checks that every member the host
// fills exists in the shader and that the shader has none the host leaves unfilled.

import { SHADER_TILE_MEMBERS, type ShaderTile } from '../planner/types.js';
import { COMPUTE_STAGE } from '../usage.js';
import { GATHER_LAYOUT } from './layout.generated.js';

export const LAYOUT = GATHER_LAYOUT;

export const PARAMS_MEMBERS = ['tile_base', 'tile_count', 'keep_tail'] as const;
export type ShaderParams = { readonly [K in (typeof PARAMS_MEMBERS)[number]]: number };

export type Role = 'params' | 'tiles' | 'src' | 'dst';

/** `true` when two unions of names hold the same names, `false` otherwise (a compile-time check). */
type SameNames<A extends string, B extends string> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The build fails when the shader gains a member the host does not fill or lacks one it fills
// (the generated layout is checked against the WGSL by the build, and pinned in a test).
true satisfies SameNames<keyof typeof LAYOUT.tile.members, (typeof SHADER_TILE_MEMBERS)[number]>;
true satisfies SameNames<keyof typeof LAYOUT.params.members, (typeof PARAMS_MEMBERS)[number]>;
true satisfies SameNames<(typeof LAYOUT.bindings)[number]['name'], Role>;

/** Binding number of each role. */
export const BINDING = Object.fromEntries(LAYOUT.bindings.map((b) => [b.name, b.binding])) as Readonly<
  Record<Role, number>
>;

export function bindGroupLayoutEntries(): GPUBindGroupLayoutEntry[] {
  return LAYOUT.bindings.map((b) => ({ binding: b.binding, visibility: COMPUTE_STAGE, buffer: { type: b.type } }));
}

/** Writes a struct's members (little-endian u32) at byte `at`, every member from `values` by name. */
export function encodeStruct<K extends string>(
  view: DataView,
  at: number,
  members: Readonly<Record<K, number>>,
  values: Readonly<Record<K, number>>,
): void {
  for (const name in members) view.setUint32(at + members[name], values[name], true);
}

export function encodeTile(view: DataView, at: number, t: ShaderTile): void {
  encodeStruct(view, at, LAYOUT.tile.members, t);
}

export function encodeParams(view: DataView, at: number, p: ShaderParams): void {
  encodeStruct(view, at, LAYOUT.params.members, p);
}
