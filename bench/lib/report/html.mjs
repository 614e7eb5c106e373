// report.html: one self-contained file (inline CSS and SVG, no script, no network) that reads on
// a desktop and on a 390 px phone: tables scroll inside their own box, charts scale, error texts
// wrap and are never cut. Sections: adapter, findings, targets, overview, throughput, cases.

import { PEERS, callCostRows, pipelineRows, throughput, versusPeer } from '../findings.mjs';
import { SYSTEMS, bytesText, cellText, esc, gbps, ms, near1, planText, shortShape, times } from './format.mjs';
import { caseChart, gpuMarker, overviewChart } from './svg.mjs';
import { decodeSection, renderDecodes } from './decode.mjs';
import {
  GBPS_RULE,
  adapterSentence,
  findings,
  renderCallCosts,
  renderFindings,
  renderPipelines,
  renderPlanChoice,
  renderTable,
  renderTargets,
  renderThroughput,
} from './text.mjs';

/** @import { CaseRecord, Report, SystemResult } from '../../types.js' */

const CSS = `
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:16px auto;max-width:1000px;color:#1b1f23;padding:0 12px;overflow-wrap:anywhere}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px;margin:28px 0 4px;font-family:ui-monospace,monospace}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:6px 0;border:1px solid #e1e4e8}
table{border-collapse:collapse;min-width:100%;font-size:14px}td,th{border-bottom:1px solid #e1e4e8;padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:normal}
.id{white-space:nowrap;font-family:ui-monospace,monospace;font-size:13px}.num{text-align:right;white-space:nowrap}.wide{min-width:14em}
th{background:#f6f8fa}.muted{color:#6a737d}.small{font-size:12px;min-width:15em}.name{white-space:nowrap}.err{color:#cb2431;fill:#cb2431}
.errtext{color:#cb2431;white-space:pre-wrap;overflow-wrap:anywhere}.msgs{font-size:13px;padding-left:18px}.warn{color:#8a6d00}
.note{margin:2px 0;color:#444}.ok td:last-child{color:#22863a;font-weight:600}.miss td:last-child{color:#cb2431;font-weight:600}
.caveat{border-left:4px solid #d29922;background:#fff8e5;padding:8px 12px}
.sw{display:inline-block;width:10px;height:10px;margin-right:6px}
svg{display:block;width:100%;height:auto}svg text{font:13px system-ui,sans-serif}svg .ax{fill:#6a737d;font-size:11px}
svg .val{font-size:12px;fill:#333}svg .err{font-size:12px}svg.key{display:inline;width:12px;height:10px;vertical-align:middle}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px;margin:8px 0}
pre{font-size:11px;overflow-x:auto;background:#f6f8fa;padding:8px;overflow-wrap:normal}
`;

/** @param {string} inner */
const scroll = (inner) => `<div class="scroll">${inner}</div>`;

/** @param {Report} report */
export function renderHtml(report) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cleave bench ${esc(report.startedAt)}</title><style>${CSS}</style></head><body>
<h1>Cleave bench</h1>
${header(report)}
<h2>Findings</h2>
${findings(report)
  .map((f) => `<p><b>${esc(f.title)}.</b> ${esc(f.text)}</p>`)
  .join('\n')}
${PEERS.map((p) => versusTable(report, p)).join('\n')}
<h2>Targets</h2>
${targetsTable(report)}
<h2>Overview: how many times slower than GPU-resident Cleave</h2>
<p class="muted">Per case, each system's median wall time divided by GPU-resident Cleave's (log scale; right of 1x: Cleave is faster). Dashed: 3x (the target against ORT) and 1/1.3 (the target against the limits). Faded bars: ORT on its CPU EP, its WebGPU EP having refused the graph.</p>
${overviewChart(report)}
<h2>Plan choice: the planner against every strategy forced</h2>
<pre>${esc(renderPlanChoice(report))}</pre>
${pipelinesSection(report)}
${decodeSection(report)}
${callCostSection(report)}
<h2>Throughput (GB/s)</h2>
<p class="muted">${esc(GBPS_RULE)}. Absolute figures depend on the adapter named above.</p>
${throughputTable(report)}
<h2>Cases</h2>
${legend()}
${report.results.map(caseBlock).join('\n')}
<h2>As printed in the terminal</h2>
<pre>${esc(
    [
      renderFindings(report),
      renderTable(report),
      renderPlanChoice(report),
      renderThroughput(report),
      renderPipelines(report),
      renderDecodes(report),
      renderCallCosts(report),
      renderTargets(report),
    ]
      .filter(Boolean)
      .join('\n\n'),
  )}</pre>
</body></html>
`;
}

/** @param {Report} report */
function header(report) {
  const env = report.env;
  const m = report.machine;
  return `<p>${esc(report.startedAt)} · <code>${esc(report.command)}</code> · ${report.seconds?.toFixed(0)} s · ONNX Runtime Web ${esc(env?.ort?.['web'])} · TF.js ${esc(env?.tfjs ?? '-')} · ${esc(env?.userAgent)} · timestamp-query: ${env?.timestampQuery ? `yes (empty command buffer ${ms(env.timestampFloorUs)} µs)` : 'no'} · Node ${esc(m?.node)}, ${m?.cpus} CPU(s), load ${m?.loadavg?.map((l) => l.toFixed(1)).join(' ')}</p>
<p class="caveat">${esc(adapterSentence(report))}</p>
<p class="muted">All systems run in one page on one GPUDevice (ONNX Runtime's, shared with Cleave). Every system's outputs were checked byte for byte against an independent JavaScript split (and Cleave's CPU path against it) before timing. Wall time: milliseconds per split; GPU-resident systems run a batch of splits and then wait once with onSubmittedWorkDone. GPU time: the summed span of every command buffer the split submitted, from timestamp queries at each command buffer's start and end (queue.writeBuffer uploads are not in it). Medians over interleaved batches.</p>`;
}

/**
 * GPU-resident Cleave against a GPU-resident peer per case, grouped as the findings count them,
 * with both systems' throughput next to the ratio.
 * @param {Report} report @param {(typeof PEERS)[number]} peer
 */
function versusTable(report, peer) {
  const v = versusPeer(report.results, peer.key);
  const p = esc(peer.name);
  const groups = /** @type {const} */ ([
    ['Cleave does GPU work (the headline)', v.gpuWork],
    ['zero-copy: Cleave made views, no GPU work', v.zeroCopy],
    ['ORT on its CPU EP', v.cpuEp],
  ]);
  const rows = groups
    .filter(([, xs]) => xs.length)
    .map(
      ([title, xs]) =>
        `<tr><th colspan="7">${esc(title)}</th></tr>${xs
          .map((x) => {
            const r = /** @type {CaseRecord} */ (report.results.find((y) => y.case.id === x.id));
            return `<tr><td class="id">${esc(x.id)}</td><td class="num">${esc(x.strategy === 'gather' ? planText(r.systems['cleave-gpu']?.stats) : x.strategy)}</td><td class="num">${ms(x.cleaveMs)}</td><td class="num">${ms(x.peerMs)}</td><td class="num"><b>${times(x.ratio)}</b></td><td class="num">${gbpsCell(r, 'cleave-gpu')}</td><td class="num">${gbpsCell(r, peer.key)}</td></tr>`;
          })
          .join('')}`,
    );
  const head = `<tr><th>case</th><th class="num">Cleave plan</th><th class="num">Cleave GPU ms</th><th class="num">${p} GPU ms</th><th class="num">${p} / Cleave</th><th class="num">Cleave GB/s</th><th class="num">${p} GB/s</th></tr>`;
  return rows.length ? scroll(`<table>${head}${rows.join('')}</table>`) : '';
}

/**
 * A table of text cells (escaped here); columns from `num` on are right-aligned.
 * @param {readonly string[]} head @param {readonly (readonly string[])[]} rows @param {number} num
 */
function plainTable(head, rows, num) {
  /** @param {string} tag @param {readonly string[]} cells */
  const row = (tag, cells) =>
    `<tr>${cells.map((c, i) => `<${tag}${i >= num ? ' class="num"' : i === 0 && tag === 'td' ? ' class="id"' : ''}>${esc(c)}</${tag}>`).join('')}</tr>`;
  return scroll(`<table>${row('th', head)}${rows.map((r) => row('td', r)).join('')}</table>`);
}

/** ORT -> Cleave -> ORT against ORT's whole graph, one row per pipeline. @param {Report} report */
function pipelinesSection(report) {
  const rows = pipelineRows(report.pipelines);
  if (!rows.length) return '';
  /** @param {SystemResult | undefined} v */
  const cell = (v) =>
    v && !v.ok ? 'failed' : `${cellText(v)}${v?.wall ? ` [${ms(v.wall.min)}–${ms(v.wall.max)}] n=${v.wall.n}` : ''}`;
  /** @param {string} name @param {SystemResult | undefined} v */
  const calls = (name, v) =>
    v?.calls
      ? `${name}: ${v.calls.submits} submit, ${v.calls.dispatches} dispatch, ${v.calls.copies} copy, ${v.calls.buffersCreated} createBuffer, ` +
        `${v.calls.writeBuffers} writeBuffer, ${v.calls.errorScopes ?? '?'} error scopes pushed`
      : '';
  return `<h2>Pipelines: ORT → Cleave → ORT against ORT's whole graph</h2>
<p class="muted">Median ms per inference, wall (GPU time) [fastest–slowest batch], x in and y out on the GPU, nothing read back in between (ORT's CPU EP: host in/out). Pipeline / whole at most 1x: the pipeline through Cleave is no slower. What ORT said where it failed is in the findings above.</p>
${plainTable(
  [
    'pipeline',
    "Cleave's split",
    'ORT whole graph',
    'ORT → Cleave → ORT',
    'pipeline / whole',
    'ORT CPU EP',
    'y same bits as whole',
  ],
  rows.map((p) => [
    p.id,
    `${p.r.pipeline.parts} parts, ${planText(p.split)}`,
    cell(p.r.systems['ort-whole']),
    cell(p.r.systems['cleave-pipeline']),
    p.ratio === undefined ? '-' : near1(p.ratio),
    cell(p.r.systems['ort-whole-cpu']),
    p.r.sameBitsAsWhole === undefined ? 'n/a' : p.r.sameBitsAsWhole ? 'yes' : 'no',
  ]),
  2,
)}
<ul class="msgs">${rows
    .map(
      (p) =>
        `<li><b>${esc(p.id)}</b>, GPU calls in one inference: ${esc(
          [
            calls('ORT whole graph', p.r.systems['ort-whole']),
            calls('ORT → Cleave → ORT', p.r.systems['cleave-pipeline']),
          ]
            .filter(Boolean)
            .join('; '),
        )}</li>`,
    )
    .join('')}</ul>`;
}

/** Per-call cost of split and encodeSplit, one row per variant. @param {Report} report */
function callCostSection(report) {
  const rows = callCostRows(report.callCosts);
  if (!rows.length) return '';
  return `<h2>Per-call cost (µs of JavaScript per call)</h2>
<p class="muted">Median over rounds, [fastest–slowest round]. split: the call, awaiting it and releasing its outputs ("before it returns": the synchronous part). encodeSplit: the call alone; the encoders are submitted and the outputs released outside the clock. Error scopes: counted on one call.</p>
${plainTable(
  ['function', 'input', 'plan', 'error scopes', 'µs per call', 'range', 'before it returns', 'calls'],
  rows.map(({ row: x, input, scopes, awaited }) => [
    x.fn,
    input,
    planText(x.stats),
    scopes === undefined ? '-' : scopes ? (awaited ? 'yes, awaited' : 'yes, not awaited') : 'no',
    x.error ? `failed: ${x.error}` : ms(x.us?.median),
    x.us ? `${ms(x.us.min)}–${ms(x.us.max)}` : '',
    ms(x.syncUs?.median),
    String(x.calls),
  ]),
  4,
)}`;
}

/** @param {Report} report */
function targetsTable(report) {
  const rows = report.targets.map(
    (t) =>
      `<tr class="${t.met === null ? '' : t.met ? 'ok' : 'miss'}"><td>${esc(t.name)}</td><td>${esc(t.goal)}</td><td>${esc(t.value)}${t.details.length ? `<details><summary>details</summary><ul>${t.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></details>` : ''}</td><td>${t.met === null ? 'n/a' : t.met ? 'met' : 'missed'}</td></tr>`,
  );
  return scroll(
    `<table><tr><th class="wide">target</th><th>goal</th><th class="wide">measured</th><th></th></tr>${rows.join('')}</table>`,
  );
}

/** @param {Report} report */
function throughputTable(report) {
  const head = `<tr><th>case</th><th>bytes</th><th>Cleave plan</th>${SYSTEMS.map((s) => `<th class="num">${esc(s.short)}</th>`).join('')}</tr>`;
  const rows = report.results
    .filter((r) => !r.case.cold)
    .map(
      (r) =>
        `<tr><td class="id">${esc(r.case.id)}</td><td class="num">${bytesText(r.case.bytes)}</td><td class="num">${esc(planText(r.systems['cleave-gpu']?.stats))}</td>${SYSTEMS.map((s) => `<td class="num">${gbpsCell(r, s.key)}</td>`).join('')}</tr>`,
    );
  return scroll(`<table>${head}${rows.join('')}</table>`);
}

/** @param {CaseRecord} r @param {import('../../types.js').SystemKey} key */
function gbpsCell(r, key) {
  const s = r.systems[key];
  if (!s) return '';
  if (s.skip) return 'n/a';
  if (!s.ok) return '<span class="err">failed</span>';
  return s.stats?.strategy === 'alias' ? '0 B moved' : gbps(throughput(r, key));
}

function legend() {
  return `<div class="legend"><span><b>How to read a case chart</b> (log scale):</span>
<span><svg class="key" viewBox="0 0 12 10"><rect x="0" y="2" width="12" height="6" fill="#1f6feb"/></svg> bar: median wall time per split</span>
<span><svg class="key" viewBox="0 0 12 10"><path d="M1 1v8M1 5H11M11 1v8" stroke="#222" fill="none"/></svg> whisker: fastest and slowest batch</span>
<span><svg class="key" viewBox="0 0 12 10">${gpuMarker(6, 1)}</svg> median GPU time (timestamp queries; none when the split submits nothing)</span>
<span>numbers right of a bar: median wall (GPU) ms</span><span>faded bar, "cpu": ORT on its CPU EP</span></div>`;
}

/** @param {CaseRecord} r */
function caseBlock(r) {
  const c = r.case;
  const notes = [
    c.note,
    ...r.notes,
    r.crashed && `page failed: ${r.crashed}`,
    r.cpuPathError && `CPU path: ${r.cpuPathError}`,
    ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`),
  ].filter(Boolean);
  const shown = SYSTEMS.flatMap((s) =>
    r.systems[s.key] ? [{ s, v: /** @type {SystemResult} */ (r.systems[s.key]) }] : [],
  );
  return `<section id="${esc(c.id)}"><h3>${esc(c.id)}</h3>
<p class="muted">${esc(shortShape(c))} · ${c.op}${c.cold ? ' · cold start' : ''} · ${c.outputs} output(s) · ${bytesText(c.bytes)} · ${c.contiguous ? 'contiguous chunks (compared with the copy limit)' : 'strided chunks (compared with the shader-copy limit)'} · ${r.reps ?? '?'} rep(s)</p>
${notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}
${caseChart(r)}
${scroll(`<table><tr><th>system</th><th class="num">ms per split: median [min–max] n ×batch</th><th class="num">GPU ms</th><th class="num">GB/s</th><th>status</th><th>Cleave plan</th><th>GPU calls in one split</th></tr>${shown.map(({ s, v }) => systemRow(r, s, v)).join('')}</table>`)}
${messages(shown)}</section>`;
}

/**
 * What each system said when it failed, could not run, or ran on ORT's CPU EP: in full, wrapped.
 * @param {{ s: (typeof SYSTEMS)[number], v: SystemResult }[]} shown
 */
function messages(shown) {
  const items = shown.flatMap(({ s, v }) => [
    ...(v.skip ? [`<li><b>${esc(s.label)}</b>: ${esc(v.skip)}</li>`] : []),
    ...(!v.ok && !v.skip ? [`<li class="errtext"><b>${esc(s.label)} failed</b>: ${esc(v.error)}</li>`] : []),
    ...(v.webgpuError
      ? [
          `<li class="warn errtext"><b>${esc(s.label)}</b>: ORT's WebGPU EP refused this graph, so this ran on ORT's CPU EP. ORT said: ${esc(v.webgpuError)}</li>`,
        ]
      : []),
  ]);
  return items.length ? `<ul class="msgs">${items.join('')}</ul>` : '';
}

/**
 * @param {CaseRecord} r @param {(typeof SYSTEMS)[number]} s @param {SystemResult} v
 */
function systemRow(r, s, v) {
  const status = v.skip
    ? 'n/a (below)'
    : !v.ok
      ? '<span class="err">failed (below)</span>'
      : `${v.verified ? 'verified' : 'ran'}${v.fallback ? ', <span class="warn">on ORT\'s CPU EP (below)</span>' : ''}`;
  const plan = v.stats ? `${esc(planText(v.stats))}, ${v.stats.commands} cmd` : '';
  const calls = v.calls
    ? esc(
        `${v.calls.submits} submit, ${v.calls.copies} copy, ${v.calls.dispatches} dispatch, ${v.calls.buffersCreated} createBuffer, ${v.calls.bindGroups} bindGroup, ${v.calls.writeBuffers} writeBuffer, ${v.calls.mapAsyncs} mapAsync`,
      )
    : '';
  const wall = v.wall
    ? `${ms(v.wall.median)} <span class="muted">[${ms(v.wall.min)}–${ms(v.wall.max)}] n=${v.wall.n}${v.batch ? ` ×${v.batch}` : ''}${v.first !== undefined ? `, first ${ms(v.first)}` : ''}</span>`
    : '';
  const gpu = v.gpu ? `${ms(v.gpu.median)} <span class="muted">[${ms(v.gpu.min)}–${ms(v.gpu.max)}]</span>` : '';
  return `<tr><td class="name"><span class="sw" style="background:${s.color}"></span>${esc(s.short)}</td><td class="num">${wall}</td><td class="num">${gpu}</td><td class="num">${r.case.cold ? '' : gbpsCell(r, s.key)}</td><td class="num">${status}</td><td class="num">${plan}</td><td class="small">${calls}</td></tr>`;
}
