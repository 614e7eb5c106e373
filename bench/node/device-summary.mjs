// The summary lines of device-run.sh, from bench:node's results files: a per-call run (--calls) gives its
// adapter and, per variant, its fastest round over the bare calls' fastest (a view split: its µs); several such
// runs add the median over the runs, the statistic the per-call targets hold for. A run of the cases, pipelines
// and decode loops gives summary-lines.mjs's lines, each led by the step's name. Reads JSON, no GPU.
//
//   node bench/node/device-summary.mjs calls FILE...
//   node bench/node/device-summary.mjs run NAME FILE

import { readFileSync } from 'node:fs';
import { adapterOf, median, runLines } from './summary-lines.mjs';

/** @import { CallCostRow, NodeReport } from '../types.js' */

/** The variants of the summary line, in the issue's order: [variant, short name]. */
const KEY_VARIANTS = [
  ['prepared-encode-into', 'prepared encode'],
  ['prepared-split-copies', 'prepared split'],
  ['prepared-split-caller-seen', 'prepared split, caller seen'],
  ['split-upload-copies', 'split'],
  ['split-caller-seen', 'split, caller seen'],
  ['encode-upload', 'encodeSplit'],
  ['split-upload-views', 'views'],
];

/** @param {number | undefined} v */
const x = (v) => (v === undefined || !Number.isFinite(v) ? '-' : `${v.toFixed(2)}x`);
/** @param {number | undefined} v */
const us = (v) => (v === undefined || !Number.isFinite(v) ? '-' : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} µs`);

/** @param {string} file @returns {NodeReport} */
const read = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** A row's figure: views by their µs, the rest fastest over fastest. @param {CallCostRow | undefined} row */
function figure(row) {
  if (!row) return undefined;
  if (row.skip || row.error) return undefined;
  return row.variant === 'split-upload-views' ? row.us?.min : row.fastestOverBare;
}

/** @param {CallCostRow | undefined} row @param {number | undefined} v */
const shown = (row, v) =>
  row?.skip ? 'n/a' : row?.error ? 'ERR' : row?.variant === 'split-upload-views' ? us(v) : x(v);

/** @param {readonly string[]} files */
function calls(files) {
  /** Each adapter's runs: figures by variant (runs on another adapter are never pooled). */
  /** @type {Map<string, { runs: number, figures: Map<string, number[]> }>} */
  const by = new Map();
  files.forEach((file, i) => {
    const r = read(file);
    const adapter = adapterOf(r);
    const group = by.get(adapter) ?? { runs: 0, figures: new Map() };
    by.set(adapter, group);
    group.runs++;
    const all = group.figures;
    for (const rec of r.callCosts ?? []) {
      const rows = new Map(rec.rows.map((row) => [row.variant, row]));
      const bare = rows.get('bare');
      const parts = KEY_VARIANTS.map(([id, name]) => {
        const row = rows.get(id);
        const v = figure(row);
        if (v !== undefined) all.set(id, [...(all.get(id) ?? []), v]);
        return `${name} ${shown(row, v)}`;
      });
      const errors = rec.rows.filter((row) => row.error).length + (rec.gpuErrors?.length ?? 0);
      console.log(
        `per-call run ${i + 1}: ${adapter}; bare calls ${us(bare?.us?.min)} fastest, ${us(bare?.us?.median)} ` +
          `median; fastest / bare fastest: ${parts.join(', ')}${errors ? `; ${errors} ERRORS` : ''}`,
      );
    }
  });
  for (const [adapter, { runs, figures }] of by) {
    if (runs < 2) continue;
    const parts = KEY_VARIANTS.map(([id, name]) => {
      const v = median(figures.get(id) ?? []);
      return `${name} ${id === 'split-upload-views' ? us(v) : x(v)}`;
    });
    const on = by.size > 1 ? ` on ${adapter}` : '';
    console.log(`per-call, median over ${runs} runs${on} of the fastest-round ratios: ${parts.join(', ')}`);
  }
}

const [kind, ...files] = process.argv.slice(2);
try {
  if (kind === 'calls' && files.length) calls(files);
  else if (kind === 'run' && files.length === 2) {
    const [name, file] = /** @type {[string, string]} */ (files);
    for (const line of runLines(name, read(file))) console.log(line);
  } else {
    console.error('usage: node bench/node/device-summary.mjs calls FILE... | run NAME FILE');
    process.exitCode = 2;
  }
} catch (e) {
  console.log(`no summary: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
}
