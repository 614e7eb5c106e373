// Leases: which tensors may still read a buffer Cleave made. A lease covers the tensors of one
// split that share a buffer (or one output, with layout 'separate'); when the last of them is
// released the buffer goes back to its pool, and the lease is over for good. The lease travels in
// each tensor under a Symbol key, so a spread or reshaped copy carries it too: a copy of a released
// tensor is refused by every engine, even after the buffer has been reused. Per-tensor release
// state sits in a private field, which only the object Cleave returned has.

import { SplitError, check, guardRead } from '../errors.js';
import type { FixedDType } from '../dtype.js';
import type { GpuTensor, GpuView } from '../tensor.js';

export interface Lease {
  readonly buffer: GPUBuffer;
  /** Where the buffer goes when the lease ends; undefined for a caller's buffer (alias 'any'). */
  readonly home: { give(b: GPUBuffer): void } | undefined;
  live: number;
  ended: boolean;
}

export const LEASE: unique symbol = Symbol('cleave.lease');

/** Buffers Cleave made, every engine's: their live lease, or null while free, scratch or destroyed. */
const current = new WeakMap<GPUBuffer, Lease | null>();

export function trackBuffer(b: GPUBuffer): void {
  current.set(b, null);
}

/** The buffer's live lease, or undefined when Cleave did not make it or nothing holds it. */
export function leaseOn(b: GPUBuffer): Lease | undefined {
  return current.get(b) ?? undefined;
}

export function isCleaveBuffer(b: GPUBuffer): boolean {
  return current.has(b);
}

/** A lease on a buffer: the one it has, or a new one that returns it to `home` when it ends. */
export function leaseFor(buffer: GPUBuffer, home: Lease['home']): Lease {
  const held = leaseOn(buffer);
  if (held) return held;
  const lease: Lease = { buffer, home, live: 0, ended: false };
  if (current.has(buffer)) current.set(buffer, lease);
  return lease;
}

/** Ends a lease: its tensors are refused from now on, and its buffer goes home. */
export function endLease(lease: Lease): void {
  if (lease.ended) return;
  lease.ended = true;
  if (current.get(lease.buffer) === lease) current.set(lease.buffer, null);
  lease.home?.give(lease.buffer);
}

class LeasedTensor {
  readonly [LEASE]: Lease;
  #released = false;
  constructor(
    readonly dtype: FixedDType, readonly shape: readonly number[], readonly buffer: GPUBuffer,
    readonly byteOffset: number, readonly byteLength: number, lease: Lease,
  ) {
    this[LEASE] = lease;
    lease.live++;
  }

  /** Whether `t` is a tensor Cleave returned (not a copy), and if so whether it was released. */
  static state(t: object): 'live' | 'released' | undefined {
    return #released in t ? ((t as LeasedTensor).#released ? 'released' : 'live') : undefined;
  }

  /** Marks `t` released; returns its lease the first time, undefined after. */
  static release(t: LeasedTensor): Lease | undefined {
    if (t.#released) return undefined;
    t.#released = true;
    t[LEASE].live--;
    return t[LEASE];
  }
}

/** A tensor on `lease` that Cleave hands to the caller. */
export function handOut<D extends FixedDType>(lease: Lease, dtype: D, shape: readonly number[], byteOffset: number,
  byteLength: number): GpuTensor<D> {
  return new LeasedTensor(dtype, shape, lease.buffer, byteOffset, byteLength, lease) as unknown as GpuTensor<D>;
}

/** The lease a caller's object carries (its own, or a copy's), if it carries one for its own buffer. */
function carried(t: object, buffer: GPUBuffer): Lease | undefined {
  const l = guardRead('tensor', () => (t as { [LEASE]?: unknown })[LEASE]);
  return typeof l === 'object' && l !== null && (l as Lease).buffer === buffer ? l as Lease : undefined;
}

/**
 * Refuses a tensor whose bytes may no longer be its own: one released, a copy of one whose lease
 * ended, or any tensor naming a Cleave buffer that no lease holds (free in a pool, or destroyed).
 */
export function checkLive(v: GpuView, what: string): void {
  const lease = carried(v.source, v.buffer);
  const released = LeasedTensor.state(v.source) === 'released' || lease?.ended === true
    || (lease === undefined && current.has(v.buffer) && !leaseOn(v.buffer));
  check(!released, 'RELEASED', () => `${what}: this GPU tensor was released (or is a copy of one) and can no longer be used`,
    { kind: 'input', name: 'input', part: 'buffer' });
}

/**
 * Ends a tensor's use; the buffer goes home with the last tensor of its lease. Releasing twice
 * does nothing. A copy, or a tensor Cleave did not hand out, is refused: only the object Cleave
 * returned can end its share of a lease.
 */
export function release(t: unknown): void {
  if (t === undefined) return;
  check(typeof t === 'object' && t !== null, 'BAD_INPUT', () => 'release: expected a GPU tensor Cleave returned (or undefined)',
    { kind: 'input', name: 'tensor' });
  const state = LeasedTensor.state(t);
  if (state === undefined) {
    const copy = guardRead('release', () => LEASE in t);
    throw new SplitError('BAD_INPUT', copy
      ? 'release: this is a copy of a tensor Cleave returned (a spread or reshaped object); release the object Cleave returned'
      : 'release: this is not a tensor Cleave returned; release frees only what split, run, encodeSplit and upload hand out',
    { kind: 'input', name: 'tensor' });
  }
  const lease = LeasedTensor.release(t as LeasedTensor);
  if (lease && lease.live === 0) endLease(lease);
}
