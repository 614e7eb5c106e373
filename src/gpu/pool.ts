// The buffer pool: every buffer an engine creates, and the free ones held for reuse, because a fresh buffer costs
// an allocation and a zero-fill. A buffer's size is a size class (sizeClass: at most 1/8 over the size asked), so
// that sizes that drift, as a sequence growing a token a step, reuse a buffer instead of making one a call; a buffer
// a runtime wraps whole (layout 'separate') is taken exact. Free buffers are bounded by bytes and by count; past
// either bound the oldest free buffer, whatever its size or usage, is destroyed first, found by a scan of the free
// lists: a list is dropped as it empties, so there are never more of them than free buffers, however many sizes came
// and went. A split takes and gives on every call, so free buffers sit in arrays under numeric keys (usage, then
// size), not in Sets keyed by the buffers, which cost microseconds a call in Firefox. The count bound grows to the
// most buffers one split has taken (a buffer per output, with layout 'separate'), so a repeated split of many outputs
// creates none in steady state. A buffer's size and usage are known from its descriptor (read/webgpu-object.ts):
// giving one back reads no native getter.

import { bufferFacts, madeBuffer } from '../read/webgpu-object.js';

/** Free bytes a pool keeps. */
export const POOL_BYTES = 256 << 20;
/** Free buffers a pool keeps. */
export const POOL_COUNT = 256;

/**
 * The size of the buffer that serves `size` bytes: a multiple of 4, at most 1/8 over `size` from
 * 32 bytes up (with 2^k <= size < 2^(k+1), a multiple of 2^(k-3)), and under 4 bytes over below.
 */
export function sizeClass(size: number): number {
  if (size < 32) return Math.ceil(size / 4) * 4;
  let step = 2 ** (Math.floor(Math.log2(size)) - 3);
  if (step * 8 > size) step /= 2; // log2 of a size just below a power of two may round up to it
  return Math.ceil(size / step) * step;
}

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
  /** The device's largest buffer (a multiple of 4), which no class passes. */
  private readonly largest: number;

  constructor(
    private readonly device: GPUDevice,
    private readonly onCreate: (b: GPUBuffer) => void,
    readonly maxBytes = POOL_BYTES,
    readonly maxCount = POOL_COUNT,
  ) {
    this.countBound = maxCount;
    this.largest = device.limits.maxBufferSize - (device.limits.maxBufferSize % 4);
  }

  /** Buffers alive (free or leased). */
  get live(): number {
    return this.owned.size;
  }

  /** Free buffers, and the lists they sit in (never more lists than buffers). */
  get held(): { readonly buffers: number; readonly lists: number } {
    let lists = 0;
    for (const bySize of this.free.values()) lists += bySize.size;
    return { buffers: this.freeCount, lists };
  }

  /** A new buffer this pool owns (never a reused one: mapped-at-creation buffers are written once). */
  create(size: number, usage: GPUBufferUsageFlags, mappedAtCreation = false): GPUBuffer {
    const b = this.device.createBuffer({ label: 'cleave', size, usage, mappedAtCreation });
    madeBuffer(b, size, usage);
    this.owned.add(b);
    this.onCreate(b);
    return b;
  }

  /** Whether take would find free buffers for all these sizes (one per entry, repeats counted). */
  has(sizes: readonly number[], usage: GPUBufferUsageFlags, exact = false): boolean {
    const bySize = this.free.get(usage);
    if (!bySize) return sizes.length === 0;
    if (sizes.length === 1) return bySize.has(this.sized(sizes[0]!, exact));
    const want = new Map<number, number>();
    for (const s of sizes) {
      const size = this.sized(s, exact);
      want.set(size, (want.get(size) ?? 0) + 1);
    }
    for (const [size, n] of want) if ((bySize.get(size)?.buffers.length ?? 0) < n) return false;
    return true;
  }

  /**
   * A free buffer of this usage (the one given last), or a new one: of `size` bytes when `exact`, else
   * of the class of `size`, which may be larger: a tensor on it keeps its own byte length.
   */
  take(size: number, usage: GPUBufferUsageFlags, exact = false): GPUBuffer {
    const sized = this.sized(size, exact);
    const bySize = this.free.get(usage);
    const list = bySize?.get(sized);
    if (!list) return this.create(sized, usage);
    this.freeCount--;
    this.freeBytes -= sized;
    list.order.pop();
    if (list.order.length === 0) bySize!.delete(sized);
    return list.buffers.pop()!;
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

  /** The size take serves `size` with: its class, short of the device's largest buffer. */
  private sized(size: number, exact: boolean): number {
    return exact ? size : Math.min(sizeClass(size), Math.max(size, this.largest));
  }

  /** Drops the free buffer given longest ago (the first of its list): a scan of the lists, past a bound only. */
  private evictOldest(): void {
    let oldest: FreeList | undefined;
    for (const bySize of this.free.values())
      for (const list of bySize.values()) if (!oldest || list.order[0]! < oldest.order[0]!) oldest = list;
    const b = oldest!.buffers.shift()!;
    oldest!.order.shift();
    const { size, usage } = bufferFacts(b)!;
    if (oldest!.order.length === 0) this.free.get(usage)!.delete(size);
    this.freeCount--;
    this.freeBytes -= size;
    this.drop(b);
  }
}

/** Free buffers of one usage and size, and the place in line each was given at (ascending). */
type FreeList = { readonly buffers: GPUBuffer[]; readonly order: number[] };
