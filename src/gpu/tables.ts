// Tile tables: a gather's uniform params (one slot per dispatch) and its tiles, in one buffer
// written once at creation and never again. A table depends only on the plan, so repeated splits
// of one shape (a decode step, layer after layer) reuse it: no upload per split. Because no table is
// ever rewritten, one recorded into a caller's encoder stays valid however late that encoder is
// submitted. Past `capacity` tables the least recently used is dropped: destroyed once the GPU is
// done with it, or, if a caller's encoder may still hold it, left to the garbage collector.

import { type Dispatch, SHADER_TILE_MEMBERS } from '../planner/types.js';
import { align } from '../planner/dispatch.js';
import { LAYOUT, encodeParams, encodeTile } from './layout.js';
import type { BufferPool } from './pool.js';
import { USAGE } from '../usage.js';

export interface Table {
  readonly buffer: GPUBuffer;
  /** Byte offset of dispatch i's params is i * slot. */
  readonly slot: number;
  readonly tilesAt: number;
  readonly tilesSize: number;
  /** Bind groups made for this table, by input buffer, output buffer and windows (see encode.ts). */
  readonly groups: WeakMap<GPUBuffer, WeakMap<GPUBuffer, Map<string, GPUBindGroup>>>;
}

export class TableCache {
  private readonly tables = new Map<string, Table>();
  /** Tables recorded into a caller's encoder: their last use is unknown, so Cleave never destroys them. */
  private readonly handedOver = new WeakSet<Table>();
  /** Keys already built, by dispatch list: a kept GPU plan (cache/gpu-plans.ts) brings the same list back. */
  private readonly keys = new WeakMap<readonly Dispatch[], string>();
  /** Bytes between two dispatches' params (the uniform offset alignment). */
  private readonly slot: number;
  private readonly storageAlignment: number;

  constructor(
    private readonly device: GPUDevice,
    private readonly pool: BufferPool,
    private readonly capacity = 64,
  ) {
    this.slot = align(LAYOUT.params.size, device.limits.minUniformBufferOffsetAlignment);
    this.storageAlignment = device.limits.minStorageBufferOffsetAlignment;
  }

  /** The table for these dispatches. */
  get(dispatches: readonly Dispatch[]): Table {
    let key = this.keys.get(dispatches);
    if (key === undefined) this.keys.set(dispatches, (key = keyOf(dispatches)));
    let t = this.tables.get(key);
    if (t) {
      this.tables.delete(key); // re-inserted below: most recently used last
    } else {
      const { bytes, slot, tilesAt } = this.encode(dispatches);
      const buffer = this.pool.create(bytes.byteLength, USAGE.UNIFORM | USAGE.STORAGE, true);
      new Uint8Array(buffer.getMappedRange()).set(bytes);
      buffer.unmap();
      t = { buffer, slot, tilesAt, tilesSize: bytes.byteLength - tilesAt, groups: new WeakMap() };
    }
    this.tables.set(key, t);
    if (this.tables.size > this.capacity) this.evict();
    return t;
  }

  /** `t` went into a caller's encoder: eviction leaves it to the garbage collector. */
  handOver(t: Table): void {
    this.handedOver.add(t);
  }

  private evict(): void {
    const [key, old] = this.tables.entries().next().value!;
    this.tables.delete(key);
    this.pool.forget(old.buffer);
    if (!this.handedOver.has(old))
      void this.device.queue.onSubmittedWorkDone().then(
        () => old.buffer.destroy(),
        () => undefined,
      );
  }

  private encode(dispatches: readonly Dispatch[]): { bytes: Uint8Array; slot: number; tilesAt: number } {
    const slot = this.slot;
    const tilesAt = align(slot * dispatches.length, this.storageAlignment);
    const count = dispatches.reduce((n, d) => n + d.tiles.length, 0);
    const bytes = new Uint8Array(tilesAt + Math.max(count, 1) * LAYOUT.tile.stride);
    const view = new DataView(bytes.buffer);
    let base = 0;
    dispatches.forEach((d, i) => {
      encodeParams(view, i * slot, { tile_base: base, tile_count: d.tiles.length, keep_tail: +d.keepTail });
      for (const t of d.tiles) encodeTile(view, tilesAt + base++ * LAYOUT.tile.stride, t);
    });
    return { bytes, slot, tilesAt };
  }
}

/**
 * What a table's bytes hold, without their padding, as a Map key: each dispatch's tile count and
 * keep_tail, then its tiles' members (the tile bases follow from the counts). Built without
 * encoding the table, which a repeated split (the usual case) never needs again.
 */
function keyOf(dispatches: readonly Dispatch[]): string {
  let n = 0;
  for (const d of dispatches) n += 2 + d.tiles.length * SHADER_TILE_MEMBERS.length;
  const words = new Uint32Array(n);
  let k = 0;
  for (const d of dispatches) {
    words[k++] = d.tiles.length;
    words[k++] = +d.keepTail;
    for (const t of d.tiles) for (const m of SHADER_TILE_MEMBERS) words[k++] = t[m];
  }
  const halves = new Uint16Array(words.buffer);
  let key = '';
  for (let i = 0; i < halves.length; i += 8192) key += String.fromCharCode(...halves.subarray(i, i + 8192));
  return key;
}
