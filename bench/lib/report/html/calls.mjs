// Per-call cost in the HTML report: µs of JavaScript per call of each variant (split, encodeSplit, and the bare
// WebGPU calls the same copies need, where the run timed them), and each variant over the bare calls of the same
// round. Files written before variants were named or the bare calls timed render with what they have.

import { callCostRows } from '../../findings.mjs';
import { ms, near1, planText } from '../format.mjs';
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

/** @typedef {ReturnType<typeof callCostRows>} Rows */

/** µs per call of each variant, the table of every figure. @param {Charts} charts @param {CallCostRecord} record
 * @param {Rows} rows */
function timeFigure(charts, record, rows) {
  const labels = rows.map(({ row, input }) => variantLabel(row, input));
  const body = rows.map(({ row: x, scopes }, i) => [
    labels[i] ?? '',
    planText(x.stats),
    scopes,
    range(x.us, ms),
    range(x.overBare, near1),
    String(x.calls),
    /** @type {Cell} */ (x.error ? { text: 'failed', cls: 'err' } : 'verified'),
  ]);
  const head = ['variant', 'plan', 'error scopes', 'µs per call', 'over the bare calls', 'calls', 'state'];
  const { dtype, shape, axis, parts } = record.spec;
  const median = rows.map(({ row: x }) => (x.error ? undefined : x.us?.median));
  const errors = rows.flatMap(({ row: x }, i) => (x.error ? [`${labels[i]}: ${x.error}`] : []));
  return charts.figure(
    {
      labels,
      series: [series('µs per call', '#4e79a7', median)],
      unit: 'µs per call, median over rounds (log axis)',
      format: 'µs',
      log: true,
    },
    {
      title: `${record.id}: µs per call (${dtype} [${shape.join(', ')}] axis ${axis} into ${parts})`,
      caption:
        'Each variant called 100 times in a row and timed as a whole, the GPU drained off the clock. split: the ' +
        'call, awaited, its outputs released; encodeSplit: with its encoder, finish and submit; bare: the same ' +
        'copies as plain WebGPU calls (one encoder, a copyBufferToBuffer per copy, one submit). The table gives ' +
        'each median ' +
        'with its range over rounds.',
      table: table(head, body, 3) + notes(errors, 'err'),
    },
  );
}

/** Each variant over the bare calls of its round, where the run timed them. @param {Charts} charts
 * @param {CallCostRecord} record @param {Rows} rows */
function overBareFigure(charts, record, rows) {
  const over = rows.filter(({ row: x }) => x.fn !== 'bare' && x.overBare && !x.error);
  if (over.length === 0) return '';
  const labels = over.map(({ row, input }) => variantLabel(row, input));
  return charts.figure(
    {
      labels,
      series: [
        series(
          'over the bare calls',
          '#e15759',
          over.map(({ row: x }) => x.overBare?.median),
        ),
      ],
      unit: 'µs per call / the bare calls’ (1 = as cheap)',
      format: 'x',
      log: false,
    },
    {
      title: `${record.id}: each variant over the bare calls`,
      caption: 'Each round times every variant and the bare calls in turn; this is the median of the per-round ratios.',
      table: table(
        ['variant', 'over the bare calls [min–max]'],
        over.map(({ row: x }, i) => [labels[i] ?? '', range(x.overBare, near1)]),
      ),
    },
  );
}

/** @param {Charts} charts @param {Report} report */
export function callsSection(charts, report) {
  if (report.callCosts.length === 0) return '';
  const intro =
    "A real model's splits are small: on a GPU such a split costs its JavaScript and its WebGPU calls, not its " +
    'bytes. Only ratios within one round mean much: the calls themselves move between runs.';
  const crashed = report.callCosts.flatMap((r) => [
    ...(r.crashed ? [`${r.id}: the page failed: ${r.crashed}`] : []),
    ...(r.gpuErrors ?? []).map((e) => `${r.id}: GPU error: ${e}`),
  ]);
  const figures = report.callCosts.map((r) => {
    const rows = callCostRows([r]);
    return timeFigure(charts, r, rows) + overBareFigure(charts, r, rows);
  });
  return `<h2>Per-call cost</h2>${para(intro, 'muted')}${figures.join('')}${notes(crashed, 'err')}`;
}
