// Command encoding: a GPU plan recorded onto an encoder (Cleave's own, or a caller's) as copy commands or as the
// gather's one compute pass, at the bases a program adds to the plan's offsets; and what the gather binds: its tile
// table, and bind groups made once per buffer, bound at dynamic offsets. A table holds the gather's uniform params (one
// slot per dispatch) and its tiles, written once at creation and never again, so one recorded into a caller's encoder
// stays valid however late that encoder is submitted. Records only: what to allocate and when to submit is the
// program's business.

import type { GpuPlan, UnitBits } from '../planner/types.js';
import { align } from '../planner/dispatch.js';
import { BINDING, REFLECTED, encodeStruct } from './shader.js';
import { gatherKit, pipelineFor } from './pipelines.js';
import type { BufferPool } from './pool.js';
import { USAGE } from '../usage.js';
import { findKept, keep } from '../kept.js';

/**
 * A gather's tile table: dispatch i's params at byte i * slot, every tile from byte tilesAt; and its bind group (the
 * params bound at a dynamic offset, the tiles whole).
 */
export interface Table {
  readonly buffer: GPUBuffer;
  readonly slot: number;
  readonly group: GPUBindGroup;
}

/**
 * The buffers one recording reads and writes: the source, and the buffer of each of the plan's targets; and the byte
 * each plan offset is counted from, in the source and in each target.
 */
export interface Buffers {
  readonly src: GPUBuffer;
  readonly srcBase: number;
  readonly targets: readonly GPUBuffer[];
  readonly bases: readonly number[];
}

/** Records the plan's copy commands, each into its output's target buffer. */
export function encodeCopies(enc: GPUCommandEncoder, gp: GpuPlan, b: Buffers): void {
  const { src, srcBase, targets, bases } = b;
  for (const c of gp.copies)
    enc.copyBufferToBuffer(src, srcBase + c.src, targets[c.target]!, bases[c.target]! + c.dst, c.size);
}

/**
 * Records one compute pass: a dispatch per planned dispatch, a workgroup per tile. Each binds its table's params at
 * its slot, and its windows of the source and of its target at their offsets from the bases, through bind groups made
 * once per buffer and window size (bufferGroup): a split whose bases move, or whose outputs go to another pooled
 * buffer, makes none once each buffer has been bound.
 */
export function encodeGather(device: GPUDevice, enc: GPUCommandEncoder, gp: GpuPlan, table: Table, b: Buffers): void {
  const maxDim = device.limits.maxComputeWorkgroupsPerDimension;
  const pass = enc.beginComputePass({ label: 'cleave-gather' });
  pass.setPipeline(pipelineFor(device, gp.unitBits as UnitBits, gp.msbFirst));
  gp.dispatches.forEach((d, i) => {
    const dst = b.targets[d.target]!;
    pass.setBindGroup(0, table.group, [i * table.slot]);
    pass.setBindGroup(1, bufferGroup(device, b.src, 1, d.srcWindow[1]), [b.srcBase + d.srcWindow[0]]);
    pass.setBindGroup(2, bufferGroup(device, dst, 2, d.dstWindow[1]), [b.bases[d.target]! + d.dstWindow[0]]);
    const [x, y] = foldGrid(d.tiles.length, maxDim);
    pass.dispatchWorkgroups(x, y);
  });
  pass.end();
}

/** Bind groups made for a buffer: its windows of each size, as the source (group 1) or the target (group 2). */
const groupsOf = new WeakMap<GPUBuffer, { group: number; size: number; made: GPUBindGroup }[]>();

/** Window sizes a buffer keeps bind groups for (a buffer is bound for a few splits' windows at most). */
const KEPT_WINDOWS = 4;

/** A bind group of `buffer`'s first `size` bytes for group 1 or 2, bound at a dynamic offset: made once, then kept. */
function bufferGroup(device: GPUDevice, buffer: GPUBuffer, group: 1 | 2, size: number): GPUBindGroup {
  let list = groupsOf.get(buffer);
  if (!list) groupsOf.set(buffer, (list = []));
  const found = findKept(list, (e) => e.group === group && e.size === size);
  if (found) return found.made;
  const layout = gatherKit(device).layouts[group]!;
  const made = device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer, size } }] });
  keep(list, { group, size, made }, KEPT_WINDOWS);
  return made;
}

/** A new table for a gather's dispatches, in a buffer of the pool's written at creation (mapped) and never again. */
export function makeTable(device: GPUDevice, pool: BufferPool, gp: GpuPlan): Table {
  const dispatches = gp.dispatches;
  const slot = align(REFLECTED.params.size, device.limits.minUniformBufferOffsetAlignment);
  const tilesAt = align(slot * dispatches.length, device.limits.minStorageBufferOffsetAlignment);
  const count = dispatches.reduce((n, d) => n + d.tiles.length, 0);
  const bytes = new Uint8Array(tilesAt + Math.max(count, 1) * REFLECTED.tile.stride);
  const view = new DataView(bytes.buffer);
  let base = 0;
  dispatches.forEach((d, i) => {
    const keep_tail = +(gp.targets[d.target]!.kind === 'into');
    encodeStruct(view, i * slot, REFLECTED.params.members, { tile_base: base, tile_count: d.tiles.length, keep_tail });
    for (const t of d.tiles) encodeStruct(view, tilesAt + base++ * REFLECTED.tile.stride, REFLECTED.tile.members, t);
  });
  const buffer = pool.create(bytes.byteLength, USAGE.UNIFORM | USAGE.STORAGE, true);
  new Uint8Array(buffer.getMappedRange()).set(bytes);
  buffer.unmap();
  const entries = [
    { binding: BINDING.params.binding, resource: { buffer, size: REFLECTED.params.size } },
    { binding: BINDING.tiles.binding, resource: { buffer, offset: tilesAt, size: bytes.byteLength - tilesAt } },
  ];
  return { buffer, slot, group: device.createBindGroup({ layout: gatherKit(device).layouts[0]!, entries }) };
}

/** Folds a workgroup count into a 2-D grid when it exceeds one dimension's limit. */
export function foldGrid(groups: number, maxDim: number): [number, number] {
  if (groups <= maxDim) return [groups, 1];
  const y = Math.ceil(groups / maxDim);
  return [Math.ceil(groups / y), y];
}
