// Leases: which tensors may still read a buffer Cleave made. A lease covers the tensors of one
// split that share a buffer (or one output, with layout 'separate'); when the last of them is
// released the buffer goes back to its pool, and the lease is over for good. The lease travels in
// each tensor under a Symbol key, so a spread or reshaped copy carries it too: a copy of a released
// tensor is refused by every engine, even after the buffer has been reused. Per-tensor release
// state sits in a private field, which only the object Cleave returned has. A lease is settling
// while the split that made it (or one upstream of it) resolved before its GPU errors were known,
// and poisoned if one of them then failed: its tensors never held the split, so every use of them
// is refused with that failure (release still works).

import { SplitError, type SubjectKey, check, guardRead } from '../errors.js';
import type { FixedDType } from '../dtype.js';
import type { Destination, GpuTensor } from '../tensor.js';

/** What a lease check reads of a tensor: the caller's object, and the buffer it named when it was read. */
type Live = Pick<Destination, 'source' | 'buffer'>;

export interface Lease {
  readonly buffer: GPUBuffer;
  /** Where the buffer goes when the lease ends; undefined for a caller's buffer (alias 'any'). */
  readonly home: { give(b: GPUBuffer): void } | undefined;
  live: number;
  ended?: boolean;
  /** The GPU error of the split that made it (or of one upstream), known only after it resolved. */
  failed?: SplitError;
  /** While those splits' errors are unknown: settles with the first of them, or undefined. */
  settling?: Promise<SplitError | undefined>;
}

const LEASE = Symbol('cleave.lease');

/** Buffers Cleave made, every engine's: their live lease, or null while free or destroyed. */
const current = new WeakMap<GPUBuffer, Lease | null>();

export function trackBuffer(b: GPUBuffer): void {
  current.set(b, null);
}

/** The buffer's live lease, if Cleave made it and something holds it. */
export function leaseOn(b: GPUBuffer): Lease | undefined {
  return current.get(b) ?? undefined;
}

/** A lease on a buffer: the one it has, or a new one that returns it to `home` when it ends. */
export function leaseFor(buffer: GPUBuffer, home: Lease['home']): Lease {
  const held = current.get(buffer);
  const lease = held ?? { buffer, home, live: 0 };
  if (held === null) current.set(buffer, lease);
  return lease;
}

/** Ends the leases on these buffers (their engine is destroyed): their tensors are refused from now on. */
export function endAll(buffers: Iterable<GPUBuffer>): void {
  for (const b of buffers) {
    const lease = leaseOn(b);
    if (lease) lease.ended = true;
    current.set(b, null);
  }
}

class LeasedTensor {
  readonly [LEASE]: Lease;
  #released = false;
  constructor(
    readonly dtype: FixedDType,
    readonly shape: readonly number[],
    readonly buffer: GPUBuffer,
    readonly byteOffset: number,
    readonly byteLength: number,
    lease: Lease,
  ) {
    this[LEASE] = lease;
    lease.live++;
  }

  /** Whether `t` is a tensor Cleave returned (not a copy): 1 live, 2 released, 0 otherwise. */
  static state(t: object): number {
    return #released in t ? 1 + +t.#released : 0;
  }

  /** Marks `t` released; ends its lease with the last of its tensors. */
  static release(t: LeasedTensor): void {
    const lease = t[LEASE];
    if (t.#released) return;
    t.#released = true;
    if (--lease.live === 0 && !lease.ended) {
      lease.ended = true;
      if (current.get(lease.buffer) === lease) current.set(lease.buffer, null);
      lease.home?.give(lease.buffer);
    }
  }
}

/** A tensor on `lease` that Cleave hands to the caller. */
export function handOut(
  lease: Lease,
  dtype: FixedDType,
  shape: readonly number[],
  byteOffset: number,
  byteLength: number,
): GpuTensor {
  return new LeasedTensor(dtype, shape, lease.buffer, byteOffset, byteLength, lease) as unknown as GpuTensor;
}

/**
 * Refuses a tensor whose bytes may no longer be its own: one released, a copy of one whose lease
 * ended, or any tensor naming a Cleave buffer that no lease holds (free in a pool, or destroyed);
 * and one whose split failed on the GPU after it resolved. Returns the lease its bytes are under, if any.
 */
export function checkLive(v: Live, what: string, subject: SubjectKey = 'input:input.buffer'): Lease | undefined {
  // One look at the buffer: undefined, not Cleave's; null, Cleave's and held by no lease; else its live lease.
  const held = current.get(v.buffer);
  const lease = leaseOf(v, what, held);
  check(
    LeasedTensor.state(v.source) < 2 && !lease?.ended && (lease !== undefined || held === undefined),
    'RELEASED',
    () => `${what}: this GPU tensor was released (or is a copy of one); release a tensor after its last use`,
    subject,
  );
  if (lease?.failed) throw poisoned(what, lease.failed);
  return lease;
}

/** The lease whose bytes a tensor reads: the one it carries, or, for a tensor made by hand, its buffer's live one. */
function leaseOf(v: Live, what: string, held = current.get(v.buffer)): Lease | undefined {
  const carried = guardRead(what, () => (v.source as { [LEASE]?: Lease })[LEASE]);
  return carried?.buffer === v.buffer ? carried : (held ?? undefined);
}

/** The refusal of a tensor whose split (or one upstream) failed on the GPU after it resolved. */
export const poisoned = (what: string, e: SplitError) =>
  new SplitError('GPU_ERROR', `${what}: this tensor's split failed on the GPU after it resolved: ${e.message}`);

/** The first GPU error of the splits a tensor's bytes depend on, while some of them are unknown. */
export function fateOf(v: Live, what: string): Promise<SplitError | undefined> | undefined {
  return leaseOf(v, what)?.settling;
}

/** The outputs' bytes depend on a split whose GPU errors are unknown: an error `fate` brings poisons them. */
export function settle(outputs: readonly GpuTensor[], fate: Promise<SplitError | undefined>): void {
  // Each lease once (outputs share few), in a plain array: this runs on every split of a caller's buffer.
  const done: Lease[] = [];
  for (const t of outputs) {
    const lease = (t as unknown as LeasedTensor)[LEASE];
    if (done.includes(lease) || lease.settling === fate) continue;
    done.push(lease);
    lease.settling = (lease.settling?.then((e) => e ?? fate) ?? fate).then((e) => (lease.failed ??= e));
  }
}

/**
 * Ends a tensor's use; the buffer goes home with the last tensor of its lease. Releasing twice does
 * nothing. A copy, or a tensor Cleave did not hand out, is refused: only the object Cleave
 * returned can end its share of a lease.
 */
export function release(t: unknown): void {
  if (t === undefined) return;
  const object = typeof t === 'object' && t !== null;
  if (object && LeasedTensor.state(t) > 0) return LeasedTensor.release(t as LeasedTensor);
  const copy = object && guardRead('release', () => LEASE in t);
  throw new SplitError(
    'BAD_INPUT',
    `release: takes a tensor Cleave returned, not ${copy ? 'a copy of one' : 'this'}`,
    'input:tensor',
  );
}
