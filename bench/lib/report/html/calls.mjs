// Per-call cost in the HTML report: µs of JavaScript per call of each variant (split, encodeSplit, a prepared
// split, and the bare WebGPU calls the same copies need, where the run timed them), each variant over the bare
// calls (the median of the per-round ratios, and the fastest round over the bare calls' fastest round), and what
// keeping blame costs: the bare calls inside error scopes. Files written before variants were named, the bare
// calls timed or the fastest rounds compared render with what they have.

import { callCostRows, scopeStudy } from '../../findings.mjs';
import { ms, planText, signed, times } from '../format.mjs';
import { notes, para, series, table } from './markup.mjs';

/** @import { CallCostRecord, CallCostRow, Report, Summary } from '../../../types.js' */
/** @import { Cell, Charts } from './markup.mjs' */

/**
 * A variant in words: its own label, else its function, input and plan.
 * @param {CallCostRow} x @param {string} input
 */
export const variantLabel = (x, input) => x.label || `${x.fn}, ${input}, ${planText(x.stats)}`;

/** @param {Summary | undefined} s @param {(v: number) => string} f */
const range = (s, f) => (s ? (s.n > 1 ? `${f(s.median)} [${f(s.min)}–${f(s.max)}]` : f(s.median)) : '-');

/** @param {number | undefined} v */
const ratio = (v) => (v === undefined ? '-' : times(v));

/** A row's state: verified, failed, or n/a. @param {CallCostRow} x @returns {Cell} */
const state = (x) => (x.skip ? { text: 'n/a', cls: 'muted' } : x.error ? { text: 'failed', cls: 'err' } : 'verified');

/** What did not run, and why, in full. @param {Rows} rows @param {string[]} labels */
const reasons = (rows, labels) =>
  notes(
    rows.flatMap(({ row: x }, i) => (x.skip ? [`${labels[i]}: n/a: ${x.skip}`] : [])),
    'muted',
  ) +
  notes(
    rows.flatMap(({ row: x }, i) => (x.error ? [`${labels[i]}: ${x.error}`] : [])),
    'err',
  );

/** @typedef {ReturnType<typeof callCostRows>} Rows */

/**
 * A figure's µs where the row ran, none where it failed or was n/a.
 * @param {CallCostRow} x @param {'median' | 'min'} k
 */
const usOf = (x, k) => (x.error || x.skip ? undefined : x.us?.[k]);

/**
 * The two statistics as two sets of bars, the median over rounds (dark) and the fastest round (light).
 * @param {readonly CallCostRow[]} xs @param {[string, string]} colors
 * @param {(x: CallCostRow) => number | undefined} median @param {(x: CallCostRow) => number | undefined} fastest
 * @param {[string, string]} [names]
 */
const both = (xs, colors, median, fastest, names = ['median over rounds', 'fastest round']) => [
  series(names[0], colors[0], xs.map(median)),
  series(names[1], colors[1], xs.map(fastest)),
];

/** µs per call of each variant, the table of every figure. @param {Charts} charts @param {CallCostRecord} record
 * @param {Rows} rows */
function timeFigure(charts, record, rows) {
  const labels = rows.map(({ row, input }) => variantLabel(row, input));
  const body = rows.map(({ row: x, scopes }, i) => [
    labels[i] ?? '',
    planText(x.stats),
    scopes,
    range(x.us, ms),
    String(x.calls),
    state(x),
  ]);
  const head = ['variant', 'plan', 'error scopes', 'µs per call', 'calls', 'state'];
  const { dtype, shape, axis, parts } = record.spec;
  // What cannot run here has no place in the chart: the table and the notes under it say why.
  const ran = rows.flatMap(({ row: x }, i) => (x.skip ? [] : [{ x, label: labels[i] ?? '' }]));
  const xs = ran.map((r) => r.x);
  return charts.figure(
    usChart(
      ran.map((r) => r.label),
      xs,
      ['#4e79a7', '#a0cbe8'],
    ),
    {
      title: `${record.id}: µs per call (${dtype} [${shape.join(', ')}] axis ${axis} into ${parts})`,
      caption:
        `Each variant called ${record.spec.callsInARow} times in a row and timed as a whole, the GPU drained off the ` +
        'clock, in rounds. split: the call, awaited, its outputs released; encodeSplit and a prepared encode: with ' +
        'their encoder, finish and submit; bare: the same copies as plain WebGPU calls (one encoder, a ' +
        'copyBufferToBuffer per copy, one submit). The table gives each median with its range over the rounds (its ' +
        'least: the fastest round); the next figure, each over the bare calls.',
      table: table(head, body, 3) + reasons(rows, labels),
    },
  );
}

/** Each variant over the bare calls, where the run timed them. @param {Charts} charts
 * @param {CallCostRecord} record @param {Rows} rows */
function overBareFigure(charts, record, rows) {
  const over = rows.filter(({ row: x }) => x.fn !== 'bare' && x.overBare && !x.error && !x.skip);
  if (over.length === 0) return '';
  const labels = over.map(({ row, input }) => variantLabel(row, input));
  const xs = over.map(({ row }) => row);
  const names = /** @type {[string, string]} */ (['per round, median', 'fastest round over fastest']);
  return charts.figure(
    {
      labels,
      series: both(
        xs,
        ['#e15759', '#ff9d9a'],
        (x) => x.overBare?.median,
        (x) => x.fastestOverBare,
        names,
      ),
      unit: 'µs per call / the bare calls’ (1 = as cheap)',
      format: 'x',
      log: false,
    },
    {
      title: `${record.id}: each variant over the bare calls`,
      caption:
        'Each round times every variant and the bare calls in turn. Per round: the median of the per-round ratios. ' +
        "Fastest: the variant's fastest round over the bare calls' fastest round, the rounds least disturbed by " +
        'whatever else the machine runs.',
      table: table(
        ['variant', 'per round, median [min–max]', 'fastest over fastest'],
        xs.map((x, i) => [labels[i] ?? '', range(x.overBare, times), ratio(x.fastestOverBare)]),
      ),
    },
  );
}

/**
 * A chart of µs per call, median and fastest round, on a log axis.
 * @param {string[]} labels @param {CallCostRow[]} xs @param {[string, string]} colors
 */
function usChart(labels, xs, colors) {
  const series = both(
    xs,
    colors,
    (x) => usOf(x, 'median'),
    (x) => usOf(x, 'min'),
  );
  return { labels, series, unit: 'µs per call (log axis)', format: /** @type {const} */ ('µs'), log: true };
}

/** What keeping blame costs: the bare calls inside error scopes. @param {Charts} charts @param {CallCostRecord} r */
function scopeFigure(charts, r) {
  const rows = scopeStudy(r);
  if (rows.length === 0) return '';
  const xs = rows.map(({ row }) => row);
  return charts.figure(
    usChart(
      rows.map((x) => x.words),
      xs,
      ['#59a14f', '#8cd17d'],
    ),
    {
      title: `${r.id}: what keeping blame costs`,
      caption:
        "A split of a caller's buffer runs inside an error scope so that a GPU error lands on the call that caused " +
        'it. Here the bare calls run inside validation scopes, timed in the same rounds as the rest: a scope per ' +
        'call whose pop is not awaited (as such a split does once it has seen the buffer), one scope per batch of ' +
        'calls in a row, and a scope per call whose pop is awaited. Added: µs per call over the bare calls, fastest ' +
        'round over fastest round.',
      table: table(
        ['the bare calls inside', 'µs per call', 'added', 'fastest over fastest', 'per round, median [min–max]'],
        rows.map(({ row: x, words, addedUs }) => [
          words,
          range(x.us, ms),
          signed(addedUs),
          ratio(x.fastestOverBare),
          range(x.overBare, times),
        ]),
      ),
    },
  );
}

/** @param {Charts} charts @param {Pick<Report, 'callCosts'>} report (a page run's, or bench:node --calls') */
export function callsSection(charts, report) {
  if (report.callCosts.length === 0) return '';
  const intro =
    "A real model's splits are small: on a GPU such a split costs its JavaScript and its WebGPU calls, not its " +
    'bytes. Only ratios within one run mean much: the calls themselves move between runs.';
  const crashed = report.callCosts.flatMap((r) => [
    ...(r.crashed ? [`${r.id}: the page failed: ${r.crashed}`] : []),
    ...(r.gpuErrors ?? []).map((e) => `${r.id}: GPU error: ${e}`),
  ]);
  const figures = report.callCosts.map((r) => {
    const rows = callCostRows([r]).filter(({ row }) => row.fn !== 'scoped');
    return timeFigure(charts, r, rows) + overBareFigure(charts, r, rows) + scopeFigure(charts, r);
  });
  return `<h2>Per-call cost</h2>${para(intro, 'muted')}${figures.join('')}${notes(crashed, 'err')}`;
}
