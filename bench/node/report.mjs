// The Node bench's figures in words: per case, every system's times and GB/s (bytes read plus written), the
// default plan's ratios to the two limits and to the best strategy forced, and each peer's time over Cleave's
// (wall and GPU time); then the page bench's own comparisons on the same figures (its plan spread, Cleave against
// each peer, pipelines and decode loops), read through lib/node-view.mjs. Pure: records in, strings out.

import { PEERS, pipelineRows } from '../lib/findings.mjs';
import { medianOf as ms, ratioOf, ratiosOf as ratios } from '../lib/ratios.mjs';
import { decodeFailures, decodeFindings, renderDecodes } from '../lib/report/decode.mjs';
import { bytesText as size, ms as fmt, table, times } from '../lib/report/format.mjs';
import { limitsText, pipelineText, renderLimits, renderModelCounts, renderPipelines } from '../lib/report/text.mjs';
import { versusText } from '../lib/report/text.mjs';
import { pageView } from '../lib/node-view.mjs';

/** @import { ClockRatios, NodeCaseRecord, NodeReport, SystemResult } from '../types.js' */
/** @typedef {Pick<NodeCaseRecord, 'case' | 'systems'> & { skipped?: string | undefined }} CaseLike */

export { fmt, size };

/** The peers of bench:node, with the names the text gives them. */
const NODE_PEERS = /** @type {const} */ ([
  { key: 'ort', name: 'ORT' },
  { key: 'tfjs', name: 'TF.js' },
]);

/**
 * Every ratio of a case, per clock: the default plan over the limits and the best strategy forced
 * (bench/lib/ratios.mjs), and each peer's time over the default plan's.
 * @param {CaseLike} r @returns {{ wall: ClockRatios, gpu: ClockRatios }}
 */
export function ratiosOf(r) {
  /** @type {{ wall: ClockRatios, gpu: ClockRatios }} */
  const q = ratios(r.systems, 'cleave', ['forced-alias', 'forced-copy', 'forced-gather']);
  for (const clock of /** @type {const} */ (['wall', 'gpu']))
    for (const { key } of NODE_PEERS) q[clock][key] = ratioOf(ms(r.systems[key], clock), ms(r.systems.cleave, clock));
  return q;
}

/** GB/s moving the input's bytes once in and once out. @param {number} bytes @param {number | undefined} t */
const gbps = (bytes, t) => (t === undefined || t <= 0 ? undefined : (2 * bytes) / (t * 1e6));

/** @param {import('../types.js').PlanStats | undefined} st */
export function planOf(st) {
  if (!st) return '?';
  if (st.strategy === 'gather') return `gather ${st.unitBits === 1 ? 'bits' : `${st.unitBits}-bit`} x${st.dispatches}`;
  return st.strategy === 'copy' ? `copy x${st.copies}` : st.strategy;
}

/** A column of `n` characters, a space at least after `s`. @param {string} s @param {number} n */
const pad = (s, n) => `${s} `.padEnd(n);

/** @param {SystemResult} s */
const whyNot = (s) => s.skip ?? (s.error ? `FAILED: ${s.error}` : undefined);

/** A case's table: each system's ms, GB/s and plan (a peer: where it ran), then its ratios. @param {CaseLike} r */
export function renderCase(r) {
  const lines = [`  ${pad('system', 14)}${pad('wall ms', 10)}${pad('GPU ms', 10)}${pad('GB/s wall/GPU', 16)}plan`];
  for (const [key, s] of Object.entries(r.systems)) {
    const why = s && whyNot(s);
    if (!s || why) {
      lines.push(`  ${pad(key, 14)}${why ?? '-'}`);
      continue;
    }
    const [w, g] = [ms(s, 'wall'), ms(s, 'gpu')];
    const rate = `${fmt(gbps(r.case.bytes, w))} / ${fmt(gbps(r.case.bytes, g))}`;
    const plan = s.stats ? planOf(s.stats) : s.fallback ? `${s.fallback}: ${s.webgpuError}` : (s.placement ?? '');
    lines.push(`  ${pad(key, 14)}${pad(fmt(w), 10)}${pad(fmt(g), 10)}${pad(rate, 16)}${plan}`.trimEnd());
  }
  const q = ratiosOf(r);
  const x = times;
  lines.push(
    `  default / copy limit ${x(q.wall.copyLimit)} (GPU ${x(q.gpu.copyLimit)}), / shader limit ` +
      `${x(q.wall.shaderLimit)} (GPU ${x(q.gpu.shaderLimit)}), / best forced ${x(q.wall.bestForced)} ` +
      `(${q.wall.bestForcedStrategy ?? '-'}; GPU ${x(q.gpu.bestForced)}, ${q.gpu.bestForcedStrategy ?? '-'})`,
  );
  const peers = NODE_PEERS.filter(({ key }) => q.wall[key] !== undefined);
  const over = peers.map(({ key, name }) => `${name} ${x(q.wall[key])} (GPU ${x(q.gpu[key])})`);
  if (peers.length) lines.push(`  over the default: ${over.join(', ')}`);
  return lines.join('\n');
}

/** A system's median wall (GPU) ms, or its state. @param {SystemResult | undefined} s */
const cell = (s) =>
  !s ? '-' : s.skip ? 'n/a' : !s.ok ? 'ERR' : `${fmt(ms(s, 'wall'))} (${fmt(ms(s, 'gpu'))})${s.fallback ? ' cpu' : ''}`;

/**
 * After the cases: Cleave against each peer (median ms and the peer's time over Cleave's, per case), the page's plan
 * spread (the default plan against each strategy forced and the limits), and what they show in words.
 * @param {readonly CaseLike[]} records
 */
export function renderSummary(records) {
  const ran = records.filter((r) => !r.skipped);
  const head = ['case', 'plan', 'Cleave', 'ORT', '/ Cleave', 'TF.js', '/ Cleave', 'copy limit', 'shader limit'];
  const rows = ran.map((r) => {
    const q = ratiosOf(r);
    const both = (/** @type {'ort' | 'tfjs'} */ k) => `${times(q.wall[k])} (${times(q.gpu[k])})`;
    const s = r.systems;
    return [r.case.id, planOf(s.cleave?.stats), cell(s.cleave), cell(s.ort), both('ort'), cell(s.tfjs)].concat([
      both('tfjs'),
      cell(s['copy-limit']),
      cell(s['shader-limit']),
    ]);
  });
  const view = { results: pageView(ran) };
  const skipped = records.filter((r) => r.skipped).map((r) => `${r.case.id}: skipped, ${r.skipped}`);
  return [
    'Cleave against its peers, GPU-resident on one device: median ms per split, wall (GPU time); / Cleave: the\n' +
      "peer's time over Cleave's default plan, wall (GPU); n/a: the system cannot run the case; cpu: not on\n" +
      'WebGPU.\n\n' +
      table([head, ...rows]),
    renderLimits(view),
    [...PEERS.map((peer) => versusText(view, peer)), limitsText(view), ...skipped].join('\n'),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The pipelines and decode loops: what they show, their tables, where ORT placed each model, their calls per step.
 * @param {NodeReport} report */
export function renderModels(report) {
  const r = { pipelines: report.pipelines ?? [], decodes: report.decodes ?? [] };
  const placed = [...r.pipelines, ...r.decodes].flatMap((x) =>
    Object.entries(x.placement ?? {}).map(([model, where]) => `${x.id} ${model}: ${where}`),
  );
  return [
    [...pipelineRows(r.pipelines).map(pipelineText), ...decodeFindings(r)].join('\n'),
    renderPipelines(r),
    renderDecodes(r),
    placed.length
      ? `Where ORT placed each model's nodes (its verbose log):\n${placed.map((l) => `  ${l}`).join('\n')}`
      : '',
    renderModelCounts(r),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** What fails a run among the models: a decode loop through Cleave that does not match or run, a pipeline through
 * Cleave that failed, a GPU error. @param {NodeReport} report */
export function modelFailures(report) {
  const pipes = (report.pipelines ?? []).filter(
    (p) => p.systems['cleave-pipeline']?.error || p.gpuErrors?.length || p.deviceLost,
  );
  const loops = (report.decodes ?? []).filter((d) => decodeFailures(d).length || d.gpuErrors?.length);
  return [...pipes, ...loops].map((x) => x.id);
}
