// The buffer pool: every buffer an engine creates, and the free ones held for reuse, because a
// fresh buffer costs an allocation and a zero-fill. Free buffers are bounded by bytes and by
// count; past either bound the oldest free buffer, whatever its size or usage, is destroyed first.
// A split takes and gives buffers on every call: free buffers sit in arrays under numeric keys
// (usage, then size), not in Sets keyed by the buffers, which cost microseconds a call in Firefox.
// The count bound grows to the most buffers one split has taken (a buffer per output, with layout
// 'separate'), so a repeated split of many outputs creates none in steady state. A buffer's size and usage are
// known from its descriptor (read/webgpu-object.ts): giving one back reads no native getter.

import { bufferFacts, madeBuffer } from '../read/webgpu-object.js';

/** Free bytes a pool keeps. */
export const POOL_BYTES = 256 << 20;
/** Free buffers a pool keeps. */
export const POOL_COUNT = 256;

export class BufferPool {
  /** Every buffer this pool created that is not destroyed (leased or free). */
  private readonly owned = new Set<GPUBuffer>();
  /** Free buffers by usage, then size: most recently given last, with the order each was given in. */
  private readonly free = new Map<number, Map<number, FreeList>>();
  /** Free buffers in all, their bytes, and how many were ever given (each give's place in line). */
  private freeCount = 0;
  private freeBytes = 0;
  private given = 0;
  private destroyed = false;
  /** The count bound: maxCount, or more once a split took more buffers at once. */
  private countBound: number;

  constructor(
    private readonly device: GPUDevice,
    private readonly onCreate: (b: GPUBuffer) => void,
    readonly maxBytes = POOL_BYTES,
    readonly maxCount = POOL_COUNT,
  ) {
    this.countBound = maxCount;
  }

  /** Buffers alive (free or leased). */
  get live(): number {
    return this.owned.size;
  }

  /** A new buffer this pool owns (never a reused one: mapped-at-creation buffers are written once). */
  create(size: number, usage: GPUBufferUsageFlags, mappedAtCreation = false): GPUBuffer {
    const b = this.device.createBuffer({ label: 'cleave', size, usage, mappedAtCreation });
    madeBuffer(b, size, usage);
    this.owned.add(b);
    this.onCreate(b);
    return b;
  }

  /** Whether free buffers of these sizes (one per entry, repeats counted) and this usage are all at hand. */
  has(sizes: readonly number[], usage: GPUBufferUsageFlags): boolean {
    const bySize = this.free.get(usage);
    if (!bySize) return sizes.length === 0;
    if (sizes.length === 1) return (bySize.get(sizes[0]!)?.buffers.length ?? 0) > 0;
    const want = new Map<number, number>();
    for (const s of sizes) want.set(s, (want.get(s) ?? 0) + 1);
    for (const [size, n] of want) if ((bySize.get(size)?.buffers.length ?? 0) < n) return false;
    return true;
  }

  /** A free buffer of exactly this size and usage (the one given last), or a new one. */
  take(size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    const list = this.free.get(usage)?.get(size);
    const b = list?.buffers.pop();
    if (!b) return this.create(size, usage);
    list!.order.pop();
    this.freeCount--;
    this.freeBytes -= size;
    return b;
  }

  /** One split took `n` buffers at once: keep at least that many free for its next call. */
  took(n: number): void {
    if (n > this.countBound) this.countBound = n;
  }

  /** Returns a buffer whose commands are all submitted; evicts the oldest free ones past the bounds. */
  give(b: GPUBuffer): void {
    if (this.destroyed || !this.owned.has(b)) return;
    const { size, usage } = bufferFacts(b)!;
    if (size > this.maxBytes) return this.drop(b);
    let bySize = this.free.get(usage);
    if (!bySize) this.free.set(usage, (bySize = new Map<number, FreeList>()));
    let list = bySize.get(size);
    if (!list) bySize.set(size, (list = { buffers: [], order: [] }));
    list.buffers.push(b);
    list.order.push(this.given++);
    this.freeCount++;
    this.freeBytes += size;
    while (this.freeBytes > this.maxBytes || this.freeCount > this.countBound) this.evictOldest();
  }

  /** Destroys a buffer now (its commands are submitted, so the GPU finishes them first). */
  drop(b: GPUBuffer): void {
    this.owned.delete(b);
    b.destroy();
  }

  /** Stops owning a buffer without destroying it (a pending caller encoder may still use it). */
  forget(b: GPUBuffer): void {
    this.owned.delete(b);
  }

  /** Every buffer this pool owns, for a last look before destroy(). */
  buffers(): IterableIterator<GPUBuffer> {
    return this.owned.values();
  }

  destroy(): void {
    this.destroyed = true;
    for (const b of this.owned) b.destroy();
    this.owned.clear();
    this.free.clear();
    this.freeCount = 0;
    this.freeBytes = 0;
  }

  /** Drops the free buffer given longest ago (the first of its list): a scan, past a bound only. */
  private evictOldest(): void {
    let oldest: FreeList | undefined;
    for (const bySize of this.free.values())
      for (const list of bySize.values())
        if (list.order.length > 0 && (!oldest || list.order[0]! < oldest.order[0]!)) oldest = list;
    const b = oldest!.buffers.shift()!;
    oldest!.order.shift();
    this.freeCount--;
    this.freeBytes -= bufferFacts(b)!.size;
    this.drop(b);
  }
}

/** Free buffers of one usage and size, and the place in line each was given at (ascending). */
interface FreeList {
  readonly buffers: GPUBuffer[];
  readonly order: number[];
}
