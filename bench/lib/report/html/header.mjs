// The top of the HTML report: what ran (adapter, browser or Node, versions, machine, command) and what its absolute
// figures are worth: on SwiftShader, a CPU driver, little about a GPU.

import { adapterOf } from '../../findings.mjs';
import { ms } from '../format.mjs';
import { esc } from './markup.mjs';

/** @import { NodeReport, PageEnv, Report } from '../../../types.js' */

/** @param {readonly [string, string][]} rows  term, description (text) */
const facts = (rows) => `<dl class="env">${rows.map(([t, d]) => `<dt>${esc(t)}</dt><dd>${esc(d)}</dd>`).join('')}</dl>`;

/** @param {boolean} software @param {boolean} counted  GPU calls were counted per split (--probes) */
function caveat(software, counted) {
  const counts = counted ? ', and the GPU calls counted per split, which carry over to any GPU' : '';
  const text = software
    ? 'SwiftShader is a CPU driver: it runs the shaders on the CPU, so the absolute figures here (ms, GB/s) say ' +
      `little about a GPU. Compare systems within this run (their ratios)${counts}.`
    : "The absolute figures are this adapter's; compare systems within one run.";
  return `<p class="caveat">${esc(text)}</p>`;
}

/** The browser that ran the page: recorded, else read from the user agent. @param {PageEnv} env */
export function browserOf(env) {
  if (env.browser) return `${env.browser.name === 'firefox' ? 'Firefox' : 'Chromium'} ${env.browser.version}`;
  const ua = env.userAgent ?? '';
  const firefox = /Firefox\/(\S+)/.exec(ua);
  if (firefox) return `Firefox ${firefox[1]}`;
  const chrome = /Chrome\/(\S+)/.exec(ua);
  return chrome ? `Chromium ${chrome[1]} (from its user agent)` : ua || 'unknown';
}

/** @param {{ cpus: number, cpuModel?: string | undefined, loadavg: number[], node: string }} m */
const machineText = (m) =>
  `${m.cpus} CPU(s)${m.cpuModel ? ` (${m.cpuModel})` : ''}, load ${m.loadavg.map((l) => l.toFixed(1)).join(' ')} at ` +
  `the end; Node ${m.node}`;

/** The page run's header. @param {Report} r */
export function pageHeader(r) {
  const a = adapterOf(r.env);
  const s = r.settings;
  const how = [/--quick\b/.test(r.command) ? 'quick' : '', s.probes ? 'probes' : ''].filter(Boolean).join(', ');
  return `<h1>Cleave bench</h1>
<p class="meta">${esc(r.startedAt)} · ${esc(r.seconds.toFixed(0))} s · <code>${esc(r.command)}</code></p>
${facts([
  ['Adapter', a.text],
  ['Browser', browserOf(r.env)],
  ['Timestamp queries', r.env.timestampQuery ? 'yes: GPU time measured' : 'no: wall time only'],
  ['Peers', `ONNX Runtime Web ${r.env.ort['web'] ?? '-'}, TensorFlow.js ${r.env.tfjs ?? '-'}`],
  ['Machine', machineText(r.machine)],
  [
    'Run',
    `${how || 'full'}; budget ${s.budgetMs} ms per system per case; cross-origin isolated: ` +
      `${r.env.crossOriginIsolated ? 'yes' : 'no'}`,
  ],
])}
${caveat(a.software, s.probes)}`;
}

/** The Node run's header. @param {NodeReport} r */
export function nodeHeader(r) {
  const a = r.adapter;
  const name = [a.vendor, a.architecture].filter(Boolean).join('/') || 'unknown adapter';
  const software = /swiftshader/i.test(`${a.architecture} ${a.description} ${a.device} ${r.icd}`);
  const costs = Object.entries(r.costs ?? {}).map(([k, v]) => `${k} ${ms(v)}`);
  const command = r.parts ? `${r.parts.length} runs merged` : ['node bench/node/run.mjs', ...r.args].join(' ');
  return `<h1>Cleave bench in Node</h1>
<p class="meta">${esc(r.started)} · <code>${esc(command)}</code></p>
${facts([
  ['Adapter', `${name}${a.description || a.device ? ` (${a.description || a.device})` : ''}`],
  ['Runtime', `Node ${r.node}, Dawn (the webgpu package); VK_ICD_FILENAMES ${r.icd}`],
  ['Timestamp queries', r.timestamps ? 'yes: GPU time measured' : 'no: wall time only'],
  ['Cost model (calibrated)', costs.join(', ') || '-'],
  ...(r.peers ? [/** @type {[string, string]} */ (['Peers', peersText(r.peers)])] : []),
  ...(r.parts ?? []).map((p) => /** @type {[string, string]} */ ([`Run "${p.name}"`, partText(p)])),
])}
${caveat(software, false)}`;
}

/** The peers loaded and their warm-up, or why not. @param {import('../../../types.js').PeerInfo} peers */
function peersText(peers) {
  const one = (/** @type {string} */ name, /** @type {import('../../../types.js').PeerLoad | undefined} */ p) =>
    !p
      ? `${name}: not asked for (--no-peers)`
      : p.error
        ? `${name}: not loaded (${p.error})`
        : `${name} ${p.version}, loaded and run once off the clock in ${ms(p.warmUpS)} s`;
  return `${one('ONNX Runtime Web (WebGPU EP)', peers.ort)}; ${one('TF.js (WebGPU backend)', peers.tfjs)}`;
}

/** One run of a campaign's file. @param {import('../../../types.js').NodePart} p */
const partText = (p) =>
  `${p.args.join(' ') || '(no options)'}; ${p.started}; ${p.cases} cases, ${p.pipelines} pipelines, ` +
  `${p.decodes} decode loops, ${p.callCosts} per-call records`;

/**
 * The device's features and limits and the run's settings, folded away.
 * @param {readonly string[]} features @param {Record<string, number>} limits @param {unknown} settings
 */
export function deviceDetails(features, limits, settings) {
  const rows = Object.entries(limits).map(([k, v]) => `${k} ${v}`);
  return `<details><summary>Device features and limits, settings</summary>
<p>${esc(`Features: ${features.join(', ') || '-'}. Limits: ${rows.join(', ')}.`)}</p>
<p>${esc(`Settings: ${JSON.stringify(settings)}`)}</p></details>`;
}
