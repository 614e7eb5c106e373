// The run as text: what it shows in words (comparisons between systems measured side by side), the tables
// (cases, the default plan against the copy limits and each strategy forced, throughput, pipelines, decode
// loops, per-call cost against the bare calls and what error scopes add to them (calls.mjs), and with --probes
// the GPU calls and bytes copied of each split), and each item's progress line.

import { PEERS, adapterOf, limitRows, pipelineRows, sameAsRows, throughput, versusPeer } from '../findings.mjs';
import { SYSTEMS, bytesText, cellText, gbps, ms, near1, planText, shortShape, table, times } from './format.mjs';
import { decodeFindings, renderDecodes } from './decode.mjs';
import { renderCallCosts, renderScopeStudy, scopeFindings } from './calls.mjs';

export { callCostLine } from './calls.mjs';

/** @import { CallCounts, CaseRecord, PipelineResult, Report, SystemResult } from '../../types.js' */

/** Every part of the report, in order; the empty ones left out. @param {Report} report */
export function renderReport(report) {
  const parts = [renderFindings, renderCases, renderLimits, renderThroughput, renderPipelines, renderDecodes];
  return [...parts, renderCallCosts, renderScopeStudy, renderCounts, renderModelCounts]
    .map((f) => f(report))
    .filter(Boolean);
}

/** @param {Report} report */
function renderFindings(report) {
  const a = adapterOf(report.env);
  const b = report.env.browser;
  const soft = a.software ? ' SwiftShader runs shaders on the CPU: compare systems within a run.' : '';
  return [
    ...(b ? [`Browser: ${b.name} ${b.version} (WebGPU through ${b.name === 'firefox' ? 'wgpu' : 'Dawn'}).`] : []),
    `Adapter: ${a.text}.${soft}`,
    ...waitText(report),
    ...findingLines(report),
  ].join('\n');
}

/** What the run shows, in words, a line each (browser, adapter and GPU wait aside). @param {Report} report */
export function findingLines(report) {
  const lines = [
    ...(report.results.length ? [...PEERS.map((peer) => versusText(report, peer)), limitsText(report)] : []),
    ...sameAsRows(report.results).map(
      (x) =>
        `${x.r.case.id}: ${times(x.timeRatio)} the time of ${x.peer.case.id} for ${times(x.bytesRatio)} its bytes.`,
    ),
    ...pipelineRows(report.pipelines).map(pipelineText),
    ...decodeFindings(report),
    ...report.results.flatMap((r) => (r.errorScopes ? [scopeText(r)] : [])),
    ...scopeFindings(report),
  ];
  const f = report.final;
  if (f)
    lines.push(
      `Cleave compiled ${f.cleavePipelines} pipelines on the shared device; ${f.liveBuffers} live buffers at the end.`,
    );
  return lines;
}

/** What a wait for the GPU costs, and in Firefox what that does to wall times. @param {Report} report */
function waitText(report) {
  const w = report.env.gpuWaitMs;
  if (w === undefined) return [];
  const firefox =
    report.env.browser?.name === 'firefox'
      ? ' Firefox answers a wait at its next poll of the GPU: every batch (and every read back to the host) ' +
        'waits up to one poll, so wall times here are mostly that wait; compare GPU times (in parentheses) and ' +
        'the per-call section, which drains the GPU off the clock.'
      : '';
  return [`A wait for the GPU (an empty submit, then onSubmittedWorkDone) takes ${ms(w)} ms here.${firefox}`];
}

/**
 * Cleave against one peer in words (bench:node gives its cases in the page's form, bench/node/report.mjs).
 * @param {Pick<Report, 'results'>} report @param {(typeof PEERS)[number]} peer
 */
export function versusText(report, peer) {
  const v = versusPeer(report.results, peer.key);
  const list = (/** @type {{ id: string, ratio: number }[]} */ xs) =>
    xs.map((x) => `${x.id} ${times(x.ratio)}`).join(', ');
  const head =
    v.geomean === undefined
      ? `Cleave vs ${peer.name}: no case where Cleave does GPU work and ${peer.name} runs on WebGPU.`
      : `Cleave vs ${peer.name}, GPU-resident: ${peer.name}'s time over Cleave's, geometric mean ${times(v.geomean)} ` +
        `over the ${v.gpuWork.length} case(s) where Cleave does GPU work (${list(v.gpuWork)}).`;
  const views = v.zeroCopy.length ? ` Where Cleave's outputs are views (no GPU work): ${list(v.zeroCopy)}.` : '';
  const cpu = v.cpuEp.length ? ` ORT on its CPU EP (its WebGPU EP refused): ${list(v.cpuEp)}.` : '';
  return head + views + cpu;
}

/** The default plan's ratios over the cases, as ranges. @param {Pick<Report, 'results'>} report */
export function limitsText(report) {
  const rows = limitRows(report.results);
  const range = (/** @type {(x: (typeof rows)[number]) => number | undefined} */ f) => {
    const xs = rows.map(f).filter((x) => x !== undefined);
    return xs.length ? `${times(Math.min(...xs))}-${times(Math.max(...xs))}` : '-';
  };
  return (
    `Cleave's default plan, wall time, over ${rows.length} case(s): ` +
    `${range((x) => x.ratios.wall.copyLimit)} the copy limit, ${range((x) => x.ratios.wall.shaderLimit)} the ` +
    `shader-copy limit, ${range((x) => x.ratios.wall.bestForced)} the fastest strategy forced (the chosen ` +
    `strategy forced: ${range((x) => x.chosen)}).`
  );
}

/** @param {ReturnType<typeof pipelineRows>[number]} x */
export function pipelineText(x) {
  const { r } = x;
  if (x.viaError) return `${r.id}: the pipeline through Cleave failed: ${x.viaError}`;
  if (x.wholeError) return `${r.id}: ORT's whole graph failed on WebGPU ("${x.wholeError.trim()}"); the pipeline ran.`;
  const paired = r.pairedRatio ? ` (batch by batch: median ${near1(r.pairedRatio.median)})` : '';
  return `${r.id}: ORT -> Cleave -> ORT takes ${near1(x.ratio)} the time of ORT's whole graph${paired}.`;
}

/** The error scopes' cost (--probes). @param {CaseRecord} r */
function scopeText(r) {
  const s = /** @type {import('../../types.js').ScopeCost} */ (r.errorScopes);
  const split =
    s.ownedSplitUs && s.callerSplitUs
      ? ` ${r.case.id}'s split: ${ms(s.ownedSplitUs.median)} µs of an engine upload (no scopes), ` +
        `${ms(s.callerSplitUs.median)} µs of a caller's buffer (scoped).`
      : ` The caller's split was not timed: ${s.callerError ?? 'no figure'}.`;
  const pair = `${ms(s.withScopesUs.median)} µs with and ${ms(s.withoutScopesUs.median)} µs without`;
  return `Error scopes: an empty submit takes ${pair} the pair (loops of ${s.loops}).${split}`;
}

/** @param {Report} report */
function renderCases(report) {
  if (report.results.length === 0) return '';
  const rows = report.results.map((r) => {
    const st = r.systems['cleave-gpu']?.stats;
    const plan = `${planText(st)}${r.case.cold ? ' cold' : ''}`;
    return [
      r.case.id,
      shortShape(r.case),
      plan,
      st ? String(st.commands) : '-',
      ...SYSTEMS.map((s) => cellText(r.systems[s.key])),
    ];
  });
  return (
    'Median ms per split, wall (GPU time); GPU-resident: a batch of splits and one onSubmittedWorkDone, per split.\n' +
    "n/a: the system cannot run the case; cpu: ORT ran on its CPU EP; plan, cmds: Cleave GPU-resident's\n" +
    'strategy and GPU commands per split; cold: the first call on a fresh device.\n\n' +
    table([['case', 'split', 'plan', 'cmds', ...SYSTEMS.map((s) => s.short)], ...rows])
  );
}

/** The default plan against the limits and the strategies forced. @param {Pick<Report, 'results'>} report */
export function renderLimits(report) {
  const rows = limitRows(report.results);
  if (rows.length === 0) return '';
  const head = [
    'case',
    'plan',
    'default',
    'alias',
    'copy',
    'gather',
    '/ copy limit',
    '/ shader limit',
    '/ best forced',
  ];
  const body = rows.map((x) => {
    const [w, g] = [x.ratios.wall, x.ratios.gpu];
    const both = (/** @type {number | undefined} */ a, /** @type {number | undefined} */ b) =>
      `${times(a)} (${times(b)})`;
    return [
      x.id,
      planText(x.plan),
      `${ms(x.ms)} (${ms(x.gpuMs)})`,
      ...x.forced.map((f) => (f.ms === undefined ? 'n/a' : `${ms(f.ms)} (${ms(f.gpuMs)})`)),
      both(w.copyLimit, g.copyLimit),
      both(w.shaderLimit, g.shaderLimit),
      `${both(w.bestForced, g.bestForced)} ${w.bestForcedStrategy ?? ''}`,
    ];
  });
  return (
    "Cleave's default plan against each strategy forced (an engine of its own each, timed in turn with the others)\n" +
    'and the limits: median ms per split and ratios, wall (GPU time); n/a: the plan cannot take that strategy.\n\n' +
    table([head, ...body])
  );
}

/** @param {Report} report */
function renderThroughput(report) {
  if (report.results.length === 0) return '';
  const rows = report.results
    .filter((x) => !x.case.cold)
    .map((r) => [r.case.id, bytesText(r.case.bytes), ...SYSTEMS.map((s) => gbps(throughput(r, s.key)))]);
  return (
    "GB/s: the tensor's bytes (each delivered once into an output) per median wall second, 10^9 bytes; none where\n" +
    "Cleave's outputs are views.\n\n" +
    table([['case', 'bytes', ...SYSTEMS.map((s) => s.short)], ...rows])
  );
}

/** @param {Pick<Report, 'pipelines'>} report */
export function renderPipelines(report) {
  const rows = pipelineRows(report.pipelines).map(({ r, ratio }) => [
    r.id,
    `${r.pipeline.parts} parts, ${planText(r.systems['cleave-pipeline']?.stats)}`,
    cellText(r.systems['ort-whole']),
    cellText(r.systems['cleave-pipeline']),
    near1(ratio),
    cellText(r.systems['ort-whole-cpu']),
  ]);
  if (rows.length === 0) return '';
  const head = ['pipeline', 'split', 'ORT whole graph', 'ORT -> Cleave -> ORT', '/ whole', 'ORT CPU EP'];
  return (
    'Pipelines: median ms per inference, wall (GPU time), x and y on the GPU (CPU EP: host in/out).\n\n' +
    table([head, ...rows])
  );
}

/** GPU calls of one split of each system (--probes). @param {Report} report */
function renderCounts(report) {
  const rows = report.results.flatMap((r) =>
    Object.entries(r.systems).flatMap(([key, s]) => {
      const c = s?.calls;
      if (!c) return [];
      return [countRow(r.case.id, key, c)];
    }),
  );
  for (const r of report.callCosts)
    for (const x of r.rows) if (x.gpuCalls) rows.push(countRow(r.id, x.variant, x.gpuCalls));
  const head = ['case', 'system', 'submits', 'cmd bufs', 'passes', 'dispatches', 'copies', 'bytes copied'];
  const tail = ['buffers', 'bind groups', 'writes', 'maps', 'scopes'];
  return rows.length
    ? "GPU calls in one split (--probes), the per-call variants' included: bytes copied sums the sizes of the\n" +
        'copyBufferToBuffer calls; buffers: buffers created.\n\n' +
        table([[...head, ...tail], ...rows])
    : '';
}

/** The columns of modelCountRows, after the item and the system. */
export const MODEL_COUNT_HEAD = [
  'session.run',
  'submits',
  'passes',
  'dispatches',
  'copies',
  'bytes copied',
  'buffers',
  'writes',
];

/**
 * The calls of pipelines and decode loops (counted in one inference or sequence: --probes, and always in bench:node),
 * per inference and per step, a row each: item, system, then MODEL_COUNT_HEAD's (ORT's session.run where counted).
 * @param {Pick<Report, 'pipelines' | 'decodes'>} report @returns {string[][]}
 */
export function modelCountRows(report) {
  const n = (/** @type {number | undefined} */ v, /** @type {number} */ per) =>
    v === undefined ? '-' : Number.isInteger(v / per) ? String(v / per) : (v / per).toFixed(2);
  /** @param {string} id @param {string} key @param {CallCounts} c @param {number} per */
  const row = (id, key, c, per) => [
    id,
    key,
    ...[
      c.sessionRuns,
      c.submits,
      c.passes,
      c.dispatches,
      c.copies,
      c.bytesCopied,
      c.buffersCreated,
      c.writeBuffers,
    ].map((v) => n(v, per)),
  ];
  /** @param {{ id: string, systems: Partial<Record<string, SystemResult>> }} r @param {number} per */
  const rows = (r, per) =>
    Object.entries(r.systems).flatMap(([k, s]) => (s?.calls ? [row(r.id, k, s.calls, per)] : []));
  return [
    ...report.pipelines.flatMap((r) => rows(r, 1)),
    ...report.decodes.flatMap((r) => rows(r, r.decode.steps.length)),
  ];
}

/** @param {Pick<Report, 'pipelines' | 'decodes'>} report */
export function renderModelCounts(report) {
  const rows = modelCountRows(report);
  if (rows.length === 0) return '';
  return (
    'Calls per inference (pipelines) and per step (decode loops: one sequence over its steps), counted in one\n' +
    "run after a first: ORT's session.run, GPU submits, compute passes, dispatches, copies and their bytes,\n" +
    'buffers created, writeBuffer calls.\n\n' +
    table([['item', 'system', ...MODEL_COUNT_HEAD], ...rows])
  );
}

/** @param {string} item @param {string} who @param {import('../../types.js').CallCounts} c */
function countRow(item, who, c) {
  const n = [c.submits, c.commandBuffers, c.passes, c.dispatches, c.copies, c.bytesCopied, c.buffersCreated];
  return [item, who, ...[...n, c.bindGroups, c.writeBuffers, c.mapAsyncs, c.errorScopes].map(String)];
}

/** @param {PipelineResult} r */
export const pipelineLine = (r) =>
  `${r.id.padEnd(30)} ${ms(r.seconds)} s  ORT whole graph ${cellText(r.systems['ort-whole'])}  ` +
  `ORT -> Cleave -> ORT ${cellText(r.systems['cleave-pipeline'])} ms`;

/** One line per finished case for the progress log. @param {CaseRecord} r */
export function progressLine(r) {
  const cell = (/** @type {import('../../types.js').SystemKey} */ k) => cellText(r.systems[k]);
  return (
    `${r.case.id.padEnd(30)} ${ms(r.seconds)} s  Cleave ${cell('cleave-gpu')} / host ${cell('cleave-host')}  ` +
    `ORT ${cell('ort-gpu')} / host ${cell('ort-host')}  TF.js ${cell('tfjs-gpu')}  ` +
    `copy ${cell('copy-limit')}  shader ${cell('shader-limit')} ms  [${planText(r.systems['cleave-gpu']?.stats)}]`
  );
}
