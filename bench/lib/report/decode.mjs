// The decode loops in the report: per step, each system's time and its ratio to ORT's whole graph (medians
// and the batch-by-batch ratio), the JavaScript in Cleave's part, the table, the progress line, and the
// failures that fail the run: a loop through Cleave that does not match the reference bit for bit, or does
// not run. B under ORT's graph capture is reported, never failed on: its split is the one of 'cleave-pipeline'.

import { cellText, ms, near1, planText, table } from './format.mjs';

/** @import { DecodeKey, DecodeRecord, DecodeResult, Report } from '../../types.js' */

/** @type {readonly { key: DecodeKey, name: string }[]} */
export const SYSTEMS = [
  { key: 'ort-whole', name: "ORT's whole graph" },
  { key: 'cleave-pipeline', name: 'ORT -> Cleave split -> ORT' },
  { key: 'cleave-encode', name: 'with encodeSplit' },
  { key: 'cleave-capture', name: 'with B under graph capture' },
];

/** Each loop's systems per step. @param {readonly DecodeRecord[]} decodes */
export function decodeRows(decodes) {
  return decodes.map((r) => {
    const n = r.decode.steps.length;
    const perStep = (/** @type {DecodeKey} */ k) => {
      const s = r.systems[k];
      return s?.ok && s.wall ? s.wall.median / n : undefined;
    };
    const whole = perStep('ort-whole');
    const systems = SYSTEMS.map(({ key, name }) => {
      const [step, s] = [perStep(key), r.systems[key]];
      const gpu = s?.ok && s.gpu ? s.gpu.median / n : undefined;
      const ratio = step !== undefined && whole !== undefined ? step / whole : undefined;
      return { key, name, s, step, gpu, ratio, paired: r.pairedRatio[key], js: r.jsCost[key] };
    });
    return { r, systems };
  });
}

/** Why a decode loop fails the run, else nothing. @param {DecodeRecord} r */
export function decodeFailures(r) {
  if (r.crashed) return [`${r.id}: the page failed: ${r.crashed}`];
  return SYSTEMS.flatMap(({ key }) => {
    const s = r.systems[key];
    if (key === 'cleave-capture') return [];
    if (!s) return [`${r.id} ${key}: did not run`];
    return s.ok && s.verified ? [] : [`${r.id} ${key}: ${s.error ?? 'not verified'}`];
  });
}

/** The decode loops in words. @param {Pick<Report, 'decodes'>} report */
export function decodeFindings(report) {
  return decodeRows(report.decodes).map(({ r, systems }) => {
    const [, ...cleave] = systems;
    const each = cleave.map(
      (x) => `${x.name} ${near1(x.ratio)}${x.paired ? ` (paired ${near1(x.paired.median)})` : ''}`,
    );
    const fails = decodeFailures(r);
    const capture = r.systems['cleave-capture'];
    const refused = capture && !capture.ok ? ` Graph capture: ${capture.error}.` : '';
    const checked = fails.length ? ` FAILED: ${fails.join('; ')}.` : ' Every step and both caches match the reference.';
    return `${r.id}: per step, over ORT's whole graph: ${each.join(', ')}.${refused}${checked}`;
  });
}

/** @param {Pick<Report, 'decodes'>} report */
export function renderDecodes(report) {
  const rows = decodeRows(report.decodes).map(({ r, systems }) => [
    r.id,
    [r.decode.prefill, ...(r.decode.decodeSteps ? [`${r.decode.decodeSteps}x1`] : [])].filter(Boolean).join(' + '),
    ...systems.flatMap((x, i) => {
      const cell = x.s?.ok ? `${ms(x.step)} (${ms(x.gpu)})` : x.s ? 'ERR' : '-';
      return i === 0 ? [cell] : [cell, near1(x.ratio)];
    }),
    ...['cleave-pipeline', 'cleave-encode'].map((k) => ms(r.jsCost[/** @type {DecodeKey} */ (k)]?.callUs.median)),
    planText(r.systems['cleave-pipeline']?.stats),
    decodeFailures(r).length ? 'NO' : 'yes',
  ]);
  if (rows.length === 0) return '';
  const head = ['decode loop', 'steps', ...SYSTEMS.flatMap((x, i) => (i === 0 ? [x.name] : [x.name, '/ whole']))];
  return (
    'Decode loops: median ms per step (the whole sequence over its steps), wall (GPU time); / whole: over\n' +
    "ORT's whole graph. JS µs: Cleave's part of a step (fromOrtTensor and the split call, until it resolved).\n" +
    "match: every step's y and both caches against the reference, bit for bit, before and after timing.\n\n" +
    table([[...head, 'JS µs split', 'encodeSplit', 'plan', 'match'], ...rows])
  );
}

/** @param {DecodeResult} r */
export const decodeLine = (r) =>
  `${r.id.padEnd(30)} ${ms(r.seconds)} s  ms per sequence: ` +
  SYSTEMS.map(({ key, name }) => `${name} ${cellText(r.systems[key])}`).join(', ');
