// Figures across cases, for both commands: Cleave's default plan beside each strategy forced (an engine of its own
// each, timed in turn with the others), and every system's GB/s.

import { gbps as gbpsText, ms, planText, times } from '../format.mjs';
import { medianOf, ratiosOf } from '../../ratios.mjs';
import { WALL, gbpsOf, statusOf } from './cases.mjs';
import { series, table } from './markup.mjs';

/** @import { SystemResult } from '../../../types.js' */
/** @import { Cell, Charts } from './markup.mjs' */
/** @import { CaseView, SystemDef } from './cases.mjs' */

const STRATEGIES = [
  { name: 'alias forced', color: '#59a14f' },
  { name: 'copy forced', color: '#e15759' },
  { name: 'gather forced', color: '#b07aa1' },
];

/**
 * A case of the default-plan figure: its systems, the default's key and the forced strategies' keys (alias, copy,
 * gather, in that order).
 * @typedef {object} PlanCase
 * @property {string} id
 * @property {Partial<Record<string, SystemResult>>} systems
 * @property {string} own
 * @property {readonly string[]} forced
 */

/** Median wall ms (GPU ms), or the system's state. @param {SystemResult | undefined} s @returns {Cell} */
const both = (s) => {
  const { word, cls } = statusOf(s);
  if (!s?.ok) return { text: word, cls };
  const [w, g] = [medianOf(s, 'wall'), medianOf(s, 'gpu')];
  return g === undefined ? ms(w) : `${ms(w)} (${ms(g)})`;
};

/** Cleave's default plan beside each strategy forced. @param {Charts} charts @param {readonly PlanCase[]} cases */
export function plansFigure(charts, cases) {
  const rows = cases.map((c) => {
    const q = ratiosOf(c.systems, c.own, c.forced);
    const best = `${times(q.wall.bestForced)} (${times(q.gpu.bestForced)}) ${q.wall.bestForcedStrategy ?? ''}`;
    return [
      c.id,
      planText(c.systems[c.own]?.stats),
      both(c.systems[c.own]),
      ...c.forced.map((k) => both(c.systems[k])),
      best.trim(),
    ];
  });
  const wall = (/** @type {(c: PlanCase) => string} */ key) => cases.map((c) => medianOf(c.systems[key(c)], 'wall'));
  const forced = STRATEGIES.map((s, i) =>
    series(
      s.name,
      s.color,
      wall((c) => c.forced[i] ?? ''),
    ),
  );
  const head = [
    'case',
    'plan',
    'default ms',
    ...STRATEGIES.map((s) => `${s.name.split(' ')[0]} ms`),
    'default / fastest forced',
  ];
  return charts.figure(
    {
      labels: cases.map((c) => c.id),
      series: [
        series(
          'default plan',
          WALL,
          wall((c) => c.own),
        ),
        ...forced,
      ],
      unit: 'median wall ms per split (log axis)',
      format: 'ms',
      log: true,
    },
    {
      title: "Cleave's default plan beside each strategy forced",
      caption:
        'Median wall ms per split; the table adds GPU time in parentheses and the default over the fastest strategy ' +
        'forced (wall, GPU). n/a: the plan cannot take that strategy.',
      table: table(head, rows, 2),
    },
  );
}

/**
 * Every system's GB/s per case (no bar for views: no bytes moved).
 * @param {Charts} charts @param {readonly CaseView[]} cases @param {readonly SystemDef[]} defs @param {string} rule
 */
export function gbpsFigure(charts, cases, defs, rule) {
  const shown = defs.filter((d) => cases.some((c) => c.systems[d.key]));
  const cell = (/** @type {CaseView} */ c, /** @type {SystemResult | undefined} */ s) => {
    const g = gbpsOf(c.moved, s);
    if (g !== undefined) return gbpsText(g);
    if (s?.ok) return s.stats?.strategy === 'alias' ? 'views' : '-';
    const { word, cls } = statusOf(s);
    return { text: word, cls };
  };
  return charts.figure(
    {
      labels: cases.map((c) => c.id),
      series: shown.map((d) =>
        series(
          d.name,
          d.color,
          cases.map((c) => gbpsOf(c.moved, c.systems[d.key])),
        ),
      ),
      unit: 'GB/s, wall (log axis)',
      format: 'GB/s',
      log: true,
    },
    {
      title: 'Throughput (GB/s)',
      caption: `${rule} No bar: views (no bytes moved), n/a, failed or not run (the table says which).`,
      table: table(
        ['case', ...shown.map((d) => d.name)],
        cases.map((c) => [c.id, ...shown.map((d) => cell(c, c.systems[d.key]))]),
      ),
    },
  );
}
