// `npm run bench:node`'s results as an HTML page: the header, what the run shows in words (Cleave against each peer,
// the default plan against the limits: the page bench's findings on Node's figures), the decode step on the
// runtime's own device (decode-step.mjs), the cases where Cleave does GPU
// work (its default plan beside each strategy forced, GB/s, and per case every system, the peers among them, over
// the copy limit), the cases where its outputs are views apart, pipelines and decode loops, where the peers ran, the
// per-call section (--calls: the page's own section), and whatever went wrong.

import { bytesText } from '../format.mjs';
import { MODEL_COUNT_HEAD, limitsText, modelCountRows, pipelineText, versusText } from '../text.mjs';
import { decodeFindings } from '../decode.mjs';
import { PEERS, pipelineRows } from '../../findings.mjs';
import { pageView } from '../../node-view.mjs';
import { callsSection } from './calls.mjs';
import { decodeStepSection } from './decode-step.mjs';
import { caseFigure } from './cases.mjs';
import { deviceDetails, nodeHeader } from './header.mjs';
import { Charts, esc, notes, para, table } from './markup.mjs';
import { pipelinesSection } from './pipelines.mjs';
import { gbpsFigure, plansFigure } from './plans.mjs';

/** @import { NodeCaseRecord, NodeReport } from '../../../types.js' */
/** @import { CaseView, SystemDef } from './cases.mjs' */

/** @type {readonly SystemDef[]} */
const DEFS = [
  { key: 'cleave', name: 'Cleave (default plan)', color: '#1f6feb' },
  { key: 'forced-alias', name: 'alias forced', color: '#59a14f' },
  { key: 'forced-copy', name: 'copy forced', color: '#e15759' },
  { key: 'forced-gather', name: 'gather forced', color: '#b07aa1' },
  { key: 'separate', name: "layout 'separate'", color: '#0a3069' },
  { key: 'ort', name: 'ORT Web (WebGPU EP)', color: '#f28e2b' },
  { key: 'tfjs', name: 'TF.js (WebGPU)', color: '#edc948' },
  { key: 'copy-limit', name: 'copy limit', color: '#6e7781' },
  { key: 'shader-limit', name: 'shader limit', color: '#24292f' },
];
const FORCED = ['forced-alias', 'forced-copy', 'forced-gather'];

/** @param {NodeCaseRecord} r @returns {CaseView} */
const viewOf = (r) => {
  const c = r.case;
  return {
    id: c.id,
    about: `${c.dtype} [${c.shape.join(',')}] a${c.axis} -> [${c.sizes.join(',')}], ${bytesText(c.bytes)}`,
    systems: r.systems,
    defs: DEFS,
    moved: 2 * c.bytes,
    problems: r.gpuErrors.map((e) => `GPU error: ${e}`),
  };
};

/** @param {Charts} charts @param {readonly NodeCaseRecord[]} cases */
const plans = (charts, cases) =>
  plansFigure(
    charts,
    cases
      .filter((r) => !r.case.strategy)
      .map((r) => ({ id: r.case.id, systems: r.systems, own: 'cleave', forced: FORCED })),
  );

const GBPS_RULE = "GB/s: the tensor's bytes read plus written per median wall second, 10^9 bytes.";

/** @param {NodeReport} report @returns {{ title: string, body: string, charts: Charts['specs'] }} */
export function nodeRun(report) {
  const charts = new Charts();
  const views = (/** @type {NodeCaseRecord} */ r) => r.systems.cleave?.stats?.strategy === 'alias';
  const headline = report.cases.filter((r) => !views(r));
  const apart = report.cases.filter(views);
  const lines = findings(report);
  const out = [nodeHeader(report)];
  if (lines.length)
    out.push(
      `<h2>What this run shows</h2><ul class="findings">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`,
    );
  out.push(decodeStepSection(report.decodeSteps ?? []));
  if (headline.length)
    out.push(
      '<h2>Where Cleave does GPU work</h2>',
      para(
        "Cleave's kernels through Dawn on one device with the adapter's full limits: the default plan (its engine " +
          'calibrated), each strategy forced, one copyBufferToBuffer and a vec4 copy kernel of the same bytes; every ' +
          'output checked before timing, medians of interleaved batches.',
        'muted',
      ),
      plans(charts, headline),
      gbpsFigure(charts, headline.map(viewOf), DEFS, GBPS_RULE),
      '<h3>Per case</h3>',
      ...headline.map((r) => caseFigure(charts, viewOf(r))),
    );
  if (apart.length)
    out.push(
      "<h2>Where Cleave's outputs are views</h2>",
      para(
        "Cleave's default plan makes views of the input here: nothing copied, nothing submitted (GPU time 0). " +
          'Kept out of the headline.',
        'muted',
      ),
      plans(charts, apart),
      ...apart.map((r) => caseFigure(charts, viewOf(r))),
    );
  const models = { pipelines: report.pipelines ?? [], decodes: report.decodes ?? [] };
  out.push(pipelinesSection(charts, models), modelCounts(models));
  out.push(placements(report), callsSection(charts, { callCosts: report.callCosts ?? [] }), problems(report));
  out.push(deviceDetails(report.features, report.limits, report.settings));
  return { title: `Cleave bench:node ${report.started}`, body: out.join('\n'), charts: charts.specs };
}

/**
 * What the run shows in words: the page bench's findings on Node's cases, pipelines and decode loops.
 * @param {NodeReport} r
 */
function findings(r) {
  const view = { results: pageView(r.cases) };
  const cases = view.results.length ? [...PEERS.map((peer) => versusText(view, peer)), limitsText(view)] : [];
  const models = { pipelines: r.pipelines ?? [], decodes: r.decodes ?? [] };
  return [...cases, ...pipelineRows(models.pipelines).map(pipelineText), ...decodeFindings(models)];
}

/** Where the peers ran: ORT's log of each model's placement, TF.js's dispatches per split. @param {NodeReport} r */
function placements(r) {
  const lines = [
    ...r.cases.flatMap((c) =>
      ['ort', 'tfjs'].flatMap((k) => {
        const s = c.systems[/** @type {'ort' | 'tfjs'} */ (k)];
        return s?.placement ? [`${c.case.id}, ${k === 'ort' ? 'ORT' : 'TF.js'}: ${s.placement}`] : [];
      }),
    ),
    ...[...(r.pipelines ?? []), ...(r.decodes ?? [])].flatMap((x) =>
      Object.entries(x.placement ?? {}).map(([m, where]) => `${x.id}, ORT model ${m}: ${where}`),
    ),
  ];
  if (lines.length === 0) return '';
  const intro =
    "Where the peers ran: ORT's own verbose log of where it placed each model's nodes, and the WebGPU programs " +
    'TF.js dispatched in one split (counted on the shared device).';
  return `<h2>Where the peers ran</h2>${para(intro, 'muted')}${notes(lines)}`;
}

/** What the run could not do, and skipped cases. @param {NodeReport} r */
function problems(r) {
  const items = [
    ...(r.notes ?? []),
    ...r.cases.flatMap((c) => (c.skipped ? [`${c.case.id}: skipped, ${c.skipped}`] : [])),
  ];
  return items.length ? `<h2>What the run could not do</h2>${notes(items, 'warn')}` : '';
}

/**
 * The pipelines' and decode loops' calls per inference and per step.
 * @param {Parameters<typeof modelCountRows>[0]} r
 */
function modelCounts(r) {
  const rows = modelCountRows(r);
  if (rows.length === 0) return '';
  const intro =
    "Calls per inference (pipelines) and per step (decode loops), counted in one run after a first: ORT's " +
    'session.run, GPU submits, compute passes, dispatches, copies and their bytes, buffers created, writeBuffer calls.';
  const head = ['item', 'system', ...MODEL_COUNT_HEAD];
  return `<h3>Calls per inference and per step</h3>${para(intro, 'muted')}${table(head, rows, 2)}`;
}
