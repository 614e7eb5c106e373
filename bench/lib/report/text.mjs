// The run in words and plain-text tables: the findings (one source for the terminal and
// report.html), the main table, throughput, the targets, and the one-line progress per case.

import {
  adapterOf,
  callCostRows,
  packedVsPeer,
  pipelineRows,
  planChoiceRows,
  scopeCosts,
  throughput,
  PEERS,
  versusPeer,
} from '../findings.mjs';
import { SYSTEMS, bytesText, cellText, gbps, ms, near1, planText, shortShape, times } from './format.mjs';
import { decodeFindings } from './decode.mjs';

/** @import { BenchCase, CallCostResult, CaseResult, PipelineResult, Report } from '../../types.js' */

/** What "GB/s" counts, said wherever a GB/s figure appears. */
export const GBPS_RULE =
  "GB/s: the tensor's bytes (each delivered once into an output; reads and writes not counted twice) " +
  'per median wall second, 10^9 bytes; a zero-copy split moves 0 bytes and has none';

/** @param {Report} report */
export function adapterSentence(report) {
  const a = adapterOf(report.env);
  return a.software
    ? `Adapter: ${a.text}. SwiftShader is a software Vulkan driver: it runs the shaders on the CPU, so absolute figures (ms, GB/s) say little about a GPU; ratios between systems within this run do.`
    : `Adapter: ${a.text}.`;
}

/**
 * The findings as titled sentences: the headline against ORT, zero-copy cases, CPU-EP cases,
 * packed dtypes against uint8, and the error-scope cost.
 * @param {Report} report
 * @returns {{ title: string, text: string }[]}
 */
export function findings(report) {
  /** @type {{ title: string, text: string }[]} */
  const out = [];
  for (const peer of PEERS) out.push(...versusFindings(report, peer));
  for (const p of packedVsPeer(report.results))
    out.push({ title: `${p.case.case.dtype} against ${p.peer?.case.dtype ?? 'its peer'}`, text: packedSentence(p) });
  for (const s of scopeCosts(report.results)) out.push({ title: 'Error scopes', text: scopeSentence(s) });
  for (const p of pipelineRows(report.pipelines)) out.push({ title: `Pipeline ${p.id}`, text: pipelineSentence(p) });
  out.push(...decodeFindings(report));
  const calls = callCostRows(report.callCosts);
  if (calls.length) out.push({ title: 'Per-call cost', text: callCostSentence(calls) });
  return out;
}

/**
 * The headline against one peer (ORT Web, TF.js), its zero-copy cases, and ORT's CPU-EP cases.
 * @param {Report} report @param {(typeof PEERS)[number]} peer
 */
function versusFindings(report, peer) {
  const v = versusPeer(report.results, peer.key);
  const isOrt = peer.key === 'ort-gpu';
  /** @param {import('../findings.mjs').PeerRow[]} xs */
  const list = (xs) =>
    xs
      .map((x) => `${x.id} ${times(x.ratio)} (Cleave ${ms(x.cleaveMs)} ms, ${peer.name} ${ms(x.peerMs)} ms)`)
      .join('; ');
  const where = `where Cleave does GPU work${isOrt ? ' and ORT runs on its WebGPU EP' : ''}`;
  const out = [
    {
      title: `Headline, Cleave vs ${peer.name}`,
      text:
        v.headline === undefined
          ? `no case ${where} was run against ${peer.name} on WebGPU`
          : `GPU-resident Cleave is ${times(v.headline)} faster than GPU-resident ${peer.name} (geometric mean of wall-time ratios) over the ${v.gpuWork.length} case(s) ${where}: ${list(v.gpuWork)}.`,
    },
  ];
  if (v.zeroCopy.length) {
    out.push({
      title: `Zero-copy cases against ${peer.name} (not in the headline)`,
      text: `In ${v.zeroCopy.length} case(s) Cleave's outputs are views of the input (strategy alias): no GPU work at all, so the ratio compares ${peer.name}'s copy with making views: ${list(v.zeroCopy)}.`,
    });
  }
  if (v.cpuEp.length) out.push({ title: 'ORT on its CPU EP (not in the headline)', text: `${list(v.cpuEp)}.` });
  return out;
}

/** @param {ReturnType<typeof scopeCosts>[number]} s */
function scopeSentence(s) {
  const pair =
    `The pair alone, on a loop of empty submits: ${ms(s.withUs.median)} µs per iteration with it and ${ms(s.withoutUs.median)} µs without ` +
    `(about ${ms(s.pairUs)} µs; medians of ${s.withUs.n} loops of ${s.loops}).`;
  const rule =
    "A split of a caller's buffer runs inside pushErrorScope('out-of-memory') + pushErrorScope('validation') and waits for both pops; " +
    "a split of the engine's own buffer, its buffers all from the pool, skips them.";
  if (!s.ownedUs || !s.callerUs)
    return `${rule} The split with a caller's buffer was not timed: ${s.callerError ?? 'no figure'}. ${pair}`;
  return (
    `${rule} The tiny GPU-resident split (${s.id}, each call awaited, outputs released) takes ${ms(s.ownedUs.median)} µs with an engine-owned input ` +
    `(${s.ownedStrategy}, no scopes) and ${ms(s.callerUs.median)} µs with the same bytes in a caller's buffer (${s.callerStrategy}, inside the scopes): ` +
    `${times(s.callerUs.median / s.ownedUs.median)}, the round trip costing about ${ms(s.roundTripUs)} µs per split. ${pair}`
  );
}

/** @param {ReturnType<typeof pipelineRows>[number]} p */
function pipelineSentence(p) {
  const { r } = p;
  const pl = r.pipeline;
  const shape = `x [1, ${pl.seq}, ${pl.width}] -> MatMul -> qkv [1, ${pl.seq}, ${3 * pl.hidden}] -> Split into ${pl.parts} -> ${pl.heads === 1 ? '(q·kᵀ)·v + v' : `${pl.heads} heads of (q·kᵀ)·v, concatenated`}`;
  const cpu = `ORT's whole graph on its CPU EP (host in/out): ${ms(p.cpuMs)} ms.`;
  const split = p.split
    ? ` Cleave's split of ORT's buffer: ${planText(p.split)}, ${p.split.commands} GPU command(s), inside error scopes (ORT's buffer is the caller's).`
    : '';
  const exact = pl.exact
    ? `the graph is exact in float32 here (no dot product's sum of |terms| reaches 2^24; the largest is ${pl.maxTermSum})`
    : `the graph is not exact in float32 here (a sum of |terms| reaches ${pl.maxTermSum}), so systems are compared within 1e-5`;
  const bits = Object.entries(r.bitExact)
    .map(([k, v]) => `${k} ${v ? 'bit for bit' : 'not bit for bit'}`)
    .join(', ');
  const checks = ` Each y against the reference computed in doubles in Node (${exact}): ${bits || 'none checked'}.`;
  if (p.viaError) return `${shape}. The pipeline through Cleave failed: ${p.viaError}.${checks}`;
  if (p.wholeError) {
    return `${shape}. ORT's whole graph failed on its WebGPU EP, which said: "${p.wholeError.trim()}". ORT A -> Cleave -> ORT B ran: ${ms(p.viaMs)} ms per inference. ${cpu}${split}${checks}`;
  }
  const verdict = p.ratio === undefined ? '' : p.ratio <= 1 ? ', no slower' : ', slower';
  const paired = r.pairedRatio
    ? ` (batch by batch: median ${near1(r.pairedRatio.median)}, from ${times(r.pairedRatio.min)} to ${times(r.pairedRatio.max)} over ${r.pairedRatio.n} reps)`
    : '';
  return (
    `${shape}. Median ms per inference, x in and y out on the GPU: ORT's whole graph ${ms(p.wholeMs)} ms; ORT A -> Cleave -> ORT B ${ms(p.viaMs)} ms, ` +
    `${p.ratio === undefined ? '-' : near1(p.ratio)} the whole graph's time${verdict}${paired}. ${cpu}${split}` +
    ` The pipeline's y equals the whole graph's bit for bit: ${r.sameBitsAsWhole === undefined ? 'not compared' : r.sameBitsAsWhole ? 'yes' : 'NO'}.${checks}`
  );
}

/** @param {ReturnType<typeof callCostRows>} rows */
function callCostSentence(rows) {
  const first = /** @type {(typeof rows)[number]} */ (rows[0]);
  const each = rows.map(
    ({ row: x, input, scopes, awaited }) =>
      `${x.fn} of an input ${input}: ${ms(x.us?.median)} µs (${planText(x.stats)}, ` +
      `${scopes === undefined ? 'error scopes not counted' : scopes ? `inside error scopes, ${awaited ? 'awaited' : 'settling after it resolved'}` : 'no error scopes'}` +
      `${x.syncUs ? `; ${ms(x.syncUs.median)} µs of it before the call returns its promise` : ''})${x.error ? ` [${x.error}]` : ''}`,
  );
  return (
    `JavaScript time per call, ${first.spec.dtype} [${first.spec.shape.join(', ')}] into ${first.spec.parts} along axis ${first.spec.axis}, ` +
    `median of ${first.row.us?.n ?? 0} rounds, ${first.row.calls} calls per variant in all, in chunks of ${first.chunk ?? '?'} with the GPU work drained between chunks ` +
    `off the clock. split: each call awaited and its outputs released; encodeSplit: the call alone (a chunk per encoder, submitted and released off the clock). ${each.join('; ')}.`
  );
}

/** @param {ReturnType<typeof packedVsPeer>[number]} p */
function packedSentence(p) {
  /** @param {import('../../types.js').CaseRecord} r */
  const of = (r) => {
    const s = r.systems['cleave-gpu'];
    return `${r.case.dtype}: ${bytesText(r.case.bytes)}, ${ms(s?.wall?.median)} ms (GPU ${ms(s?.gpu?.median)} ms), ${gbps(throughput(r, 'cleave-gpu'))} GB/s, ${planText(s?.stats)}`;
  };
  if (!p.peer) return `${of(p.case)}; its peer ${p.case.case.sameElementsAs} is not in this run.`;
  return (
    `Same ${p.case.case.numel} elements and split, GPU-resident Cleave. ${of(p.case)}; ${of(p.peer)}. ` +
    `Time ${p.timeRatio === undefined ? '-' : times(p.timeRatio)} the ${p.peer.case.dtype} case's for ${times(p.case.case.bytes / p.peer.case.bytes)} its bytes.`
  );
}

/** @param {readonly (readonly string[])[]} rows  the first is the header; columns after the second right-aligned */
function table(rows) {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r, j) => {
      const line = r
        .map((v, i) => (i < 2 ? String(v).padEnd(widths[i] ?? 0) : String(v).padStart(widths[i] ?? 0)))
        .join('  ');
      return j === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/** @param {Report} report */
export function renderTable(report) {
  const rows = [['case', 'split', 'plan', 'cmds', ...SYSTEMS.map((s) => s.short)]];
  for (const r of report.results) {
    const st = r.systems['cleave-gpu']?.stats;
    rows.push([
      r.case.id,
      shortShape(r.case),
      `${planText(st)}${r.case.cold ? ' cold' : ''}`,
      st ? String(st.commands) : '-',
      ...SYSTEMS.map((s) => cellText(r.systems[s.key])),
    ]);
  }
  return (
    'Median ms per split: wall (GPU time). GPU-resident systems: wall = batch of splits + one onSubmittedWorkDone, per split.\n' +
    '"cpu": ORT ran on its CPU EP (its WebGPU EP refused the graph). n/a: the system cannot run the case. plan and cmds: Cleave GPU-resident\'s\n' +
    'strategy (gather unit in bits; 1-bit = the bit-level variant) and GPU commands per split. cold row: first call on a fresh device.\n\n' +
    table(rows)
  );
}

/** The planner's plan beside each strategy forced, per case. @param {Report} report */
export function renderPlanChoice(report) {
  const rows = planChoiceRows(report.results);
  if (rows.length === 0) return '';
  const head = ['case', 'plan', 'default', 'alias', 'copy', 'gather', 'default / best', 'chosen / best'];
  const body = rows.map((x) => [
    x.id,
    x.chosen,
    ms(x.defaultMs),
    ...x.forced.map((f) =>
      f.ms === undefined ? 'n/a' : `${ms(f.ms)}${f.gpuMs === undefined ? '' : ` (${ms(f.gpuMs)})`}`,
    ),
    x.ratio === undefined ? '-' : `${x.ratio.toFixed(2)}x (${x.best})`,
    x.choiceRatio === undefined ? '-' : `${x.choiceRatio.toFixed(2)}x`,
  ]);
  return (
    "Plan choice: median ms per split, GPU-resident, of the planner's plan (default) and of each strategy forced (wall (GPU time));\n" +
    'n/a: the plan cannot take that strategy. Each forced strategy runs on an engine of its own, timed in turn with the others;\n' +
    "chosen / best: the planner's strategy forced over the fastest forced (engines of one kind: the choice alone).\n\n" +
    table([head, ...body])
  );
}

/** @param {Report} report */
export function renderThroughput(report) {
  const rows = [['case', 'bytes', ...SYSTEMS.map((s) => s.short)]];
  for (const r of report.results.filter((x) => !x.case.cold)) {
    rows.push([
      r.case.id,
      bytesText(r.case.bytes),
      ...SYSTEMS.map((s) => (r.systems[s.key]?.stats?.strategy === 'alias' ? '0 B' : gbps(throughput(r, s.key)))),
    ]);
  }
  return `${GBPS_RULE}.\n\n${table(rows)}`;
}

/** @param {Report} report */
export function renderPipelines(report) {
  const rows = pipelineRows(report.pipelines);
  if (!rows.length) return '';
  const head = [
    ['pipeline', 'split', 'ORT whole graph', 'ORT -> Cleave -> ORT', 'pipeline / whole', 'ORT CPU EP', 'y bit for bit'],
  ];
  const body = rows.map((p) => [
    p.id,
    `${p.r.pipeline.parts} parts, ${planText(p.split)}`,
    p.wholeError ? 'ERR' : cellText(p.r.systems['ort-whole']),
    cellText(p.r.systems['cleave-pipeline']),
    p.ratio === undefined ? '-' : near1(p.ratio),
    cellText(p.r.systems['ort-whole-cpu']),
    p.r.sameBitsAsWhole === undefined
      ? Object.values(p.r.bitExact).every(Boolean)
        ? 'ref: yes'
        : 'ref: NO'
      : p.r.sameBitsAsWhole
        ? 'yes'
        : 'NO',
  ]);
  return (
    'Pipelines: median ms per inference, wall (GPU time); x in and y out on the GPU (ORT CPU EP: host in/out). ERR: ORT failed (its error above).\n' +
    '"pipeline / whole" <= 1: the pipeline through Cleave is no slower. y bit for bit: the pipeline\'s y against the whole graph\'s (ref: against the reference, where the whole graph failed).\n\n' +
    table([...head, ...body])
  );
}

/** @param {Report} report */
export function renderCallCosts(report) {
  const rows = callCostRows(report.callCosts);
  if (!rows.length) return '';
  const head = [['function', 'input', 'plan', 'error scopes', 'µs per call', '[min-max]', 'sync µs', 'calls']];
  const body = rows.map(({ row: x, input, scopes, awaited }) => [
    x.fn,
    input,
    planText(x.stats),
    scopes === undefined ? '-' : scopes ? (awaited ? 'yes (awaited)' : 'yes (not awaited)') : 'no',
    x.error ? 'ERR' : ms(x.us?.median),
    x.us ? `${ms(x.us.min)}-${ms(x.us.max)}` : '-',
    ms(x.syncUs?.median),
    String(x.calls),
  ]);
  return (
    'Per-call cost: µs of JavaScript per call, median over rounds. split: call, await, release the outputs ("sync": before the call returns);\n' +
    'encodeSplit: the call alone. error scopes: whether the call pushed error scopes, and waited for them before it resolved (seen on one call).\n\n' +
    table([...head, ...body])
  );
}

/** @param {Report} report */
export function renderFindings(report) {
  return [adapterSentence(report), ...findings(report).map((f) => `${f.title}: ${f.text}`)].join('\n\n');
}

/** @param {Report} report */
export function renderTargets(report) {
  const rows = report.targets.map((t) => [
    t.name,
    `goal ${t.goal}`,
    `measured ${t.value}`,
    t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED',
  ]);
  const pipes = report.final
    ? `\nPipelines: Cleave compiled ${report.final.cleavePipelines} on the shared device; live Cleave buffers at the end: ${report.final.liveBuffers}.`
    : '';
  return `Targets:\n${rows.map((r) => `- ${r.join(' | ')}`).join('\n')}${pipes}`;
}

/** @param {PipelineResult} r */
export function pipelineLine(r) {
  /** @param {import('../../types.js').PipelineKey} k */
  const cell = (k) => cellText(r.systems[k]);
  return (
    `${r.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  ORT whole graph ${cell('ort-whole')}  ORT -> Cleave -> ORT ${cell('cleave-pipeline')}` +
    `  ORT CPU EP ${cell('ort-whole-cpu')} ms  same bits as whole: ${r.sameBitsAsWhole ?? '-'}`
  );
}

/** @param {CallCostResult} r */
export function callCostLine(r) {
  const rows = r.rows.map(
    (x) =>
      `${x.fn}${x.owner === 'caller' ? ' caller' : ''}${x.aligned ? '' : ' @4'} ${x.error ? 'ERR' : ms(x.us?.median)}`,
  );
  return `${r.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  µs per call: ${rows.join(', ')}`;
}

/**
 * One line per finished case for the progress log.
 * @param {BenchCase} c @param {CaseResult} r
 */
export function progressLine(c, r) {
  /** @param {import('../../types.js').SystemKey} k */
  const cell = (k) => cellText(r.systems[k]);
  const st = r.systems['cleave-gpu']?.stats;
  return (
    `${c.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  Cleave ${cell('cleave-gpu')} / host ${cell('cleave-host')} ms` +
    `  ORT ${cell('ort-gpu')} / host ${cell('ort-host')} ms  TF.js ${cell('tfjs-gpu')} ms  copy ${cell('copy-limit')}  shader ${cell('shader-limit')} ms` +
    (st ? `  [${planText(st)}, ${st.commands} cmd]` : '')
  );
}
