// What `--probes` counted in the HTML report: per split (one split of each system in each case, and one call of
// each per-call variant), its GPU commands, the bytes its copies moved and the buffers it created. These counts
// do not depend on the adapter: they carry over from SwiftShader to any GPU.

import { callCostRows } from '../../findings.mjs';
import { bytesText } from '../format.mjs';
import { variantLabel } from './calls.mjs';
import { para, series, table } from './markup.mjs';

/** @import { CallCounts, Report } from '../../../types.js' */
/** @import { Charts } from './markup.mjs' */
/** @import { SystemDef } from './cases.mjs' */

/** GPU commands: copy commands and dispatches. @param {CallCounts} c */
const commands = (c) => c.copies + c.dispatches;

/** @param {CallCounts} c @returns {string[]} */
const countCells = (c) => [
  String(commands(c)),
  String(c.copies),
  String(c.dispatches),
  c.bytesCopied === undefined ? '-' : bytesText(c.bytesCopied),
  String(c.buffersCreated),
  String(c.submits),
  String(c.bindGroups),
  String(c.writeBuffers),
  String(c.mapAsyncs),
  String(c.errorScopes),
];
const HEAD = [
  'commands',
  'copies',
  'dispatches',
  'bytes copied',
  'buffers created',
  'submits',
  'bind groups',
  'writes',
  'maps',
  'error scopes',
];

const METRICS = /** @type {const} */ ([
  { title: 'GPU commands per split', unit: 'commands (log axis)', format: 'count', of: commands },
  {
    title: 'Bytes copied per split',
    unit: 'bytes (log axis)',
    format: 'bytes',
    of: (/** @type {CallCounts} */ c) => c.bytesCopied,
  },
  {
    title: 'Buffers created per split',
    unit: 'buffers (log axis)',
    format: 'count',
    of: (/** @type {CallCounts} */ c) => c.buffersCreated,
  },
]);

/**
 * The systems of the page run: those charted (GPU-resident), and every system's name for the table.
 * @typedef {{ resident: readonly SystemDef[], nameOf: (key: string) => string }} ProbeSystems
 */

/**
 * The counts of each case's splits: a chart per count over the GPU-resident systems with its table, then every count
 * of every system in one table, folded away.
 * @param {Charts} charts @param {Report} report @param {ProbeSystems} systems
 */
function caseCounts(charts, report, { resident, nameOf }) {
  const cases = report.results.filter((r) => Object.values(r.systems).some((s) => s?.calls));
  if (cases.length === 0) return '';
  const callsOf = (/** @type {(typeof cases)[number]} */ r, /** @type {string} */ key) =>
    r.systems[/** @type {keyof typeof r.systems} */ (key)]?.calls;
  const shown = resident.filter((d) => cases.some((r) => callsOf(r, d.key)));
  // Files written before bytes were counted have none: that chart goes, the full table says '-'.
  const counted = cases.flatMap((r) => Object.values(r.systems).flatMap((s) => s?.calls ?? []));
  const figures = METRICS.filter((m) => counted.some((c) => m.of(c) !== undefined)).map((m) => {
    const value = (/** @type {(typeof cases)[number]} */ r, /** @type {string} */ key) => {
      const c = callsOf(r, key);
      return c ? m.of(c) : undefined;
    };
    const cell = (/** @type {number | undefined} */ v) =>
      v === undefined ? '-' : m.format === 'bytes' ? bytesText(v) : String(v);
    return charts.figure(
      {
        labels: cases.map((r) => r.case.id),
        series: shown.map((d) =>
          series(
            d.name,
            d.color,
            cases.map((r) => value(r, d.key)),
          ),
        ),
        unit: m.unit,
        format: m.format,
        log: true,
      },
      {
        title: m.title,
        caption: 'GPU-resident systems, one split after warm-up; a count of 0 has no bar on a log axis.',
        table: table(
          ['case', ...shown.map((d) => d.name)],
          cases.map((r) => [r.case.id, ...shown.map((d) => cell(value(r, d.key)))]),
        ),
      },
    );
  });
  const rows = cases.flatMap((r) =>
    Object.entries(r.systems).flatMap(([key, s]) =>
      s?.calls ? [[r.case.id, nameOf(key), ...countCells(s.calls)]] : [],
    ),
  );
  const all = table(['case', 'system', ...HEAD], rows, 2);
  return `${figures.join('')}<details><summary>Every count of every system</summary>${all}</details>`;
}

/** The counts of one call of each per-call variant. @param {Charts} charts @param {Report} report */
function callCounts(charts, report) {
  const rows = callCostRows(report.callCosts).filter(({ row }) => row.gpuCalls);
  if (rows.length === 0) return '';
  const labels = rows.map(({ row, input }) => variantLabel(row, input));
  const counts = rows.map(({ row }) => /** @type {CallCounts} */ (row.gpuCalls));
  return charts.figure(
    {
      labels,
      series: [
        series('commands', '#4e79a7', counts.map(commands)),
        series(
          'buffers created',
          '#e15759',
          counts.map((c) => c.buffersCreated),
        ),
        series(
          'error scopes',
          '#76b7b2',
          counts.map((c) => c.errorScopes),
        ),
      ],
      unit: 'per call (log axis)',
      format: 'count',
      log: true,
    },
    {
      title: 'GPU calls of one call of each per-call variant',
      caption: 'Counted on one call after warm-up; a count of 0 has no bar on a log axis.',
      table: table(
        ['variant', ...HEAD],
        rows.map((_, i) => [labels[i] ?? '', ...countCells(/** @type {CallCounts} */ (counts[i]))]),
      ),
    },
  );
}

/** @param {Charts} charts @param {Report} report @param {ProbeSystems} systems */
export function probesSection(charts, report, systems) {
  const body = caseCounts(charts, report, systems) + callCounts(charts, report);
  if (!body) return '';
  const intro =
    'Counted with --probes in one steady-state split. Unlike the times, these counts do not depend on the adapter: ' +
    'the commands, bytes copied and buffers created carry over from SwiftShader to any GPU. Commands: copy commands ' +
    'plus dispatches.';
  return `<h2>GPU calls per split</h2>${para(intro, 'muted')}${body}`;
}
