// Words and numbers shared by the terminal output and report.html: the systems' names and
// colours, and times, throughput, sizes, shapes and Cleave's plans as text.

/** @import { BenchCase, PlanStats, SystemKey, SystemResult } from '../../types.js' */

/** @type {readonly { key: SystemKey, label: string, short: string, color: string }[]} */
export const SYSTEMS = [
  { key: 'cleave-gpu', label: 'Cleave GPU-resident', short: 'Cleave GPU', color: '#1f6feb' },
  { key: 'cleave-host', label: 'Cleave host in/out', short: 'Cleave host', color: '#79b8ff' },
  { key: 'ort-gpu', label: 'ORT Web GPU-resident', short: 'ORT GPU', color: '#d73a49' },
  { key: 'ort-host', label: 'ORT Web host in/out', short: 'ORT host', color: '#f9a3ab' },
  { key: 'tfjs-gpu', label: 'TF.js tf.split GPU-resident (WebGPU backend)', short: 'TF.js GPU', color: '#e36209' },
  { key: 'copy-limit', label: 'copy limit (copyBufferToBuffer)', short: 'copy limit', color: '#6a737d' },
  { key: 'shader-limit', label: 'shader-copy limit (vec4<u32> kernel)', short: 'shader limit', color: '#a371f7' },
  { key: 'cleave-cpu', label: 'Cleave CPU backend, host in/out (reference)', short: 'Cleave CPU', color: '#2ea043' },
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

/** @param {unknown} s */
export const esc = (s) =>
  String(s ?? '').replace(
    /[&<>"]/g,
    (c) => /** @type {Record<string, string>} */ ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c,
  );

/** A ratio close to 1 (pipeline against whole graph), with three decimals so 1.004x does not read as 1.00x. @param {number} x */
export const near1 = (x) => `${x.toFixed(3)}x`;

/** @param {number} x */
export const times = (x) => `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}x`;
