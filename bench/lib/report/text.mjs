// The run in words and plain-text tables: the findings (one source for the terminal and
// report.html), the main table, throughput, the targets, and the one-line progress per case.

import { adapterOf, packedVsPeer, scopeCosts, throughput, versusOrt } from '../findings.mjs';
import { SYSTEMS, bytesText, cellText, gbps, ms, planText, shortShape, times } from './format.mjs';

/** @import { BenchCase, CaseResult, Report } from '../../types.js' */

/** What "GB/s" counts, said wherever a GB/s figure appears. */
export const GBPS_RULE = 'GB/s: the tensor\'s bytes (each delivered once into an output; reads and writes not counted twice) '
  + 'per median wall second, 10^9 bytes; a zero-copy split moves 0 bytes and has none';

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
  const v = versusOrt(report.results);
  /** @param {import('../findings.mjs').OrtRow[]} xs */
  const list = (xs) => xs.map((x) => `${x.id} ${times(x.ratio)} (Cleave ${ms(x.cleaveMs)} ms, ORT ${ms(x.ortMs)} ms)`).join('; ');
  const out = [{ title: 'Headline', text: v.headline === undefined ? 'no case where Cleave does GPU work was run against ORT on WebGPU'
    : `GPU-resident Cleave is ${times(v.headline)} faster than GPU-resident ORT Web (geometric mean of wall-time ratios) over the ${v.gpuWork.length} case(s) where Cleave does GPU work and ORT runs on its WebGPU EP: ${list(v.gpuWork)}.` }];
  if (v.zeroCopy.length) {
    out.push({ title: 'Zero-copy cases (not in the headline)', text: `In ${v.zeroCopy.length} case(s) Cleave's outputs are views of the input (strategy alias): no GPU work at all, so the ratio compares ORT's copy with making views: ${list(v.zeroCopy)}.` });
  }
  if (v.cpuEp.length) out.push({ title: 'ORT on its CPU EP (not in the headline)', text: `${list(v.cpuEp)}.` });
  for (const p of packedVsPeer(report.results)) out.push({ title: `${p.case.case.dtype} against ${p.peer?.case.dtype ?? 'its peer'}`, text: packedSentence(p) });
  for (const s of scopeCosts(report.results)) {
    out.push({ title: 'Error scopes', text: `Cleave wraps every split in pushErrorScope('out-of-memory') + pushErrorScope('validation') and awaits both pops. `
      + `A loop of empty submits takes ${ms(s.withUs.median)} µs per iteration with that pair and ${ms(s.withoutUs.median)} µs without (medians of ${s.withUs.n} loops of ${s.loops}): `
      + `about ${ms(s.costUs)} µs per split, against ${ms(s.splitUs)} µs for the tiny GPU-resident split (${s.id}).` });
  }
  return out;
}

/** @param {ReturnType<typeof packedVsPeer>[number]} p */
function packedSentence(p) {
  /** @param {import('../../types.js').CaseRecord} r */
  const of = (r) => {
    const s = r.systems['cleave-gpu'];
    return `${r.case.dtype}: ${bytesText(r.case.bytes)}, ${ms(s?.wall?.median)} ms (GPU ${ms(s?.gpu?.median)} ms), ${gbps(throughput(r, 'cleave-gpu'))} GB/s, ${planText(s?.stats)}`;
  };
  if (!p.peer) return `${of(p.case)}; its peer ${p.case.case.sameElementsAs} is not in this run.`;
  return `Same ${p.case.case.numel} elements and split, GPU-resident Cleave. ${of(p.case)}; ${of(p.peer)}. `
    + `Time ${p.timeRatio === undefined ? '-' : times(p.timeRatio)} the ${p.peer.case.dtype} case's for ${times(p.case.case.bytes / p.peer.case.bytes)} its bytes.`;
}

/** @param {readonly (readonly string[])[]} rows  the first is the header; columns after the second right-aligned */
function table(rows) {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, j) => {
    const line = r.map((v, i) => (i < 2 ? String(v).padEnd(widths[i] ?? 0) : String(v).padStart(widths[i] ?? 0))).join('  ');
    return j === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
  }).join('\n');
}

/** @param {Report} report */
export function renderTable(report) {
  const rows = [['case', 'split', 'plan', 'cmds', ...SYSTEMS.map((s) => s.short)]];
  for (const r of report.results) {
    const st = r.systems['cleave-gpu']?.stats;
    rows.push([r.case.id, shortShape(r.case), `${planText(st)}${r.case.cold ? ' cold' : ''}`, st ? String(st.commands) : '-',
      ...SYSTEMS.map((s) => cellText(r.systems[s.key]))]);
  }
  return 'Median ms per split: wall (GPU time). GPU-resident systems: wall = batch of splits + one onSubmittedWorkDone, per split.\n'
    + '"cpu": ORT ran on its CPU EP (its WebGPU EP refused the graph). n/a: the system cannot run the case. plan and cmds: Cleave GPU-resident\'s\n'
    + 'strategy (gather unit in bits; 1-bit = the bit-level variant) and GPU commands per split. cold row: first call on a fresh device.\n\n'
    + table(rows);
}

/** @param {Report} report */
export function renderThroughput(report) {
  const rows = [['case', 'bytes', ...SYSTEMS.map((s) => s.short)]];
  for (const r of report.results.filter((x) => !x.case.cold)) {
    rows.push([r.case.id, bytesText(r.case.bytes), ...SYSTEMS.map((s) => (r.systems[s.key]?.stats?.strategy === 'alias' ? '0 B' : gbps(throughput(r, s.key))))]);
  }
  return `${GBPS_RULE}.\n\n${table(rows)}`;
}

/** @param {Report} report */
export function renderFindings(report) {
  return [adapterSentence(report), ...findings(report).map((f) => `${f.title}: ${f.text}`)].join('\n\n');
}

/** @param {Report} report */
export function renderTargets(report) {
  const rows = report.targets.map((t) => [t.name, `goal ${t.goal}`, `measured ${t.value}`, t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED']);
  const pipes = report.final ? `\nPipelines: Cleave compiled ${report.final.cleavePipelines} on the shared device; live Cleave buffers at the end: ${report.final.liveBuffers}.` : '';
  return `Targets (issue 4):\n${rows.map((r) => `- ${r.join(' | ')}`).join('\n')}${pipes}`;
}

/**
 * One line per finished case for the progress log.
 * @param {BenchCase} c @param {CaseResult} r
 */
export function progressLine(c, r) {
  /** @param {import('../../types.js').SystemKey} k */
  const cell = (k) => cellText(r.systems[k]);
  const st = r.systems['cleave-gpu']?.stats;
  return `${c.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  Cleave ${cell('cleave-gpu')} / host ${cell('cleave-host')} ms`
    + `  ORT ${cell('ort-gpu')} / host ${cell('ort-host')} ms  copy ${cell('copy-limit')}  shader ${cell('shader-limit')} ms`
    + (st ? `  [${planText(st)}, ${st.commands} cmd]` : '');
}
