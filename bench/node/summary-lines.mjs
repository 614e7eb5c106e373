// The summary lines of one bench:node run, for device-run.sh's summary.txt: its decode step (per engine, the host
// ratios against the replayed calls and the counts), its cases (the default plan against
// the copy limit and the fastest strategy forced, what failed), each peer (in how many cases it ran verified on
// WebGPU, on a CPU path, failed or could not, and its time over Cleave's), the large splits in GB/s beside the
// limits, and each pipeline and decode loop against ORT's whole graph with its calls per step. Pure: a results
// file's contents in, lines out.

import { geomean } from '../lib/findings.mjs';
import { decodeFailures, decodeRows } from '../lib/report/decode.mjs';
import { decodeStepLines } from '../lib/report/decode-step.mjs';
import { medianOf, ratioOf } from '../lib/ratios.mjs';

/** @import { CallCounts, NodeCaseRecord, NodeReport, SystemResult } from '../types.js' */

/** @param {number | undefined} v */
const x = (v) => (v === undefined || !Number.isFinite(v) ? '-' : `${v.toFixed(2)}x`);
/** @param {number | undefined} v */
const g = (v) => (v === undefined || !Number.isFinite(v) ? '-' : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** @param {readonly number[]} v */
export function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0
    ? undefined
    : s.length % 2
      ? s[m]
      : /** @type {number} */ (s[m - 1] + /** @type {number} */ (s[m])) / 2;
}

/** @param {NodeReport} r */
export const adapterOf = (r) =>
  `${r.adapter.vendor}/${r.adapter.architecture}/${r.adapter.description || r.adapter.device} (ICD ${r.icd})`;

/** The splits from this size on are the large ones: GB/s, not the calls, is their figure. */
const LARGE = 64 << 20;

/** @template T @param {readonly (T | undefined)[]} xs @returns {T[]} */
const defined = (xs) => /** @type {T[]} */ (xs.filter((v) => v !== undefined));

/** Whether a system ran and matched the reference on WebGPU. @param {SystemResult | undefined} s */
const onGpu = (s) => !!s?.ok && s.verified && !s.fallback;

/**
 * Every line of a run: `name` (the step) first in each.
 * @param {string} name @param {NodeReport} r @returns {string[]}
 */
export function runLines(name, r) {
  const steps = (r.decodeSteps ?? []).flatMap((d) => decodeStepLines(name, d));
  const lines = r.cases.length ? [casesLine(name, r), ...peerLines(name, r.cases), ...largeLines(name, r.cases)] : [];
  return [...steps, ...lines, ...modelLines(name, r)];
}

/** @param {string} name @param {NodeReport} r */
function casesLine(name, r) {
  const ran = r.cases.filter((c) => !c.skipped);
  const own = (/** @type {string} */ k) => k !== 'ort' && k !== 'tfjs';
  const failed = ran
    .filter((c) => c.gpuErrors.length || Object.entries(c.systems).some(([k, s]) => own(k) && s?.error))
    .map((c) => c.case.id);
  const over = (/** @type {'wall' | 'gpu'} */ k) => x(median(defined(ran.map((c) => c.ratios[k].copyLimit))));
  const best = ran.flatMap((c) => {
    const v = c.ratios.wall.bestForced;
    return v === undefined ? [] : [{ v, id: c.case.id }];
  });
  const worst = best.reduce((a, b) => (b.v > a.v ? b : a), best[0] ?? { v: NaN, id: '-' });
  const skipped = r.cases.length - ran.length;
  return (
    `${name}: ${adapterOf(r)}; ${ran.length} cases${skipped ? ` (${skipped} over the device's limits)` : ''}; ` +
    `the default plan over the copy limit, median: wall ${over('wall')}, GPU ${over('gpu')}; over the fastest ` +
    `strategy forced, wall: median ${x(median(best.map((b) => b.v)))}, worst ${x(worst.v)} (${worst.id}); ` +
    `failed: ${failed.join(', ') || 'none'}${r.timestamps ? '' : "; no GPU time (no 'timestamp-query'): wall only"}`
  );
}

/**
 * Each peer: where it ran, and its time over Cleave's.
 * @param {string} name @param {readonly NodeCaseRecord[]} cases
 */
export function peerLines(name, cases) {
  return /** @type {const} */ ([
    ['ort', 'ORT Web', 'on its CPU EP'],
    ['tfjs', 'TF.js', 'on its CPU path'],
  ]).flatMap(([key, peer, cpu]) => {
    const all = cases.filter((c) => !c.skipped).map((c) => ({ c, s: c.systems[key] }));
    if (all.every(({ s }) => !s || s.skip === 'n/a: --no-peers')) return [];
    const gpu = all.filter(({ s }) => onGpu(s));
    // As the page's findings: the mean over the cases where Cleave does GPU work; where its outputs are views
    // (alias: nothing submitted), a peer's time over Cleave's says what a call costs, and is given apart.
    const views = (/** @type {{ c: NodeCaseRecord }} */ { c }) => c.systems.cleave?.stats?.strategy === 'alias';
    const ratio = (/** @type {'wall' | 'gpu'} */ k, /** @type {boolean} */ alias) => {
      const v = defined(
        gpu.filter((x) => views(x) === alias).map(({ c, s }) => ratioOf(medianOf(s, k), medianOf(c.systems.cleave, k))),
      );
      return v.length ? `${x(geomean(v))} over ${v.length}` : '-';
    };
    const count = (/** @type {(s: SystemResult) => boolean} */ f) => all.filter(({ s }) => s && f(s)).length;
    const ids = gpu.map(({ c }) => c.case.id).join(', ') || 'none';
    return [
      `${name}: ${peer} verified on WebGPU in ${gpu.length} of ${all.length} cases (${ids}); its time over ` +
        `Cleave's, geometric mean where Cleave does GPU work: wall ${ratio('wall', false)}, GPU ` +
        `${ratio('gpu', false)}; where Cleave's outputs are views: wall ${ratio('wall', true)}; ${cpu} ` +
        `${count((s) => s.ok && !!s.fallback)}, ERR ${count((s) => !s.ok && !s.skip)}, n/a ${count((s) => !!s.skip)}`,
    ];
  });
}

/** The large splits in GB/s (read plus written), beside the limits. @param {string} name
 * @param {readonly NodeCaseRecord[]} cases */
function largeLines(name, cases) {
  return cases
    .filter((c) => c.case.bytes >= LARGE)
    .map((c) => {
      if (c.skipped) return `${name}: ${c.case.id}: skipped, ${c.skipped}`;
      const rate = (/** @type {SystemResult | undefined} */ s, /** @type {'wall' | 'gpu'} */ k) => {
        const t = medianOf(s, k);
        return t && t > 0 ? (2 * c.case.bytes) / (t * 1e6) : undefined;
      };
      const keys = /** @type {const} */ (['cleave', 'copy-limit', 'shader-limit', 'ort', 'tfjs']);
      const each = keys.map((k) => {
        const s = c.systems[k];
        const state = !s ? '-' : s.skip ? 'n/a' : !s.ok ? 'ERR' : `${g(rate(s, 'wall'))} (GPU ${g(rate(s, 'gpu'))})`;
        return `${k} ${state}${s?.fallback ? ' cpu' : ''}`;
      });
      const share = (/** @type {'wall' | 'gpu'} */ k) => {
        const [a, b] = [rate(c.systems.cleave, k), rate(c.systems['copy-limit'], k)];
        return a && b ? `${((100 * a) / b).toFixed(0)}%` : '-';
      };
      return (
        `${name}: ${c.case.id}: GB/s read + written, wall (GPU): ${each.join(', ')}; Cleave at ${share('wall')} ` +
        `of the copy limit's wall GB/s (GPU ${share('gpu')})`
      );
    });
}

/** session.run, submits and dispatches per step. @param {CallCounts | undefined} c @param {number} steps */
const perStep = (c, steps) =>
  c
    ? [c.sessionRuns, c.submits, c.dispatches].map((v) => (v === undefined ? '-' : +(v / steps).toFixed(2))).join('/')
    : '-';

/** Pipelines and decode loops against ORT's whole graph. @param {string} name @param {NodeReport} r */
function modelLines(name, r) {
  const pipes = (r.pipelines ?? []).map((p) => {
    const [whole, via] = [p.systems['ort-whole'], p.systems['cleave-pipeline']];
    const ratio = ratioOf(medianOf(via, 'wall'), medianOf(whole, 'wall'));
    const state = via?.ok ? `${x(ratio)} ORT's whole graph` : `FAILED (${via?.error ?? 'did not run'})`;
    return (
      `${name}: ${p.id}: ORT -> Cleave -> ORT ${state}; per inference session.run/submits/dispatches: ` +
      `whole ${perStep(whole?.calls, 1)}, via Cleave ${perStep(via?.calls, 1)}`
    );
  });
  const loops = decodeRows(r.decodes ?? []).map(({ r: d, systems }) => {
    const steps = d.decode.steps.length;
    const each = systems.slice(1).map((s) => `${s.key.replace('cleave-', '')} ${x(s.ratio)}`);
    const counts = systems.map((s) => `${s.key} ${perStep(s.s?.calls, steps)}`);
    const match = decodeFailures(d).length ? `FAILED: ${decodeFailures(d).join('; ')}` : 'every step matches';
    return (
      `${name}: ${d.id}: per step over ORT's whole graph: ${each.join(', ')}; ${match}; per step ` +
      `session.run/submits/dispatches: ${counts.join(', ')}`
    );
  });
  return [...pipes, ...loops];
}
