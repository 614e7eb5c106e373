// Words and numbers of the text report: the systems' names, and times, throughput, sizes, shapes,
// Cleave's plans and ratios as text, and the plain-text table.

/** @import { BenchCase, PlanStats, SystemKey, SystemResult } from '../../types.js' */

/** The systems of the main table, in its column order. @type {readonly { key: SystemKey, short: string }[]} */
export const SYSTEMS = [
  { key: 'cleave-gpu', short: 'Cleave GPU' },
  { key: 'cleave-gpu-separate', short: 'Cleave separate' },
  { key: 'cleave-host', short: 'Cleave host' },
  { key: 'ort-gpu', short: 'ORT GPU' },
  { key: 'ort-host', short: 'ORT host' },
  { key: 'tfjs-gpu', short: 'TF.js GPU' },
  { key: 'copy-limit', short: 'copy limit' },
  { key: 'shader-limit', short: 'shader limit' },
  { key: 'cleave-cpu', short: 'Cleave CPU' },
];

/**
 * Milliseconds with about 3 significant digits.
 * @param {number | undefined | null} v
 */
export function ms(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '-';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  if (v >= 0.1) return v.toFixed(3);
  return v.toPrecision(2);
}

/** @param {number | undefined} v  GB/s */
export function gbps(v) {
  if (v === undefined || !Number.isFinite(v)) return '-';
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 0.1 ? v.toFixed(2) : v.toPrecision(2);
}

/** @param {number} n */
export function bytesText(n) {
  if (n >= 1 << 20) return `${+(n / (1 << 20)).toFixed(2)} MiB`;
  if (n >= 1 << 10) return `${+(n / (1 << 10)).toFixed(2)} KiB`;
  return `${n} B`;
}

/** @param {BenchCase} c */
export function shortShape(c) {
  const how = c.op === 'SplitToSequence' ? 'seq' : c.sizes.length > 4 ? `${c.sizes.length}` : `[${c.sizes.join(',')}]`;
  return `${c.dtype} [${c.shape.join(',')}] a${c.axis} -> ${how}`;
}

/**
 * Cleave's plan: 'alias', 'copy', or 'gather' with its unit (1-bit: the bit-level variant).
 * @param {PlanStats | undefined} s
 */
export function planText(s) {
  if (!s) return '-';
  return s.strategy === 'gather' ? `gather ${s.unitBits}-bit` : s.strategy;
}

/**
 * A terminal cell: median wall (median GPU time), 'cpu' when ORT fell back to its CPU EP.
 * @param {SystemResult | undefined} s
 */
export function cellText(s) {
  if (!s) return '-';
  if (s.skip) return 'n/a';
  if (!s.ok) return 'ERR';
  const g = s.gpu?.median !== undefined ? ` (${ms(s.gpu.median)})` : '';
  return `${ms(s.wall?.median)}${g}${s.fallback ? ' cpu' : ''}`;
}

/** A difference with its sign: +1.50, -0.250. @param {number | undefined} v */
export const signed = (v) => (v === undefined ? '-' : `${v < 0 ? '-' : '+'}${ms(Math.abs(v))}`);

/** A ratio close to 1, with three decimals: 1.004x is not 1.00x. @param {number | undefined} x */
export const near1 = (x) => (x === undefined ? '-' : `${x.toFixed(3)}x`);

/** @param {number | undefined} x */
export const times = (x) => (x === undefined ? '-' : `${x >= 0.1 ? ms(x) : x.toPrecision(2)}x`);

/**
 * A plain-text table: the first row is the header; the first two columns left-aligned, the others right.
 * @param {readonly (readonly string[])[]} rows
 */
export function table(rows) {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (/** @type {readonly string[]} */ r) =>
    r.map((v, i) => (i < 2 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ');
  const [head = [], ...body] = rows;
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
