// Command encoding: a GPU plan recorded onto an encoder (Cleave's own, or a caller's) as copy commands or as the
// gather's one compute pass, at the bases a call adds to the plan's offsets; and what the gather binds: its tile table,
// and bind groups made once per buffer (the source) or per set of buffers (a dispatch's targets), bound at dynamic
// offsets. A table holds the gather's uniform params (one per dispatch) and its tiles, written once at creation and
// never again, so one recorded into a caller's encoder stays valid however late that encoder is submitted. Records
// only: which buffers a call takes, and when it submits, are gpu/split.ts's.

import type { GpuView } from '../read/tensor.js';
import type { Dispatch, GpuPlan } from '../planner/types.js';
import { align } from '../planner/dispatch.js';
import { BINDING, REFLECTED, TARGETS_PER_DISPATCH, TARGET_GROUP, encodeStruct } from './shader.js';
import { type GatherKit, gatherKit } from './pipelines.js';
import type { BufferPool } from './pool.js';
import { USAGE } from '../usage.js';

/**
 * A gather's tile table: dispatch i's params at byte i * stride, every tile from byte tilesAt; and its bind group (the
 * params bound at a dynamic offset, the tiles whole).
 */
export interface Table {
  readonly device: GPUDevice;
  readonly buffer: GPUBuffer;
  readonly stride: number;
  readonly group: GPUBindGroup;
  /** The device's gather kit, and the plan's pipeline once a call found it (a pipeline made stays). */
  readonly kit: GatherKit;
  pipeline: GPUComputePipeline | undefined;
  /** Recorded into a caller's encoder: its last use is unknown, so Cleave never destroys it. */
  handedOver: boolean;
  /** A dispatch's dynamic offsets as a call records them (params, source, targets): written by every call. */
  readonly offsets: Uint32Array;
}

/** Where a call's input lies: its buffer, at the byte offset whose residue the plan was made for. */
type Source = Pick<GpuView, 'buffer' | 'byteOffset'>;

/**
 * Records the plan's copy commands: from the input `x` (its byte offset the plan's input offset), into each target's
 * buffer at its base.
 */
export function encodeCopies(
  enc: GPUCommandEncoder,
  gp: GpuPlan,
  x: Source,
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
): void {
  const srcBase = x.byteOffset - gp.key.srcByteOffset;
  for (const c of gp.copies)
    enc.copyBufferToBuffer(x.buffer, srcBase + c.src, buffers[c.target]!, bases[c.target]! + c.dst, c.size);
}

/** Every gather pass's descriptor: one object for every pass. */
const PASS: GPUComputePassDescriptor = { label: 'cleave-gather' };

/**
 * Records one compute pass: a dispatch per planned dispatch, a workgroup per tile. Each binds its table's params, the
 * source's window and its targets' windows at their offsets from the bases, through bind groups made once for those
 * buffers and window sizes: a split whose bases move, or whose outputs go to pooled buffers met before, makes none,
 * and finds them without allocating. Returns the bind groups it made, for a call that fails to drop.
 */
export function encodeGather(
  enc: GPUCommandEncoder,
  gp: GpuPlan,
  table: Table,
  pipeline: GPUComputePipeline,
  x: Source,
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
): Made[] {
  const made: Made[] = [];
  const { device, offsets, kit } = table;
  const max = device.limits.maxComputeWorkgroupsPerDimension;
  const pass = enc.beginComputePass(PASS);
  pass.setPipeline(pipeline);
  for (let i = 0; i < gp.dispatches.length; i++) {
    const d = gp.dispatches[i]!;
    // The dynamic offsets, in one array of the table's: params, source, then the targets bound at dynamic offsets.
    offsets[0] = i * table.stride;
    offsets[1] = x.byteOffset - gp.key.srcByteOffset + d.srcWindow[0];
    for (let k = 0; k < kit.moving; k++) offsets[2 + k] = bound(kit, d, buffers, bases, k, AT) as number;
    pass.setBindGroup(0, table.group, offsets, 0, 1);
    pass.setBindGroup(BINDING.src.group, sourceGroup(kit, device, x.buffer, d.srcWindow[1], made), offsets, 1, 1);
    pass.setBindGroup(TARGET_GROUP, targetGroup(kit, device, d, buffers, bases, made), offsets, 2, kit.moving);
    const groups = d.tiles.length;
    if (groups <= max) pass.dispatchWorkgroups(groups);
    else pass.dispatchWorkgroups(...foldGrid(groups, max));
  }
  pass.end();
  return made;
}

/** What `bound` gives of a target binding (a group's parts are each binding's first three, in this order). */
const [BUFFER, SIZE, FIXED, AT] = [0, 1, 2, 3] as const;

/**
 * Target binding k of dispatch `d`: its buffer, its window's size, the offset fixed in its bind group (0 where it is
 * bound at a dynamic offset, the first `moving`), or the offset it is bound at. Where the dispatch has no k-th target,
 * the spare buffer's k-th window, 16 bytes.
 */
function bound(
  kit: GatherKit,
  d: Dispatch,
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
  k: number,
  what: typeof BUFFER | typeof SIZE | typeof FIXED | typeof AT,
): GPUBuffer | number {
  const t = d.targets[k];
  if (what === BUFFER) return t === undefined ? kit.spare : buffers[t]!;
  if (what === SIZE) return t === undefined ? 16 : d.dstWindows[k]![1];
  if (what === FIXED && k < kit.moving) return 0;
  return t === undefined ? k * kit.spareStride : bases[t]! + d.dstWindows[k]![0];
}

/** The source's bind group for its window of `size` bytes, bound at a dynamic offset: made once, kept. */
export function sourceGroup(kit: GatherKit, device: GPUDevice, buffer: GPUBuffer, size: number, made: Made[]) {
  const list = groupsOf.get(buffer);
  for (let k = list ? list.length - 1 : -1; k >= 0; k--) {
    const e = list![k]!;
    if (e.group === BINDING.src.group && e.parts[1] === size) return e.made;
  }
  return makeGroup(kit, device, BINDING.src.group, [buffer, size, 0], made);
}

/** The targets' bind group of dispatch `d` (see `bound`): made once for its buffers and windows, kept. */
export function targetGroup(
  kit: GatherKit,
  device: GPUDevice,
  d: Dispatch,
  buffers: readonly GPUBuffer[],
  bases: readonly number[],
  made: Made[],
): GPUBindGroup {
  const list = groupsOf.get(buffers[d.targets[0]!]!);
  search: for (let i = list ? list.length - 1 : -1; i >= 0; i--) {
    const e = list![i]!;
    if (e.group !== TARGET_GROUP) continue;
    for (let j = 0; j < 3 * TARGETS_PER_DISPATCH; j++)
      if (e.parts[j] !== bound(kit, d, buffers, bases, (j / 3) | 0, (j % 3) as 0 | 1 | 2)) continue search;
    return e.made;
  }
  const parts: (GPUBuffer | number)[] = [];
  for (let j = 0; j < 3 * TARGETS_PER_DISPATCH; j++)
    parts.push(bound(kit, d, buffers, bases, (j / 3) | 0, (j % 3) as 0 | 1 | 2));
  return makeGroup(kit, device, TARGET_GROUP, parts, made);
}

/** A bind group this module made and keeps: under its first buffer, its group index and each (buffer, size, offset). */
export interface Made {
  readonly parts: readonly (GPUBuffer | number)[];
  readonly group: number;
  readonly made: GPUBindGroup;
}

/** Bind groups made, under their first buffer (gone with it). */
const groupsOf = new WeakMap<GPUBuffer, Made[]>();

/** Bind groups a buffer keeps, newest last: a few window sizes and sets of targets (a KV cache's two alignments). */
const KEPT_GROUPS = 8;

/** A new bind group of group `group` binding (buffer, size, offset) triples `parts` in binding order, kept. */
function makeGroup(kit: GatherKit, device: GPUDevice, group: number, parts: (GPUBuffer | number)[], made: Made[]) {
  const lead = parts[0] as GPUBuffer;
  let list = groupsOf.get(lead);
  if (!list) groupsOf.set(lead, (list = []));
  const entries: GPUBindGroupEntry[] = [];
  for (let j = 0; j < parts.length; j += 3)
    entries.push({
      binding: j / 3,
      resource: { buffer: parts[j] as GPUBuffer, offset: parts[j + 2] as number, size: parts[j + 1] as number },
    });
  const e = { parts, group, made: device.createBindGroup({ layout: kit.layouts[group]!, entries }) };
  if (list.push(e) > KEPT_GROUPS) list.shift();
  made.push(e);
  return e.made;
}

/** Drops bind groups a failed call made: it leaves nothing behind. */
export function dropGroups(made: readonly Made[]): void {
  for (const e of made) {
    const list = groupsOf.get(e.parts[0] as GPUBuffer);
    const k = list?.indexOf(e) ?? -1;
    if (k >= 0) list!.splice(k, 1);
  }
}

/**
 * A new table for a gather's dispatches, in a buffer of the pool's written at creation (mapped) and never again:
 * each dispatch's first tile and count, and which of its targets keep the bits past a tile's end (a caller's).
 */
export function makeTable(device: GPUDevice, pool: BufferPool, gp: GpuPlan): Table {
  const { dispatches } = gp;
  const { params, tile } = REFLECTED;
  const stride = align(params.size, device.limits.minUniformBufferOffsetAlignment);
  const tilesAt = align(stride * dispatches.length, device.limits.minStorageBufferOffsetAlignment);
  const count = dispatches.reduce((n, d) => n + d.tiles.length, 0);
  const bytes = new Uint8Array(tilesAt + Math.max(count, 1) * tile.stride);
  const view = new DataView(bytes.buffer);
  let base = 0;
  dispatches.forEach((d, i) => {
    let keep_tail = 0;
    d.targets.forEach((t, k) => (keep_tail |= +(gp.targets[t]!.kind === 'into') << k));
    encodeStruct(view, i * stride, params.members, { tile_base: base, tile_count: d.tiles.length, keep_tail });
    for (const t of d.tiles) encodeStruct(view, tilesAt + base++ * tile.stride, tile.members, t);
  });
  const buffer = pool.create(bytes.byteLength, USAGE.UNIFORM | USAGE.STORAGE, true);
  new Uint8Array(buffer.getMappedRange()).set(bytes);
  buffer.unmap();
  const entries = [
    { binding: BINDING.params.binding, resource: { buffer, size: params.size } },
    { binding: BINDING.tiles.binding, resource: { buffer, offset: tilesAt, size: bytes.byteLength - tilesAt } },
  ];
  const kit = gatherKit(device);
  const group = device.createBindGroup({ layout: kit.layouts[BINDING.params.group]!, entries });
  const offsets = new Uint32Array(2 + kit.moving);
  return { device, buffer, stride, group, kit, pipeline: undefined, handedOver: false, offsets };
}

/** Folds a workgroup count into a 2-D grid when it exceeds one dimension's limit. */
export function foldGrid(groups: number, maxDim: number): [number, number] {
  if (groups <= maxDim) return [groups, 1];
  const y = Math.ceil(groups / maxDim);
  return [Math.ceil(groups / y), y];
}
