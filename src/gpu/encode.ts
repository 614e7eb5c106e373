// Command encoding: a GPU plan recorded onto an encoder (Cleave's own, or a caller's) as copy commands or as the
// gather's one compute pass, at the bases a program adds to the plan's offsets; and what the gather binds: its tile
// table and its bind groups. A table holds the gather's uniform params (one slot per dispatch) and its tiles, written
// once at creation and never again, so one recorded into a caller's encoder stays valid however late that encoder is
// submitted. Records only: what to allocate and when to submit is the program's business.

import type { Dispatch, GpuPlan, UnitBits } from '../planner/types.js';
import { align } from '../planner/dispatch.js';
import { BINDING, LAYOUT, encodeParams, encodeTile } from './layout.js';
import { gatherBindGroupLayout, pipelineFor } from './pipelines.js';
import type { BufferPool } from './pool.js';
import { USAGE } from '../usage.js';
import { findKept, keep } from '../kept.js';

/** A gather's tile table: dispatch i's params at byte i * slot, every tile from byte tilesAt. */
export interface Table {
  readonly buffer: GPUBuffer;
  readonly slot: number;
  readonly tilesAt: number;
  readonly tilesSize: number;
}

/**
 * The buffers one recording reads and writes: `targets[0]` the engine's shared output buffer (absent when every output
 * goes elsewhere), then the caller's destination buffers, then, with layout 'separate', each output's own buffer, by
 * target number (see OutputSlot); and the byte each plan offset is counted from, in the source and in each target
 * (one per target: 0 for the engine's own).
 */
export interface Buffers {
  readonly src: GPUBuffer;
  readonly srcBase: number;
  readonly targets: readonly (GPUBuffer | undefined)[];
  readonly bases: readonly number[];
}

/** Bind groups made for one plan, by the buffers they bind (most recently used last): a decode loop binds the same. */
export type BindGroups = { readonly at: Buffers; readonly groups: GPUBindGroup[] }[];

/** Bind group sets a plan keeps (a split whose outputs alternate between a few pooled buffers reuses them). */
const KEPT_GROUPS = 4;

/** Records the plan's copy commands, each into its output's target buffer. */
export function encodeCopies(enc: GPUCommandEncoder, gp: GpuPlan, b: Buffers): void {
  const { src, srcBase, targets, bases } = b;
  for (const c of gp.copies)
    enc.copyBufferToBuffer(src, srcBase + c.src, targets[c.target]!, bases[c.target]! + c.dst, c.size);
}

/** Records one compute pass: a dispatch per planned dispatch, each with its own windows, a workgroup per tile. */
export function encodeGather(
  device: GPUDevice,
  enc: GPUCommandEncoder,
  gp: GpuPlan,
  table: Table,
  b: Buffers,
  kept: BindGroups,
): void {
  const groups = bindGroups(device, gp.dispatches, table, b, kept);
  const maxDim = device.limits.maxComputeWorkgroupsPerDimension;
  const pass = enc.beginComputePass({ label: 'cleave-gather' });
  pass.setPipeline(pipelineFor(device, gp.unitBits as UnitBits, gp.msbFirst));
  gp.dispatches.forEach((d, i) => {
    pass.setBindGroup(0, groups[i]);
    const [x, y] = foldGrid(d.tiles.length, maxDim);
    pass.dispatchWorkgroups(x, y);
  });
  pass.end();
}

/** The dispatches' bind groups for these buffers: kept ones, or new ones kept for the next call. */
function bindGroups(
  device: GPUDevice,
  dispatches: readonly Dispatch[],
  table: Table,
  b: Buffers,
  kept: BindGroups,
): GPUBindGroup[] {
  const found = findKept(kept, (e) => sameBuffers(e.at, b));
  if (found) return found.groups;
  const layout = gatherBindGroupLayout(device);
  const groups = dispatches.map((d, i) =>
    device.createBindGroup({
      layout,
      entries: [
        {
          binding: BINDING.params,
          resource: { buffer: table.buffer, offset: i * table.slot, size: LAYOUT.params.size },
        },
        { binding: BINDING.tiles, resource: { buffer: table.buffer, offset: table.tilesAt, size: table.tilesSize } },
        { binding: BINDING.src, resource: { buffer: b.src, offset: b.srcBase + d.srcWindow[0], size: d.srcWindow[1] } },
        {
          binding: BINDING.dst,
          resource: {
            buffer: b.targets[d.target]!,
            offset: b.bases[d.target]! + d.dstWindow[0],
            size: d.dstWindow[1],
          },
        },
      ],
    }),
  );
  keep(kept, { at: b, groups }, KEPT_GROUPS);
  return groups;
}

function sameBuffers(a: Buffers, b: Buffers): boolean {
  if (a.src !== b.src || a.srcBase !== b.srcBase || a.targets.length !== b.targets.length) return false;
  for (let t = 0; t < a.targets.length; t++)
    if (a.targets[t] !== b.targets[t] || a.bases[t] !== b.bases[t]) return false;
  return true;
}

/** A new table for these dispatches, in a buffer of the pool's written at creation (mapped) and never again. */
export function makeTable(device: GPUDevice, pool: BufferPool, dispatches: readonly Dispatch[]): Table {
  const slot = align(LAYOUT.params.size, device.limits.minUniformBufferOffsetAlignment);
  const tilesAt = align(slot * dispatches.length, device.limits.minStorageBufferOffsetAlignment);
  const count = dispatches.reduce((n, d) => n + d.tiles.length, 0);
  const bytes = new Uint8Array(tilesAt + Math.max(count, 1) * LAYOUT.tile.stride);
  const view = new DataView(bytes.buffer);
  let base = 0;
  dispatches.forEach((d, i) => {
    encodeParams(view, i * slot, { tile_base: base, tile_count: d.tiles.length, keep_tail: +d.keepTail });
    for (const t of d.tiles) encodeTile(view, tilesAt + base++ * LAYOUT.tile.stride, t);
  });
  const buffer = pool.create(bytes.byteLength, USAGE.UNIFORM | USAGE.STORAGE, true);
  new Uint8Array(buffer.getMappedRange()).set(bytes);
  buffer.unmap();
  return { buffer, slot, tilesAt, tilesSize: bytes.byteLength - tilesAt };
}

/** Folds a workgroup count into a 2-D grid when it exceeds one dimension's limit. */
export function foldGrid(groups: number, maxDim: number): [number, number] {
  if (groups <= maxDim) return [groups, 1];
  const y = Math.ceil(groups / maxDim);
  return [Math.ceil(groups / y), y];
}
