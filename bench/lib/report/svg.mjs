// The report's charts as inline SVG (no script): a log-scale bar chart per case and one overview
// of ratios. Each scales with its viewBox (CSS: width 100%, max-width its natural width), so it
// fits a phone screen; error texts never appear here, only a pointer to the table that has them.

import { SYSTEMS, esc, ms } from './format.mjs';

/** @import { CaseRecord, Report, SystemResult } from '../../types.js' */

/** The GPU-time marker (▼) at x, y: drawn in the charts and in the legend. @param {number} x @param {number} y */
export const gpuMarker = (x, y) => `<path d="M${x - 4} ${y} h8 l-4 7 z" fill="#000"/>`;

/** @param {number} w @param {number} h @param {string} label @param {string[]} parts */
const svg = (w, h, label, parts) =>
  `<svg viewBox="0 0 ${w} ${h}" style="max-width:${w}px" role="img" aria-label="${esc(label)}">${parts.join('')}</svg>`;

/**
 * A log-scale x axis from lo to hi (powers of ten) over [x0, x1]: the mapping and its grid lines.
 * @param {number} lo @param {number} hi @param {number} x0 @param {number} x1 @param {number} top @param {number} H
 * @param {string} unit  'x' draws the 1x line in black
 */
function logAxis(lo, hi, x0, x1, top, H, unit) {
  /** @param {number} v */
  const x = (v) => x0 + (Math.log10(v / lo) / Math.log10(hi / lo)) * (x1 - x0);
  const grid = [];
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    grid.push(
      `<line x1="${x(d)}" x2="${x(d)}" y1="${top}" y2="${H - 22}" stroke="${unit === 'x' && Math.abs(d - 1) < 1e-9 ? '#000' : '#ddd'}"/>`,
      `<text x="${x(d)}" y="${H - 8}" text-anchor="middle" class="ax">${d >= 1 ? d : d.toPrecision(1)}${unit}</text>`,
    );
  }
  return { x, grid };
}

/** @param {readonly number[]} values @param {number} [minLo] @param {number} [minHi] */
function decades(values, minLo = Infinity, minHi = 0) {
  return {
    lo: Math.min(minLo, 10 ** Math.floor(Math.log10(Math.min(...values)))),
    hi: Math.max(minHi, 10 ** Math.ceil(Math.log10(Math.max(...values)))),
  };
}

/**
 * One bar per system, log scale: median wall time, min-max whisker, ▼ at the median GPU time.
 * @param {CaseRecord} r
 */
export function caseChart(r) {
  const bars = SYSTEMS.flatMap((s) =>
    r.systems[s.key] ? [{ s, v: /** @type {SystemResult} */ (r.systems[s.key]) }] : [],
  );
  const values = bars
    .flatMap(({ v }) => (v.ok ? [v.wall?.min, v.wall?.max, v.gpu?.min, v.gpu?.median] : []))
    .filter((x) => x !== undefined && x > 0)
    .map(Number);
  if (values.length === 0) return '<p class="muted">no timings</p>';
  const { lo, hi } = decades(values);
  const W = 480,
    left = 84,
    right = 110,
    rowH = 24,
    top = 10;
  const H = top + bars.length * rowH + 26;
  const { x, grid } = logAxis(lo, hi, left, W - right, top, H, '');
  const parts = [...grid, `<text x="${W - right + 18}" y="${H - 8}" class="ax">ms, log scale</text>`];
  bars.forEach(({ s, v }, i) => {
    const y = top + i * rowH;
    parts.push(`<text x="${left - 6}" y="${y + 16}" text-anchor="end" class="lb">${esc(s.short)}</text>`);
    if (!v.ok || !v.wall) {
      parts.push(
        `<text x="${left + 4}" y="${y + 16}" class="err">${v.skip ? 'n/a (why: in the table below)' : 'failed (error in full below)'}</text>`,
      );
      return;
    }
    const { median: m, min, max } = v.wall;
    const mid = y + rowH / 2;
    parts.push(
      `<rect x="${left}" y="${y + 5}" width="${Math.max(1, x(m) - left)}" height="${rowH - 10}" fill="${s.color}"${v.fallback ? ' fill-opacity="0.45"' : ''}/>`,
      `<path d="M${x(min)} ${y + 7} v${rowH - 14} M${x(min)} ${mid} H${x(max)} M${x(max)} ${y + 7} v${rowH - 14}" stroke="#222" fill="none"/>`,
    );
    if ((v.gpu?.median ?? 0) > 0) parts.push(gpuMarker(x(/** @type {number} */ (v.gpu?.median)), y + 1));
    parts.push(
      `<text x="${W - right + 6}" y="${y + 16}" class="val">${ms(m)}${v.gpu?.median !== undefined ? ` (${ms(v.gpu.median)})` : ''}${v.fallback ? ' cpu' : ''}</text>`,
    );
  });
  return svg(W, H, r.case.id, parts);
}

/** The systems the overview compares GPU-resident Cleave with. */
const OTHERS = SYSTEMS.filter((s) => ['ort-gpu', 'tfjs-gpu', 'copy-limit', 'shader-limit'].includes(s.key));

/**
 * Per case, how many times slower than GPU-resident Cleave each other system is.
 * @param {Report} report
 */
export function overviewChart(report) {
  const rows = report.results.filter((r) => !r.case.cold && r.systems['cleave-gpu']?.ok);
  /** @param {CaseRecord} r @param {import('../../types.js').SystemKey} key */
  const ratio = (r, key) => {
    const o = r.systems[key];
    const c = r.systems['cleave-gpu']?.wall?.median;
    return o?.ok && o.wall && c ? o.wall.median / c : undefined;
  };
  const ratios = rows
    .flatMap((r) => OTHERS.map((s) => ratio(r, s.key)))
    .filter((v) => v !== undefined && v > 0)
    .map(Number);
  if (!ratios.length) return '';
  const { lo, hi } = decades(ratios, 0.1, 10);
  // Case ids sit above their bars, so the bars get the whole width, also on a phone.
  const W = 480,
    left = 22,
    right = 26,
    bar = 14,
    rowH = 18 + bar * OTHERS.length + 6,
    top = 26;
  const H = top + rows.length * rowH + 28;
  const { x, grid } = logAxis(lo, hi, left, W - right, top, H, 'x');
  const p = [...grid];
  for (const [v, c] of /** @type {const} */ ([
    [3, '#d73a49'],
    [1 / 1.3, '#6a737d'],
  ]))
    p.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${top}" y2="${H - 22}" stroke="${c}" stroke-dasharray="4 3"/>`);
  OTHERS.forEach((s, j) =>
    p.push(
      `<rect x="${left - 14 + j * 158}" y="6" width="10" height="10" fill="${s.color}"/><text x="${left + j * 158}" y="15" class="lb2">${esc(s.short)} / Cleave</text>`,
    ),
  );
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    p.push(`<text x="${left - 14}" y="${y + 14}" class="lb">${esc(r.case.id)}</text>`);
    OTHERS.forEach((s, j) => {
      const o = r.systems[s.key];
      const v = ratio(r, s.key);
      const yb = y + 18 + j * bar;
      if (o && !o.ok)
        p.push(
          `<text x="${x(1) + 4}" y="${yb + 10}" class="err">${esc(s.short)}: ${o.skip ? 'n/a' : 'failed'} (see the case)</text>`,
        );
      if (v === undefined || !o) return;
      const [x0, x1] = [x(Math.min(1, v)), x(Math.max(1, v))];
      p.push(
        `<rect x="${x0}" y="${yb}" width="${Math.max(1, x1 - x0)}" height="${bar - 3}" fill="${s.color}"${o.fallback ? ' fill-opacity="0.45"' : ''}/>`,
      );
    });
  });
  return svg(W, H, 'overview', p);
}
