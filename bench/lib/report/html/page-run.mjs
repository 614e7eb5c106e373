// `npm run bench`'s results as an HTML page: the header, what the run shows in words, the cases where Cleave does
// GPU work (the headline), the cases where its outputs are views and the cold starts, each apart, then pipelines and
// decode loops, per-call cost, the GPU calls counted per split (--probes), and whatever went wrong.

import { FORCED } from '../../findings.mjs';
import { SYSTEMS, bytesText, shortShape } from '../format.mjs';
import { findingLines } from '../text.mjs';
import { callsSection } from './calls.mjs';
import { caseFigure } from './cases.mjs';
import { deviceDetails, pageHeader } from './header.mjs';
import { Charts, esc, notes, para } from './markup.mjs';
import { pipelinesSection } from './pipelines.mjs';
import { gbpsFigure, plansFigure } from './plans.mjs';
import { probesSection } from './probes.mjs';

/** @import { CaseRecord, Report } from '../../../types.js' */
/** @import { CaseView, SystemDef } from './cases.mjs' */

/** @type {Readonly<Record<string, string>>} */
const COLORS = {
  'cleave-gpu': '#1f6feb',
  'cleave-gpu-separate': '#0a3069',
  'cleave-host': '#79c0ff',
  'ort-gpu': '#f28e2b',
  'ort-host': '#ffbe7d',
  'tfjs-gpu': '#59a14f',
  'copy-limit': '#6e7781',
  'shader-limit': '#24292f',
  'cleave-cpu': '#b07aa1',
};

/** @type {readonly SystemDef[]} */
const DEFS = SYSTEMS.map((s) => ({ key: s.key, name: s.short, color: COLORS[s.key] ?? '#999' }));
const RESIDENT = DEFS.filter((d) =>
  ['cleave-gpu', 'cleave-gpu-separate', 'ort-gpu', 'tfjs-gpu', 'copy-limit', 'shader-limit'].includes(d.key),
);
/** A system's name: 'cleave-gpu-copy' is Cleave GPU with copy forced. @param {string} key */
const nameOf = (key) =>
  DEFS.find((d) => d.key === key)?.name ?? key.replace(/^cleave-gpu-(\w+)$/, 'Cleave GPU, $1 forced');

/** @param {CaseRecord} r @returns {CaseView} */
const viewOf = (r) => ({
  id: r.case.id,
  about: `${shortShape(r.case)}, ${bytesText(r.case.bytes)}${r.case.strategy ? `, ${r.case.strategy} forced` : ''}`,
  systems: r.systems,
  defs: DEFS,
  moved: r.case.bytes,
  problems: [
    ...(r.cpuPathError ? [`Cleave's CPU path: ${r.cpuPathError}`] : []),
    ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`),
  ],
});

/** The page's cases in their groups. @param {Report} report */
function groups(report) {
  const ran = report.results.filter((r) => !r.crashed);
  const views = (/** @type {CaseRecord} */ r) => r.systems['cleave-gpu']?.stats?.strategy === 'alias';
  return {
    headline: ran.filter((r) => !r.case.cold && !views(r)),
    views: ran.filter((r) => !r.case.cold && views(r)),
    cold: ran.filter((r) => r.case.cold),
  };
}

/** @param {Charts} charts @param {readonly CaseRecord[]} cases */
const perCase = (charts, cases) => cases.map((r) => caseFigure(charts, viewOf(r))).join('\n');

/** The default plan and its forced strategies, where the planner chose. @param {readonly CaseRecord[]} cases */
const planCases = (cases) =>
  cases
    .filter((r) => !r.case.strategy)
    .map((r) => ({ id: r.case.id, systems: r.systems, own: 'cleave-gpu', forced: FORCED }));

const GBPS_RULE = "GB/s: the tensor's bytes (each delivered once into an output) per median wall second, 10^9 bytes.";

/** @param {Charts} charts @param {Report} report */
function caseSections(charts, report) {
  const g = groups(report);
  const out = [];
  if (g.headline.length)
    out.push(
      '<h2>Where Cleave does GPU work</h2>',
      para(
        'All systems in one page on one GPUDevice, every output checked byte for byte before timing; medians ' +
          'over interleaved batches. Wall: ms per split, a batch of splits then one onSubmittedWorkDone. GPU time: ' +
          'timestamp queries around each command buffer (TF.js: wall time only).',
        'muted',
      ),
      plansFigure(charts, planCases(g.headline)),
      gbpsFigure(charts, g.headline.map(viewOf), DEFS, GBPS_RULE),
      '<h3>Per case</h3>',
      perCase(charts, g.headline),
    );
  if (g.views.length)
    out.push(
      "<h2>Where Cleave's outputs are views</h2>",
      para(
        "Here Cleave's outputs are views of the input: nothing is copied and nothing submitted (GPU time 0). " +
          'These cases show what a call costs, not how fast a GPU copies, and stay out of the headline.',
        'muted',
      ),
      plansFigure(charts, planCases(g.views)),
      perCase(charts, g.views),
    );
  if (g.cold.length)
    out.push(
      '<h2>First call on a fresh device</h2>',
      para(
        'Each rep on a fresh device: creating the engine, session or pipeline, the first split and its GPU work.',
        'muted',
      ),
      perCase(charts, g.cold),
    );
  return out.join('\n');
}

/** Whatever went wrong beside a system's own failure. @param {Report} report */
function problems(report) {
  const items = [
    ...[...report.results, ...report.pipelines, ...report.decodes, ...report.callCosts].flatMap((r) =>
      r.crashed ? [`${r.id}: the page failed: ${r.crashed}`] : [],
    ),
    ...(report.final?.gpuErrors ?? []).map((e) => `GPU error at the end: ${e}`),
    ...(report.final?.deviceLost ? [`device lost: ${report.final.deviceLost}`] : []),
  ];
  return items.length ? `<h2>What went wrong</h2>${notes(items, 'err')}` : '';
}

/** @param {Report} report @returns {{ title: string, body: string, charts: Charts['specs'] }} */
export function pageRun(report) {
  const charts = new Charts();
  const lines = findingLines(report);
  const body = [
    pageHeader(report),
    lines.length
      ? `<h2>What this run shows</h2><ul class="findings">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`
      : '',
    caseSections(charts, report),
    pipelinesSection(charts, report),
    callsSection(charts, report),
    probesSection(charts, report, { resident: RESIDENT, nameOf }),
    problems(report),
    deviceDetails(report.env.features, report.env.limits, report.settings),
  ].join('\n');
  return { title: `Cleave bench ${report.startedAt}`, body, charts: charts.specs };
}
