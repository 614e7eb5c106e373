// The gather shader's layout, as reflected from the WGSL at build time (layout.generated.ts), and
// the host side that follows it: bind group layout entries typed from each variable's access, and
// struct encoding through one field map per struct. Loading this module checks that every member
// the host fills exists in the shader and that the shader has none the host leaves unfilled.

import { SHADER_REGION_MEMBERS, type ShaderRegion } from '../planner/dispatch.js';
import { COMPUTE_STAGE } from './usage.js';
import { GATHER_LAYOUT } from './layout.generated.js';

export const LAYOUT = GATHER_LAYOUT;

export const PARAMS_MEMBERS = ['region_base', 'region_count', 'thread_count', 'msb_first'] as const;
export type ShaderParams = { readonly [K in (typeof PARAMS_MEMBERS)[number]]: number };

const ROLES = ['params', 'regions', 'src', 'dst'] as const;
export type Role = (typeof ROLES)[number];

function expectSame(what: string, have: readonly string[], want: readonly string[]): void {
  const missing = want.filter((m) => !have.includes(m));
  const extra = have.filter((m) => !want.includes(m));
  if (missing.length || extra.length) {
    throw new Error(
      `split-gather.wgsl: ${what} ${missing.length ? `lacks ${missing.join(', ')}` : ''}` +
        `${extra.length ? ` has members the host does not fill: ${extra.join(', ')}` : ''}`,
    );
  }
}
expectSame('Region', Object.keys(LAYOUT.region.members), SHADER_REGION_MEMBERS);
expectSame('Params', Object.keys(LAYOUT.params.members), PARAMS_MEMBERS);
expectSame(
  'bindings',
  LAYOUT.bindings.map((b) => b.name),
  ROLES,
);

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

export function encodeRegion(view: DataView, at: number, r: ShaderRegion): void {
  encodeStruct(view, at, LAYOUT.region.members, r);
}

export function encodeParams(view: DataView, at: number, p: ShaderParams): void {
  encodeStruct(view, at, LAYOUT.params.members, p);
}
