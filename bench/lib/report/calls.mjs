// The per-call section as text: each variant's µs per call against the bare calls (the median of the per-round
// ratios, and the fastest round over the bare calls' fastest round), what keeping blame costs (the bare calls
// inside error scopes), the finding in words, and the progress line of a per-call item.

import { callCostRows, scopeStudy } from '../findings.mjs';
import { ms, planText, signed, table, times } from './format.mjs';

/** @import { CallCostRecord, CallCostResult, CallCostRow, Report } from '../../types.js' */

/** µs per call, or why there is none. @param {CallCostRow} x @param {number | undefined} us */
const usText = (x, us) => (x.skip ? 'n/a' : x.error ? 'ERR' : ms(us));

/** @param {CallCostRow} x */
const roundsRange = (x) => (x.overBare ? `${times(x.overBare.min)}-${times(x.overBare.max)}` : '-');

/** The rows that were not run, a line per reason. @param {readonly CallCostRecord[]} records */
function skipNotes(records) {
  /** @type {Map<string, string[]>} */
  const by = new Map();
  for (const x of records.flatMap((r) => r.rows)) if (x.skip) by.set(x.skip, [...(by.get(x.skip) ?? []), x.variant]);
  return [...by].map(([why, ids]) => `n/a: ${ids.join(', ')}: ${why}.`);
}

/**
 * Each variant but the scoped bare calls, against the bare calls (a page run's, or bench:node --calls').
 * @param {Pick<Report, 'callCosts' | 'settings'>} report
 */
export function renderCallCosts(report) {
  const all = callCostRows(report.callCosts).filter(({ row }) => row.fn !== 'scoped');
  if (all.length === 0) return '';
  const many = report.callCosts.length > 1;
  const rows = all.map(({ id, row: x, scopes }) => [
    many ? `${id}: ${x.label}` : x.label,
    x.fn === 'bare' ? '-' : planText(x.stats),
    scopes,
    usText(x, x.us?.median),
    usText(x, x.us?.min),
    x.overBare ? times(x.overBare.median) : '-',
    roundsRange(x),
    times(x.fastestOverBare),
    String(x.calls),
  ]);
  const n = report.callCosts[0]?.spec?.callsInARow;
  const bare = all.find((x) => x.row.fn === 'bare');
  const head = ['variant', 'plan', 'scopes', 'µs median', 'fastest', '/ bare', 'min-max', 'fastest / fastest', 'calls'];
  return [
    `Per-call cost of ${report.callCosts.map((r) => r.id).join(', ')}: µs per call over ` +
      `${report.settings.callRounds} rounds, median and fastest round.\nEach round calls every variant ` +
      `${n ?? 'N'} times in a row, timed as a ` +
      'whole (the calls and the release of their\noutputs; the GPU drained off the clock), the variants in an ' +
      "order shuffled each round. / bare: each round's\nµs over the bare calls' µs in the same round, median " +
      "(min-max) over the rounds. fastest / fastest: the variant's\nfastest round over the bare calls' fastest " +
      `round. The bare calls: ${ms(bare?.bareUs)} µs median, ${ms(bare?.bareFastestUs)} µs fastest.\n` +
      'scopes (--probes): error scopes pushed, and awaited.\n',
    table([head, ...rows]),
    ...skipNotes(report.callCosts),
  ].join('\n');
}

/** What keeping blame costs: the bare calls inside error scopes. @param {Pick<Report, 'callCosts'>} report */
export function renderScopeStudy(report) {
  const rows = report.callCosts.flatMap((r) =>
    scopeStudy(r).map(({ row: x, words, addedUs }) => [
      report.callCosts.length > 1 ? `${r.id}: ${words}` : words,
      x.variant,
      usText(x, x.us?.median),
      usText(x, x.us?.min),
      signed(addedUs),
      times(x.fastestOverBare),
      x.overBare ? times(x.overBare.median) : '-',
      roundsRange(x),
    ]),
  );
  if (rows.length === 0) return '';
  const head = [
    'the bare calls inside',
    'variant',
    'µs median',
    'fastest',
    '+µs',
    'fastest / fastest',
    '/ bare',
    'min-max',
  ];
  return (
    'What keeping blame costs: the bare calls inside error scopes, timed in the same rounds. +µs: what the scope ' +
    "adds\nper call, fastest round over the bare calls' fastest round.\n\n" +
    table([head, ...rows])
  );
}

/** The scope study in one line per record, fastest rounds. @param {Pick<Report, 'callCosts'>} report */
export function scopeFindings(report) {
  return report.callCosts.flatMap((r) => {
    const [bare, ...scoped] = scopeStudy(r);
    if (!bare || scoped.length === 0) return [];
    const each = scoped.map(({ row: x, words, addedUs }) =>
      addedUs === undefined ? `${words}: no figure` : `${words} ${signed(addedUs)} µs (${times(x.fastestOverBare)})`,
    );
    return [
      `What blame costs (${r.id}, fastest rounds): the bare calls take ${ms(bare.row.us?.min)} µs per call; ` +
        `${each.join('; ')}.`,
    ];
  });
}

/** A per-call item's progress line. @param {CallCostResult} r */
export function callCostLine(r) {
  const bare = r.rows.find((x) => x.fn === 'bare');
  const rows = r.rows
    .filter((x) => x !== bare)
    .map((x) => {
      const figures = `${ms(x.us?.median)} µs ${times(x.overBare?.median)}, fastest ${times(x.fastestOverBare)}`;
      return `${x.variant} ${x.skip ? 'n/a' : x.error ? 'ERR' : figures}`;
    });
  const head = `bare ${bare?.error ? 'ERR' : `${ms(bare?.us?.median)} µs, fastest ${ms(bare?.us?.min)}`}`;
  return `${r.id.padEnd(30)} ${ms(r.seconds)} s  ${head}; ${rows.join('; ')}`;
}
