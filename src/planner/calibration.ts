// The statistics of calibration: the probes a device's costs are measured with, and the cost model
// their timings give. Pure: milliseconds in, costs out (gpu/calibrate.ts records and times the probes).

import type { CostModel } from './costs.js';

/**
 * The probes, each a float32 split along the last axis of [rows, parts × piece] into `parts` equal
 * pieces of `piece` bytes, recorded as splits are: [copy commands (else the gather), rows, parts,
 * piece, splits per batch]. Shaped like the splits being chosen: one tiny chunk each way (what any
 * split costs), short and long rows copied, and the gather of the long rows' tensor. A batch takes
 * a few ms on a software adapter, and keeps the queue fed: a software adapter's workers, idle between
 * short batches, wake up late.
 */
export const PROBES = [
  [true, 1, 1, 256, 32],
  [false, 1, 1, 256, 32],
  [true, 512, 2, 256, 2],
  [true, 128, 2, 4096, 8],
  [false, 128, 2, 4096, 4],
] as const;

/**
 * One batch of a probe's splits, submitted back to back as a caller's splits are, in ms: the wall clock
 * up to the queue's end, and the span of timestamps from before the first split is recorded to the end
 * of the last one's run (absent without 'timestamp-query').
 */
export type Timing = readonly [wall: number, span?: number];

/**
 * What a caller waits for: the span, else (no timestamps, or a span that does not fit in the wall
 * clock) the wall clock, which also holds the queue's wait, coarse in resolution.
 */
const waited = ([wall, span]: Timing) => (span! > 0 && span! <= wall ? span! : wall);

// The median (the upper one of an even count): rounds that a preemption or a slow wait stretched do not move it.
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;

const clamp = (x: number, lo: number, hi: number) => (x > lo ? Math.min(x, hi) : lo);

/**
 * The cost model from each probe's batches (in PROBES' order), or undefined when a probe has no usable
 * timing. Every split pays a fixed cost F; copies add C per command and cb per byte, the gather D and
 * gb per byte. The tiny copy gives F (its one command and 256 bytes left out), the short and long row
 * copies C and cb (1024 commands and 256 KiB, 256 commands and 1 MiB, over F), the gathers D and gb.
 * The probes differ in size by 4x and more, so no cost is a difference of near-equal times on a
 * software adapter; where one is (a fast GPU gathers 1 MiB in the time a submit takes), it falls to
 * its floor: a gather that cheap is never left for row copies.
 */
export function costsFrom(timings: readonly (readonly Timing[])[]): CostModel | undefined {
  const [f, g, s, l, gl] = timings.map((rounds, i) => (median(rounds.map(waited)) * 1e6) / PROBES[i]![4]);
  if (!(Math.min(f!, g!, s!, l!, gl!) > 0)) return undefined;
  const copyCommandNs = clamp((4 * s! - l! - 3 * f!) / 3840, 50, 1e5);
  return {
    copyCommandNs,
    // The tiny gather over the tiny copy's split beside its one command.
    dispatchNs: clamp(g! - f! + copyCommandNs, 500, 1e7),
    copyByteNs: clamp((4 * l! - s! - 3 * f!) / 3932160, 1e-3, 100),
    gatherByteNs: clamp((gl! - g!) / (1 << 20), 1e-3, 100),
  };
}
