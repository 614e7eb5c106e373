// Pipelines and decode loops in the HTML report: each way through Cleave against ORT's whole graph (median over
// median; 1 = the whole graph), with the tables of their times and batch-by-batch ratios.

import { pipelineRows } from '../../findings.mjs';
import { SYSTEMS as DECODE_SYSTEMS, decodeFailures, decodeRows } from '../decode.mjs';
import { ms, near1, planText } from '../format.mjs';
import { reasonOf, statusOf } from './cases.mjs';
import { notes, para, series, table } from './markup.mjs';

/** @import { Report, SystemResult, Summary } from '../../../types.js' */
/** @import { Cell, Charts } from './markup.mjs' */

const WAYS = [
  { name: 'through Cleave: split', color: '#4e79a7' },
  { name: 'with encodeSplit', color: '#76b7b2' },
  { name: 'B under graph capture', color: '#edc948' },
];

/** Median ms (GPU ms) of one item, divided by `per`; else the system's state. @param {SystemResult | undefined} s
 * @param {number} [per] @returns {Cell} */
function cell(s, per = 1) {
  const { word, cls } = statusOf(s);
  if (!s?.ok || !s.wall) return { text: word, cls };
  const g = s.gpu ? ` (${ms(s.gpu.median / per)})` : '';
  return `${ms(s.wall.median / per)}${g}${s.fallback ? ' CPU EP' : ''}`;
}

/** @param {Summary | undefined} p */
const paired = (p) => (p ? `${near1(p.median)} [${near1(p.min)}–${near1(p.max)}]` : '-');

/** @param {string} name @param {Partial<Record<string, SystemResult>>} systems */
const whyList = (name, systems) => Object.entries(systems).flatMap(([k, s]) => reasonOf(`${name} ${k}`, s));

/** @param {Pick<Report, 'pipelines'>} report */
function pipelineTable(report) {
  const rows = pipelineRows(report.pipelines).map(({ r, ratio }) => [
    r.id,
    `${r.pipeline.parts} parts, ${planText(r.systems['cleave-pipeline']?.stats)}`,
    cell(r.systems['ort-whole']),
    cell(r.systems['cleave-pipeline']),
    near1(ratio),
    paired(r.pairedRatio),
    cell(r.systems['ort-whole-cpu']),
  ]);
  const head = [
    'pipeline',
    'split',
    'ORT whole graph',
    'ORT → Cleave → ORT',
    '/ whole',
    'batch by batch',
    'ORT CPU EP',
  ];
  return table(head, rows, 2) + notes(report.pipelines.flatMap((r) => whyList(r.id, r.systems)));
}

/** @param {Pick<Report, 'decodes'>} report */
function decodeTable(report) {
  const rows = decodeRows(report.decodes).map(({ r, systems }) => [
    r.id,
    [r.decode.prefill, ...(r.decode.decodeSteps ? [`${r.decode.decodeSteps}x1`] : [])].filter(Boolean).join(' + '),
    ...systems.flatMap((x, i) => {
      const c = cell(x.s, r.decode.steps.length);
      return i === 0 ? [c] : [c, `${near1(x.ratio)}, ${x.paired ? near1(x.paired.median) : '-'}`];
    }),
    decodeFailures(r).length ? { text: 'NO', cls: 'err' } : 'yes',
  ]);
  const head = [
    'decode loop',
    'steps',
    ...DECODE_SYSTEMS.flatMap((x, i) => (i ? [x.name, '/ whole, paired'] : [x.name])),
  ];
  // Each system's reason, then what else fails a loop (the page failed, a system missing or not verified).
  const failed = (/** @type {(typeof report.decodes)[number]} */ r, /** @type {string} */ f) =>
    Object.entries(r.systems).some(([k, s]) => s && !s.ok && f.startsWith(`${r.id} ${k}:`));
  const why = report.decodes.flatMap((r) => [
    ...whyList(r.id, r.systems),
    ...decodeFailures(r).flatMap((text) => (failed(r, text) ? [] : [{ text, cls: 'err' }])),
  ]);
  return table([...head, 'match'], rows, 2) + notes(why);
}

/** Pipelines and decode loops against ORT's whole graph. @param {Charts} charts
 * @param {Pick<Report, 'pipelines' | 'decodes'>} report */
export function pipelinesSection(charts, report) {
  if (report.pipelines.length + report.decodes.length === 0) return '';
  const pipes = pipelineRows(report.pipelines);
  const loops = decodeRows(report.decodes);
  const labels = [...pipes.map((p) => p.r.id), ...loops.map((d) => d.r.id)];
  const ratios = WAYS.map((_, i) => [
    ...pipes.map((p) => (i === 0 ? p.ratio : undefined)),
    ...loops.map((d) => d.systems[i + 1]?.ratio),
  ]);
  const figure = charts.figure(
    {
      labels,
      series: WAYS.map((w, i) => series(w.name, w.color, ratios[i] ?? [])),
      unit: "median time / ORT's whole graph (1 = as fast)",
      format: 'x',
      log: false,
    },
    {
      title: "Pipelines and decode loops against ORT's whole graph",
      caption:
        "Each way through Cleave (ORT A → Cleave's split → ORT B) over ORT running the whole graph itself, median " +
        'over median; below 1: faster. The tables give the times and the median of the batch-by-batch ratios.',
      table:
        (pipes.length ? `<h4>Pipelines: median ms per inference, wall (GPU)</h4>${pipelineTable(report)}` : '') +
        (loops.length ? `<h4>Decode loops: median ms per step, wall (GPU)</h4>${decodeTable(report)}` : ''),
    },
  );
  const intro =
    "x -> MatMul -> qkv -> Split -> attention, GPU-resident: ORT's whole graph on its WebGPU EP, against ORT A -> " +
    'Cleave -> ORT B; decode loops run a KV cache over a whole sequence. Every output checked against a reference.';
  return `<h2>Pipelines and decode loops</h2>${para(intro, 'muted')}${figure}`;
}
