// Command encoding: turns a GPU plan, a pipeline and buffers into copy or gather commands on an
// encoder (Cleave's own, or a caller's). Records only: what to allocate and when to submit is the
// executor's business.

import type { ByteCopy, GatherPlan, OutputSlot } from '../planner/types.js';
import { BINDING, LAYOUT } from './layout.js';
import { gatherBindGroupLayout } from './pipelines.js';
import type { Table } from './tables.js';

/**
 * Where a split writes, by target number ({@link OutputSlot}): `[0]` the engine's shared output
 * buffer (absent when every output goes elsewhere), then the caller's destination buffers, then,
 * with layout 'separate', each output's own buffer.
 */
export type Targets = readonly (GPUBuffer | undefined)[];

/** Records copy commands, each into its output's target buffer. */
export function encodeCopies(
  enc: GPUCommandEncoder,
  copies: readonly ByteCopy[],
  src: GPUBuffer,
  outputs: readonly OutputSlot[],
  targets: Targets,
): void {
  for (const c of copies) enc.copyBufferToBuffer(src, c.src, targets[outputs[c.output]!.target ?? 0]!, c.dst, c.size);
}

/** Records one compute pass: a dispatch per planned dispatch, each with its own windows, a workgroup per tile. */
export function encodeGather(
  device: GPUDevice,
  enc: GPUCommandEncoder,
  gp: GatherPlan,
  table: Table,
  pipeline: GPUComputePipeline,
  src: GPUBuffer,
  targets: Targets,
): void {
  const layout = gatherBindGroupLayout(device);
  const maxDim = device.limits.maxComputeWorkgroupsPerDimension;
  const pass = enc.beginComputePass({ label: 'cleave-gather' });
  pass.setPipeline(pipeline);
  gp.dispatches.forEach((d, i) => {
    pass.setBindGroup(0, bindGroup(device, layout, table, i, d, src, targets[d.target]!));
    const [x, y] = foldGrid(d.tiles.length, maxDim);
    pass.dispatchWorkgroups(x, y);
  });
  pass.end();
}

/** Bind groups kept per table: at most this many per (input buffer, output buffer) pair. */
const GROUPS_PER_PAIR = 16;

/**
 * Dispatch i's bind group: made once per table, input and output buffer and windows, then reused
 * (a decode loop splits the same buffers again and again). Weak on the buffers: a cached group
 * never keeps a buffer alive.
 */
function bindGroup(
  device: GPUDevice,
  layout: GPUBindGroupLayout,
  table: Table,
  i: number,
  d: GatherPlan['dispatches'][number],
  src: GPUBuffer,
  dst: GPUBuffer,
): GPUBindGroup {
  let bySrc = table.groups.get(src);
  if (!bySrc) table.groups.set(src, (bySrc = new WeakMap()));
  let byDst = bySrc.get(dst);
  if (!byDst) bySrc.set(dst, (byDst = new Map<string, GPUBindGroup>()));
  const key = `${i} ${d.srcWindow.join()} ${d.dstWindow.join()}`;
  let g = byDst.get(key);
  if (!g) {
    if (byDst.size >= GROUPS_PER_PAIR) byDst.clear();
    g = device.createBindGroup({
      layout,
      entries: [
        {
          binding: BINDING.params,
          resource: { buffer: table.buffer, offset: i * table.slot, size: LAYOUT.params.size },
        },
        { binding: BINDING.tiles, resource: { buffer: table.buffer, offset: table.tilesAt, size: table.tilesSize } },
        { binding: BINDING.src, resource: { buffer: src, offset: d.srcWindow[0], size: d.srcWindow[1] } },
        { binding: BINDING.dst, resource: { buffer: dst, offset: d.dstWindow[0], size: d.dstWindow[1] } },
      ],
    });
    byDst.set(key, g);
  }
  return g;
}

/** Folds a workgroup count into a 2-D grid when it exceeds one dimension's limit. */
export function foldGrid(groups: number, maxDim: number): [number, number] {
  if (groups <= maxDim) return [groups, 1];
  const y = Math.ceil(groups / maxDim);
  return [Math.ceil(groups / y), y];
}
