// The statistics of calibration (src/planner/calibration.ts), in plain Node: probe timings made up
// from a known device (a fixed cost per split, costs per copy command, dispatch and byte) go in,
// and the cost model that comes out must give that device back, choose the plans it should, and
// hold up against the noise a shared machine adds: stretched rounds, jitter, near ties, a probe
// that failed, no timestamps, a gather too fast to resolve. No GPU and no clock anywhere.
import { describe, expect, test } from 'vitest';
import { PROBES, type Timing, costsFrom } from '../../src/planner/calibration.js';
import { type CostModel, copyCheaper } from '../../src/planner/costs.js';
import { rng } from '../helpers/cases.js';

/** A device, in ns: what any split pays, and what each strategy adds. */
interface Device {
  readonly splitNs: number;
  readonly copyCommandNs: number;
  readonly copyByteNs: number;
  readonly dispatchNs: number;
  readonly gatherByteNs: number;
}

// A software adapter like the one these tests were written beside: row copies cost about 1.7 µs a command and
// break even with the gather at rows of 1700 / (1.6 - 0.05) = 1097 bytes; with the planner's 15% margin they are
// copied from rows of 1.15 × 1700 / (1.6 - 1.15 × 0.05) = 1267 bytes.
const SOFTWARE: Device = {
  splitNs: 20_000,
  copyCommandNs: 1700,
  copyByteNs: 0.05,
  dispatchNs: 10_000,
  gatherByteNs: 1.6,
};

/** One batch of probe `i` on `d`, in ms: each split's time, times the splits of a batch. */
function batchMs(d: Device, i: number): number {
  const [copy, rows, parts, piece, k] = PROBES[i]!;
  const [commands, bytes] = [rows * parts, rows * parts * piece];
  const ns = copy
    ? d.splitNs + commands * d.copyCommandNs + bytes * d.copyByteNs
    : d.splitNs + d.dispatchNs + bytes * d.gatherByteNs;
  return (ns * k) / 1e6;
}

/** `rounds` batches of every probe, each timed as `time` says from its true time (the span and the wall clock). */
function timings(d: Device, rounds: number, time: (ms: number, probe: number, round: number) => Timing): Timing[][] {
  return PROBES.map((_, i) => Array.from({ length: rounds }, (_, r) => time(batchMs(d, i), i, r)));
}

/** Timestamps exact; the wall clock adds a queue wait. */
const exact = (ms: number): Timing => [ms + 2.6, ms];

/** The row length from which the model copies strided rows (the margin included): its shortest copied row. */
function breakEven(c: CostModel): number {
  let lo = 1;
  let hi = 1 << 24;
  if (!copyCheaper(c, 1, hi, 1, hi)) return Infinity;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (copyCheaper(c, 1, mid, 1, mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

const rel = (got: number, want: number) => Math.abs(got / want - 1);

describe('costsFrom', () => {
  test('gives the device back from exact timings, and the plans follow', () => {
    const c = costsFrom(timings(SOFTWARE, 5, exact))!;
    // The tiny probes' one command and 256 bytes are folded into the fixed cost: within 0.1%, and the cost of a
    // copied byte within 1.5 ps (the tiny copy's command spread over the bytes the row copies add).
    expect(rel(c.copyCommandNs, SOFTWARE.copyCommandNs)).toBeLessThan(1e-3);
    expect(Math.abs(c.copyByteNs - SOFTWARE.copyByteNs)).toBeLessThan(1.5e-3);
    expect(rel(c.gatherByteNs, SOFTWARE.gatherByteNs)).toBeLessThan(1e-3);
    // The dispatch holds the 256 bytes the tiny gather moves (0.41 µs).
    expect(Math.abs(c.dispatchNs - SOFTWARE.dispatchNs - 256 * SOFTWARE.gatherByteNs)).toBeLessThan(20);
    expect(Object.keys(c)).toEqual(['copyCommandNs', 'dispatchNs', 'copyByteNs', 'gatherByteNs']);
    // Strided rows: the gather up to 1267 bytes, row copies past it.
    expect(breakEven(c)).toBeGreaterThanOrEqual(1264);
    expect(breakEven(c)).toBeLessThanOrEqual(1270);
    expect(copyCheaper(c, 4096, 4 << 20, 1, 1024)).toBe(false);
    expect(copyCheaper(c, 1024, 4 << 20, 1, 2048)).toBe(true);
    // Contiguous chunks of 1 KiB in all: 7 commands (11.95 µs) cost less than a dispatch and its bytes (10.4 µs and
    // 1.6 µs), 8 (13.65 µs) do not.
    expect(copyCheaper(c, 7, 1024, 1)).toBe(true);
    expect(copyCheaper(c, 8, 1024, 1)).toBe(false);
    // Two dispatches (a gather into seven target buffers or more) against their copies: 13 commands (22.15 µs) cost
    // less than two dispatches and the bytes (20.8 µs and 1.6 µs), 14 (23.85 µs) do not.
    expect(copyCheaper(c, 13, 1024, 2)).toBe(true);
    expect(copyCheaper(c, 14, 1024, 2)).toBe(false);
  });

  test('rounds stretched by a preemption or a slow wait, two of five per probe, change nothing', () => {
    const clean = costsFrom(timings(SOFTWARE, 5, exact))!;
    // Each probe's rounds 1 and 3 (or 0 and 4) five times as long: the median keeps an undisturbed round.
    const stretched = timings(SOFTWARE, 5, (ms, i, r) =>
      exact((i % 2 ? r === 0 || r === 4 : r === 1 || r === 3) ? ms * 5 : ms),
    );
    expect(costsFrom(stretched)).toEqual(clean);
    // Three of five stretched is a different device: the statistic does not hide that.
    const most = timings(SOFTWARE, 5, (ms, i, r) => exact(i === 2 && r < 3 ? ms * 5 : ms));
    expect(costsFrom(most)!.copyCommandNs).toBeGreaterThan(4 * clean.copyCommandNs);
  });

  test('jitter of ±20% on every batch moves the break-even by less than the margin', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const next = rng(seed);
      const c = costsFrom(timings(SOFTWARE, 5, (ms) => exact(ms * (0.8 + 0.4 * next()))))!;
      expect(rel(breakEven(c), 1267), `seed ${seed}`).toBeLessThan(0.3);
      // Far from the break-even the plan never flips: 512-byte rows gathered, 4 KiB rows copied.
      expect(copyCheaper(c, 8192, 4 << 20, 1, 512), `seed ${seed}`).toBe(false);
      expect(copyCheaper(c, 1024, 4 << 20, 1, 4096), `seed ${seed}`).toBe(true);
    }
  });

  test('a near tie stays with the gather: rows that break even at 1 KiB are copied only past the margin', () => {
    // Copies and the gather cost the same on 1024-byte rows: 1024 × (1.6 - 0.05) = 1587 ns a command.
    const tie: Device = { ...SOFTWARE, copyCommandNs: 1024 * 1.55 };
    for (let seed = 1; seed <= 50; seed++) {
      const next = rng(seed);
      const c = costsFrom(timings(tie, 5, (ms) => exact(ms * (0.95 + 0.1 * next()))))!;
      expect(copyCheaper(c, 1024, 1 << 20, 1, 1024), `seed ${seed}`).toBe(false);
      expect(copyCheaper(c, 1024, 1 << 20, 1, 1536), `seed ${seed}`).toBe(true);
    }
  });

  test('a probe that failed, or gave no usable time, gives no costs: calibrate() rejects, the costs stay', () => {
    const good = timings(SOFTWARE, 5, exact);
    expect(costsFrom(good.slice(0, 4))).toBeUndefined();
    expect(costsFrom([...good.slice(0, 4), []])).toBeUndefined();
    expect(costsFrom(good.map((p, i) => (i === 2 ? p.map((): Timing => [NaN]) : p)))).toBeUndefined();
    expect(costsFrom(good.map((p, i) => (i === 0 ? p.map((): Timing => [0, 0]) : p)))).toBeUndefined();
    expect(costsFrom([])).toBeUndefined();
  });

  test('without timestamps the wall clock decides; a span that does not fit in it is not used', () => {
    const spans = costsFrom(timings(SOFTWARE, 5, exact))!;
    // The wall clock alone (no span): each batch also holds a wait for the queue of 0.3 ms.
    const wall = costsFrom(timings(SOFTWARE, 5, (ms) => [ms + 0.3]))!;
    expect(rel(breakEven(wall), breakEven(spans))).toBeLessThan(0.1);
    // A span of 0, below 0 or past the wall clock (a broken or wrapped timestamp): the wall clock.
    for (const bad of [0, -1, 1e9]) {
      const c = costsFrom(timings(SOFTWARE, 5, (ms): Timing => [ms + 0.3, bad]))!;
      expect(c, `span ${bad}`).toEqual(wall);
    }
  });

  test('a gather too fast to resolve, or a tiny gather faster than a tiny copy, falls to the floors', () => {
    // A fast GPU: 1 MiB gathered in no more time than 256 bytes. Its gather cost per byte is at the floor, and
    // strided rows are never copied, however long.
    const fast: Device = { splitNs: 20_000, copyCommandNs: 1000, copyByteNs: 0.01, dispatchNs: 5000, gatherByteNs: 0 };
    const c = costsFrom(timings(fast, 5, exact))!;
    expect(c.gatherByteNs).toBe(1e-3);
    expect(breakEven(c)).toBe(Infinity);
    // Row copies that cost nothing per byte (below the floor) and a dispatch cheaper than a command: floors too.
    const odd: Device = { splitNs: 20_000, copyCommandNs: 60, copyByteNs: -0.01, dispatchNs: -1000, gatherByteNs: 1 };
    const o = costsFrom(timings(odd, 5, exact))!;
    expect(o.copyByteNs).toBe(1e-3);
    expect(o.dispatchNs).toBe(500);
  });
});
