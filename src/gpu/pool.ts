// The buffer pool: every buffer an engine creates, and the free ones kept for reuse, because a
// fresh buffer costs an allocation and a zero-fill. Free buffers are bounded by bytes and by
// count; past either bound the oldest free buffer, whatever its size or usage, is destroyed first.
// The count bound grows to the most buffers one split has taken (a buffer per output, with layout
// 'separate'), so a repeated split of many outputs creates none in steady state.

/** Free bytes a pool keeps. */
export const POOL_BYTES = 256 << 20;
/** Free buffers a pool keeps. */
export const POOL_COUNT = 256;

export class BufferPool {
  /** Every buffer this pool created that is not destroyed (leased or free). */
  private readonly owned = new Set<GPUBuffer>();
  /** Free buffers by usage and size. */
  private readonly free = new Map<string, Set<GPUBuffer>>();
  /** Every free buffer, oldest first (a Set keeps insertion order). */
  private readonly order = new Set<GPUBuffer>();
  private freeBytes = 0;
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
    this.owned.add(b);
    this.onCreate(b);
    return b;
  }

  /** Whether free buffers of these sizes (one per entry, repeats counted) and this usage are all at hand. */
  has(sizes: readonly number[], usage: GPUBufferUsageFlags): boolean {
    const want = new Map<number, number>();
    for (const s of sizes) want.set(s, (want.get(s) ?? 0) + 1);
    return [...want].every(([size, n]) => (this.free.get(key(usage, size))?.size ?? 0) >= n);
  }

  /** A free buffer of exactly this size and usage, or a new one. */
  take(size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    const list = this.free.get(key(usage, size));
    const b = list?.values().next().value;
    if (!b) return this.create(size, usage);
    list.delete(b);
    this.order.delete(b);
    this.freeBytes -= b.size;
    return b;
  }

  /** One split took `n` buffers at once: keep at least that many free for its next call. */
  took(n: number): void {
    if (n > this.countBound) this.countBound = n;
  }

  /** Returns a buffer whose commands are all submitted; evicts the oldest free ones past the bounds. */
  give(b: GPUBuffer): void {
    if (this.destroyed || !this.owned.has(b)) return;
    if (b.size > this.maxBytes) return this.drop(b);
    const k = key(b.usage, b.size);
    let list = this.free.get(k);
    if (!list) this.free.set(k, (list = new Set()));
    list.add(b);
    this.order.add(b);
    this.freeBytes += b.size;
    while (this.freeBytes > this.maxBytes || this.order.size > this.countBound) {
      const old = this.order.values().next().value!;
      this.order.delete(old);
      this.free.get(key(old.usage, old.size))!.delete(old);
      this.freeBytes -= old.size;
      this.drop(old);
    }
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
    this.order.clear();
    this.freeBytes = 0;
  }
}

const key = (usage: number, size: number) => `${usage}:${size}`;
