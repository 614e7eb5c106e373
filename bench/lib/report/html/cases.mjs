// Split cases in the HTML report, for both commands: per case, every system's median time over the copy limit's
// (wall and GPU time, log axis) with its table; Cleave's default plan beside each strategy forced; GB/s. A system
// that failed, could not run (n/a) or was not run has no bar and says so in the table, its reason in full below.

import { ms, planText, times } from '../format.mjs';
import { medianOf, ratioOf } from '../../ratios.mjs';
import { notes, series, table } from './markup.mjs';

/** @import { SystemResult } from '../../../types.js' */
/** @import { Cell, Charts } from './markup.mjs' */

/** @typedef {{ key: string, name: string, color: string }} SystemDef */

/**
 * A case as the figures read it.
 * @typedef {object} CaseView
 * @property {string} id
 * @property {string} about  the split in words
 * @property {Partial<Record<string, SystemResult>>} systems
 * @property {readonly SystemDef[]} defs  the systems shown, in order
 * @property {number} moved  bytes a split moves as GB/s counts them
 * @property {string[]} problems  what went wrong beside the systems (the page failed, GPU errors)
 */

export const WALL = '#4e79a7';
export const GPU = '#f28e2b';

/** A system's state in a word, and why in full where it did not run clean. @param {SystemResult | undefined} s */
export function statusOf(s) {
  if (!s) return { word: 'not run', cls: 'muted', why: undefined };
  if (s.skip) return { word: 'n/a', cls: 'muted', why: `n/a: ${s.skip.replace(/^n\/a: /, '')}` };
  if (!s.ok) return { word: 'failed', cls: 'err', why: `failed: ${s.error ?? 'no reason given'}` };
  if (s.fallback === 'cpu')
    return { word: 'ran on its CPU path', cls: 'warn', why: `ran on its CPU path: ${s.webgpuError}` };
  if (s.fallback)
    return {
      word: 'ran on ORT CPU EP',
      cls: 'warn',
      why: `ran on ORT's CPU EP; its WebGPU EP refused: ${s.webgpuError}`,
    };
  return { word: s.verified ? 'verified' : 'ran', cls: '', why: undefined };
}

/**
 * Why a system did not run clean, in full, as a note in its state's class; nothing where it did.
 * @param {string} name @param {SystemResult | undefined} s @returns {Cell[]}
 */
export function reasonOf(name, s) {
  const { why, cls } = statusOf(s);
  return why ? [{ text: `${name}: ${why}`, cls }] : [];
}

/** A median with its range, or the system's state where it has none. @param {SystemResult | undefined} s
 * @param {'wall' | 'gpu'} clock @returns {Cell} */
export function timeCell(s, clock) {
  const st = statusOf(s);
  if (!s?.ok) return { text: st.word, cls: st.cls };
  const t = s[clock];
  if (!t) return '-';
  if (clock === 'gpu' && t.max === 0) return '0: no GPU work';
  return t.n > 1 ? `${ms(t.median)} [${ms(t.min)}–${ms(t.max)}]` : ms(t.median);
}

/**
 * GB/s on the wall clock; none for views (no bytes moved).
 * @param {number} moved @param {SystemResult | undefined} s
 */
export function gbpsOf(moved, s) {
  const m = medianOf(s, 'wall');
  return m === undefined || m <= 0 || s?.stats?.strategy === 'alias' ? undefined : moved / (m * 1e6);
}

/** @param {string} name @param {SystemResult | undefined} s */
const labelOf = (name, s) => {
  const { word } = statusOf(s);
  return s?.ok ? (s.fallback ? `${name} (${s.fallback === 'cpu' ? 'CPU' : 'CPU EP'})` : name) : `${name} (${word})`;
};

/** A case's figure: each system over the copy limit. @param {Charts} charts @param {CaseView} v */
export function caseFigure(charts, v) {
  const shown = v.defs.filter((d) => v.systems[d.key]);
  const copy = v.systems['copy-limit'];
  const over = (/** @type {SystemResult | undefined} */ s, /** @type {'wall' | 'gpu'} */ c) =>
    ratioOf(medianOf(s, c), medianOf(copy, c));
  const gbps = (/** @type {SystemResult | undefined} */ s) => {
    const g = gbpsOf(v.moved, s);
    return g === undefined ? (s?.stats?.strategy === 'alias' ? 'views' : '-') : g.toPrecision(3);
  };
  const rows = shown.map((d) => {
    const s = v.systems[d.key];
    const { word, cls } = statusOf(s);
    return [
      d.name,
      timeCell(s, 'wall'),
      timeCell(s, 'gpu'),
      times(over(s, 'wall')),
      times(over(s, 'gpu')),
      gbps(s),
      planText(s?.stats),
      { text: word, cls },
    ];
  });
  const head = ['system', 'wall ms [min–max]', 'GPU ms [min–max]', 'wall / copy limit', 'GPU / copy limit', 'GB/s'];
  const why = shown.flatMap((d) => reasonOf(d.name, v.systems[d.key]));
  const noCopy = medianOf(copy, 'wall') === undefined ? ' The copy limit has no time here: no ratios.' : '';
  return charts.figure(
    {
      labels: shown.map((d) => labelOf(d.name, v.systems[d.key])),
      series: [
        series(
          'wall',
          WALL,
          shown.map((d) => over(v.systems[d.key], 'wall')),
        ),
        series(
          'GPU time',
          GPU,
          shown.map((d) => over(v.systems[d.key], 'gpu')),
        ),
      ],
      unit: 'median time / copy limit (log axis)',
      format: 'x',
      log: true,
    },
    {
      title: `${v.id}: ${v.about}`,
      caption:
        `Median time over the copy limit's (one copyBufferToBuffer of the same bytes: 1x), wall and GPU ` +
        `time. No bar: no figure (the table says why).${noCopy}`,
      table:
        table([...head, 'plan', 'state'], rows) + notes([...why, ...v.problems.map((text) => ({ text, cls: 'err' }))]),
    },
  );
}
