// A campaign's one results file: several runs of bench:node (device-run.sh runs each step in a process of its own,
// under its own timeout) merged into one node results file that `npm run bench:report` renders. Each run's decode
// steps, cases, pipelines, decode loops and per-call records are kept as they were measured, in the order given;
// `parts` says which run each came from (ratios compare within a run only: every record's ratios are its own run's).
// An id met twice is kept the first time and said so. Files that cannot be read are named and left out.
//
//   node bench/node/merge.mjs OUT.json [NAME=]FILE...   (NAME: the part's name; default, the file's folder's)

import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHtml } from '../lib/report/html.mjs';
import { RESULTS_FORMAT, readResults } from '../lib/results-file.mjs';

/** @import { NodePart, NodeReport } from '../types.js' */

/**
 * Merges node results in order: the device, settings and peers of the first part with cases (else the first).
 * @param {readonly { name: string, report: NodeReport }[]} parts @returns {NodeReport}
 */
export function mergeReports(parts) {
  const first = parts[0];
  if (!first) throw new Error('nothing to merge');
  const lead = (parts.find((p) => p.report.cases.length) ?? first).report;
  const notes = [];
  const seen = new Set();
  /**
   * The items of a part not met in an earlier one.
   * @template T @param {readonly T[] | undefined} xs @param {(x: T) => string} idOf @param {string} part
   * @returns {T[]}
   */
  const fresh = (xs, idOf, part) =>
    (xs ?? []).filter((x) => {
      const id = idOf(x);
      if (!seen.has(id)) return seen.add(id);
      notes.push(`${id}: run again in ${part}; the first run's figures are kept`);
      return false;
    });
  const own = (/** @type {{ id: string }} */ x) => x.id;
  const adapters = new Set(parts.map((p) => JSON.stringify(p.report.adapter)));
  if (adapters.size > 1) notes.push(`the parts ran on ${adapters.size} different adapters: see each part's`);
  const callRuns = parts.filter((p) => p.report.callCosts?.length).length;
  const report = {
    ...lead,
    format: RESULTS_FORMAT,
    started: first.report.started,
    finished: (parts.at(-1) ?? first).report.finished,
    args: ['(merged)', ...parts.map((p) => p.name)],
    decodeSteps: parts.flatMap((p) => fresh(p.report.decodeSteps, own, p.name)),
    cases: parts.flatMap((p) => fresh(p.report.cases, (c) => c.case.id, p.name)),
    pipelines: parts.flatMap((p) => fresh(p.report.pipelines, own, p.name)),
    decodes: parts.flatMap((p) => fresh(p.report.decodes, own, p.name)),
    // The per-call section's runs are repeats on purpose: each kept, named by its part.
    callCosts: parts.flatMap((p) =>
      (p.report.callCosts ?? []).map((r) => (callRuns > 1 ? { ...r, id: `${r.id} (${p.name})` } : r)),
    ),
    notes: [...parts.flatMap((p) => (p.report.notes ?? []).map((n) => `${p.name}: ${n}`)), ...notes],
    parts: parts.map(({ name, report: r }) => partOf(name, r)),
  };
  return /** @type {NodeReport} */ (report);
}

/** @param {string} name @param {NodeReport} r @returns {NodePart} */
const partOf = (name, r) => ({
  name,
  args: r.args,
  started: r.started,
  finished: r.finished,
  settings: r.settings,
  cases: r.cases.length,
  pipelines: r.pipelines?.length ?? 0,
  decodes: r.decodes?.length ?? 0,
  callCosts: r.callCosts?.length ?? 0,
  decodeSteps: r.decodeSteps?.length ?? 0,
});

async function main() {
  const [out, ...args] = process.argv.slice(2);
  if (!out || args.length === 0) {
    console.error('usage: node bench/node/merge.mjs OUT.json [NAME=]FILE...');
    process.exit(2);
  }
  /** @type {{ name: string, report: NodeReport }[]} */
  const parts = [];
  for (const arg of args) {
    const [name, file] = arg.includes('=') ? arg.split(/=(.*)/s) : [basename(dirname(resolve(arg))), arg];
    try {
      const r = await readResults(/** @type {string} */ (file));
      if (r.kind !== 'node') throw new Error('not a bench:node results file');
      parts.push({ name: /** @type {string} */ (name), report: r.report });
    } catch (e) {
      console.log(`merge: ${file}: left out (${e instanceof Error ? e.message : e})`);
    }
  }
  if (parts.length === 0) {
    console.log('merge: no results file to merge');
    process.exit(1);
  }
  const report = mergeReports(parts);
  await mkdir(dirname(resolve(out)), { recursive: true });
  await writeFile(out, JSON.stringify(report, null, 1));
  const html = out.replace(/(\.json)?$/i, '.html');
  await writeHtml({ kind: 'node', report }, html).then(
    () => console.log(`merge: ${parts.length} runs into ${out} and ${html}`),
    (e) =>
      console.log(`merge: ${out}; no HTML (${e instanceof Error ? e.message : e}): npm run bench:report -- ${out}`),
  );
}

// Run as a command (the planner tier imports mergeReports alone).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
