// The report's charts: what a chart is (a spec the report writes into the page as JSON), and the functions the page
// runs to draw each spec with Chart.js. They run in the browser: the page holds their source (PAGE_FUNCTIONS,
// through Function.prototype.toString), so they use nothing from this module's scope but each other.

/**
 * One set of bars: a value per label, null where there is none (failed, n/a, or 0 on a log axis).
 * @typedef {{ label: string, color: string, data: (number | null)[] }} Series
 */

/**
 * A horizontal bar chart: a category per label, a bar per series; `unit` names the value axis.
 * @typedef {object} ChartSpec
 * @property {string} id  its canvas's id
 * @property {string[]} labels
 * @property {Series[]} series
 * @property {string} unit  the value axis's title
 * @property {'ms' | 'µs' | 'x' | 'GB/s' | 'count' | 'bytes'} format  how values read
 * @property {boolean} log  a log axis (else linear from 0)
 */

/**
 * A value as text: on an axis, short; in a tooltip, with its unit.
 * @param {number} v @param {ChartSpec['format']} f @param {boolean} tooltip
 */
export function valueText(v, f, tooltip) {
  const a = Math.abs(v);
  const short = String(+v.toPrecision(3));
  const n = !tooltip ? short : a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : short;
  if (f === 'x') return `${n}x`;
  if (f === 'count') return a >= 1 ? String(Math.round(v)) : short;
  if (f === 'bytes') {
    if (a >= 2 ** 20) return `${+(v / 2 ** 20).toFixed(1)} MiB`;
    return a >= 1024 ? `${+(v / 1024).toFixed(1)} KiB` : `${Math.round(v)} B`;
  }
  return tooltip ? `${n} ${f}` : n;
}

/**
 * The ticks a log axis labels: powers of ten, and 2 and 5 times them where the axis spans two decades or less.
 * @param {{ value: number }[]} ticks
 */
export function logTicks(ticks) {
  const values = ticks.map((t) => t.value).filter((v) => v > 0);
  const decades = Math.log10(Math.max(...values) / Math.min(...values));
  const keep = decades > 2 ? [1] : [1, 2, 5];
  return ticks.filter((t) => {
    const m = t.value / 10 ** Math.floor(Math.log10(t.value) + 1e-9);
    return keep.some((k) => Math.abs(m - k) < 1e-6);
  });
}

/**
 * A label in lines of at most `width` characters, broken after spaces and dashes (a longer word keeps a line of its
 * own): on a narrow canvas Chart.js cuts a wider label off at its left.
 * @param {string} s @param {number} [width] @returns {string | string[]}
 */
export function wrapLabel(s, width = 18) {
  if (s.length <= width) return s;
  /** @type {string[]} */
  const lines = [];
  let line = '';
  for (const word of s.split(/(?<=[- ])/)) {
    if (line && (line + word).trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += word;
  }
  return [...lines, line.trimEnd()];
}

/**
 * Chart.js's configuration of a spec. On a narrow canvas, long category labels break over lines at their spaces and
 * dashes.
 * @param {ChartSpec} spec @param {boolean} narrow
 * @returns {import('chart.js').ChartConfiguration<'bar', (number | null)[], string>}
 */
export function chartConfig(spec, narrow) {
  const wrap = (/** @type {string} */ s) => (narrow ? wrapLabel(s) : s);
  return {
    type: 'bar',
    data: {
      labels: spec.labels,
      datasets: spec.series.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.color })),
    },
    options: {
      indexAxis: 'y',
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: {
          type: spec.log ? 'logarithmic' : 'linear',
          ...(spec.log ? { afterBuildTicks: (axis) => void (axis.ticks = logTicks(axis.ticks)) } : { min: 0 }),
          title: { display: true, text: spec.unit },
          ticks: { callback: (v) => valueText(Number(v), spec.format, false), maxRotation: 0 },
        },
        y: { ticks: { autoSkip: false, callback: (v) => wrap(spec.labels[Number(v)] ?? '') } },
      },
      plugins: {
        legend: { display: spec.series.length > 1, position: 'bottom' },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${valueText(Number(c.raw), spec.format, true)}` } },
      },
    },
  };
}

/**
 * Draws every chart of the page with Chart.js and records how many drew on `<html data-charts-drawn>`; a chart
 * that throws is recorded on `data-charts-failed` (and the console), and the others still draw.
 * @param {typeof import('chart.js').Chart} Chart @param {ChartSpec[]} specs
 */
export function drawCharts(Chart, specs) {
  let drawn = 0;
  const failed = [];
  for (const spec of specs) {
    try {
      const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById(spec.id));
      new Chart(canvas, chartConfig(spec, (canvas.parentElement?.clientWidth ?? 0) < 560));
      drawn++;
    } catch (e) {
      failed.push(`${spec.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  document.documentElement.dataset['chartsDrawn'] = String(drawn);
  if (failed.length) {
    document.documentElement.dataset['chartsFailed'] = failed.join('; ');
    console.error(`charts that did not draw: ${failed.join('; ')}`);
  }
}

/** The functions the page holds, in source. */
export const PAGE_FUNCTIONS = [valueText, logTicks, wrapLabel, chartConfig, drawCharts];
