// The HTML report's building blocks: escaped text, a table that scrolls inside its own box, a list of notes, and a
// figure (a chart, its caption, and the table under it that says the same in figures). Charts are collected as
// specs (charts.mjs draws them in the page); a chart with no figure to draw is left out, its table kept.

/** @import { ChartSpec, Series } from './charts.mjs' */
import { wrapLabel } from './charts.mjs';

/** @param {unknown} s */
export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${/** @type {string} */ (c).charCodeAt(0)};`);

/**
 * A table cell: text (escaped here), or text with a class ('num': right-aligned figures; 'err': a failure).
 * @typedef {string | { text: string, cls?: string }} Cell
 */

/**
 * A table in a box that scrolls sideways on a narrow screen, its first column held in place; columns from `num` on
 * hold figures (right-aligned).
 * @param {readonly string[]} head @param {readonly (readonly Cell[])[]} rows @param {number} [num]
 */
export function table(head, rows, num = 1) {
  const cell = (/** @type {string} */ tag, /** @type {Cell} */ c, /** @type {number} */ i) => {
    const { text, cls } = typeof c === 'string' ? { text: c, cls: undefined } : c;
    const classes = [i >= num ? 'num' : i === 0 ? 'id' : '', cls ?? ''].filter(Boolean).join(' ');
    return `<${tag}${classes ? ` class="${classes}"` : ''}>${esc(text)}</${tag}>`;
  };
  const row = (/** @type {string} */ tag, /** @type {readonly Cell[]} */ cells) =>
    `<tr>${cells.map((c, i) => cell(tag, c, i)).join('')}</tr>`;
  const body = rows.map((r) => row('td', r)).join('\n');
  return `<div class="scroll"><table><thead>${row('th', head)}</thead><tbody>\n${body}\n</tbody></table></div>`;
}

/**
 * Notes in full (errors, reasons), wrapped; each in the list's class or its own.
 * @param {readonly Cell[]} items @param {string} [cls]
 */
export function notes(items, cls = '') {
  const item = (/** @type {Cell} */ x) =>
    typeof x === 'string' ? `<li>${esc(x)}</li>` : `<li class="${x.cls ?? ''}">${esc(x.text)}</li>`;
  return items.length ? `<ul class="notes ${cls}">${items.map(item).join('')}</ul>` : '';
}

/** @param {string} text  a paragraph (escaped) @param {string} [cls] */
export const para = (text, cls = '') => `<p${cls ? ` class="${cls}"` : ''}>${esc(text)}</p>`;

/** The charts of one page, in order; each figure adds its own. */
export class Charts {
  /** @type {ChartSpec[]} */
  specs = [];

  /**
   * A figure: its title, the chart (when it has a bar to draw), a caption and the table that says the same.
   * @param {Omit<ChartSpec, 'id'>} spec @param {{ title: string, caption: string, table: string }} text
   */
  figure(spec, text) {
    const head = `<figure><h4>${esc(text.title)}</h4>`;
    const tail = `<figcaption>${esc(text.caption)}</figcaption>${text.table}</figure>`;
    if (!spec.series.some((s) => s.data.some((v) => v !== null && v > 0)))
      return `${head}<p class="muted">Nothing to chart: the table has what there is.</p>${tail}`;
    const id = `chart-${this.specs.length + 1}`;
    // A log axis has no 0: such a value has no bar (the table gives it).
    const positive = (/** @type {Series} */ x) => ({ ...x, data: x.data.map((v) => (v !== null && v > 0 ? v : null)) });
    this.specs.push({ id, ...spec, series: spec.log ? spec.series.map(positive) : spec.series });
    // Chart.js gives every category the same height: its bars', or the most lines a label takes on a phone
    // (wrapLabel), whichever is more.
    const lines = Math.max(1, ...spec.labels.map((l) => [wrapLabel(l)].flat().length));
    const row = Math.max(spec.series.length > 1 ? 15 * spec.series.length : 24, 16 * lines) + 8;
    const height = Math.max(140, 70 + spec.labels.length * row);
    const label = esc(`${text.title}: chart; the table below has the same figures`);
    return (
      `${head}<div class="chart" style="height:${height}px"><canvas id="${id}" role="img" aria-label="${label}">` +
      `</canvas></div>${tail}`
    );
  }
}

/**
 * A set of bars: no bar where a value is undefined.
 * @param {string} label @param {string} color @param {(number | undefined)[]} xs @returns {Series}
 */
export const series = (label, color, xs) => ({ label, color, data: xs.map((x) => (x === undefined ? null : x)) });
