// The decode loops in the report: per-step figures of each system, the pipeline against ORT's
// whole graph (medians and the batch-by-batch ratio), the JavaScript cost of Cleave's part,
// graph capture's outcome in ORT's words, the terminal table, the progress line, the HTML section,
// and the failures that make a run fail (a decode loop that does not match the reference bit for
// bit, or does not run, fails `npm run bench`; ORT refusing graph capture is reported, not failed).

import { cellText, esc, ms, near1, planText } from './format.mjs';

/** @import { DecodeKey, DecodeRecord, DecodeResult, Report, SystemResult } from '../../types.js' */

/** @type {readonly { key: DecodeKey, label: string }[]} */
export const DECODE_SYSTEMS = [
  { key: 'ort-whole', label: "ORT's whole graph (past/present K/V)" },
  { key: 'cleave-pipeline', label: 'ORT A -> Cleave into the caches (split) -> ORT B' },
  { key: 'cleave-encode', label: 'the same with encodeSplit (an encoder of its own, submitted)' },
  { key: 'cleave-capture', label: 'the same with split, B with enableGraphCapture' },
];

/** The steps in words: '32 steps of one token', 'a step of 128 tokens, then 32 of one token'. @param {import('../../types.js').DecodeSpec} p */
export function stepsText(p) {
  const ones = `${p.decodeSteps} ${p.prefill ? '' : 'steps '}of one token`;
  if (!p.prefill) return ones;
  return p.decodeSteps ? `a step of ${p.prefill} tokens, then ${ones}` : `one step of ${p.prefill} tokens`;
}

/** A system's ms per step: its ms per sequence over the steps. @param {SystemResult | undefined} s @param {number} steps */
const perStep = (s, steps) => (s?.ok && s.wall ? s.wall.median / steps : undefined);

/**
 * Each decode loop's per-step figures.
 * @param {readonly DecodeRecord[] | undefined} decodes
 */
export function decodeRows(decodes) {
  return (decodes ?? []).map((r) => {
    const steps = r.decode.steps.length;
    const whole = perStep(r.systems['ort-whole'], steps);
    /** @param {DecodeKey} k */
    const of = (k) => {
      const s = r.systems[k];
      const step = perStep(s, steps);
      return {
        key: k,
        s,
        stepMs: step,
        gpuStepMs: s?.ok && s.gpu ? s.gpu.median / steps : undefined,
        ratio: step !== undefined && whole !== undefined ? step / whole : undefined,
        paired: r.pairedRatio[k],
        js: r.jsCost[k],
      };
    };
    return { r, id: r.id, steps, systems: DECODE_SYSTEMS.map((x) => of(x.key)) };
  });
}

/** Why a decode loop fails the run (a system that did not run or match bit for bit), else nothing. @param {DecodeRecord} r */
export function decodeFailures(r) {
  if (r.crashed) return [`${r.id}: the page failed: ${r.crashed}`];
  const out = [];
  for (const { key } of DECODE_SYSTEMS) {
    const s = r.systems[key];
    if (key === 'cleave-capture' && r.captureError) continue; // ORT refused graph capture: reported, not a failure
    if (!s) out.push(`${r.id} ${key}: did not run`);
    else if (!s.ok || !s.verified) out.push(`${r.id} ${key}: ${s.error ?? 'not verified'}`);
  }
  for (const [k, e] of Object.entries(r.afterTiming)) if (e) out.push(`${r.id} ${k}: ${e}`);
  return [...new Set(out)];
}

/** @param {ReturnType<typeof decodeRows>[number]['systems'][number]} x */
const stepCell = (x) =>
  !x.s || !x.s.ok ? (x.s ? 'ERR' : '-') : `${ms(x.stepMs)}${x.gpuStepMs !== undefined ? ` (${ms(x.gpuStepMs)})` : ''}`;

/** @param {ReturnType<typeof decodeRows>[number]['systems'][number] | undefined} x */
const ratioCell = (x) =>
  x?.ratio === undefined ? '-' : `${near1(x.ratio)}${x.paired ? ` (paired ${near1(x.paired.median)})` : ''}`;

/** @param {ReturnType<typeof decodeRows>[number]['systems'][number] | undefined} x */
const jsCell = (x) => (x?.js ? `${ms(x.js.callUs.median)} (sync ${ms(x.js.syncUs.median)})` : '-');

/** @param {DecodeResult} r */
const captureText = (r) =>
  r.captureError
    ? `ORT refused enableGraphCapture: "${r.captureError}"`
    : r.systems['cleave-capture']?.ok
      ? 'ORT accepted enableGraphCapture for B: measured'
      : `graph capture: ${r.systems['cleave-capture']?.error ?? 'not run'}`;

/** @param {DecodeResult} r */
const probesText = (r) => (r.captureProbes ?? []).map((x) => ` ${x.replace(/\.$/, '')}.`).join('');

/** The decode loops in words, for the findings. @param {Report} report @returns {{ title: string, text: string }[]} */
export function decodeFindings(report) {
  return decodeRows(report.decodes).map((d) => {
    const [w, c, e, g] = d.systems;
    const p = d.r.decode;
    const fails = decodeFailures(d.r);
    return {
      title: `Decode loop ${d.id}`,
      text:
        `${stepsText(p)}, D ${p.width}, ${p.heads} heads of ${p.headDim}, caches of ${p.tokens} slots; ms per step, medians over ${d.r.reps ?? '?'} interleaved reps of the whole sequence. ` +
        `ORT's whole graph ${ms(w?.stepMs)} ms; ORT A -> Cleave (split) -> ORT B ${ms(c?.stepMs)} ms (${ratioCell(c)} the whole graph's); with encodeSplit ${ms(e?.stepMs)} ms (${ratioCell(e)}); with split and graph capture ${ms(g?.stepMs)} ms (${ratioCell(g)}). ` +
        `JavaScript in Cleave's part per step: split ${jsCell(c)} µs, encodeSplit ${jsCell(e)} µs (${planText(c?.s?.stats)}, ${c?.s?.stats?.dispatches ?? '?'} dispatches, ${c?.s?.stats?.copies ?? '?'} copies). ${captureText(d.r)}.${probesText(d.r)} ` +
        (fails.length
          ? `FAILED: ${fails.join('; ')}.`
          : "Every step's y and the final caches of every system equal the reference bit for bit, before and after timing."),
    };
  });
}

/** The terminal table. @param {Report} report */
export function renderDecodes(report) {
  const rows = decodeRows(report.decodes);
  if (!rows.length) return '';
  const head = [
    'decode loop',
    'steps',
    'ORT whole graph',
    'ORT -> Cleave -> ORT',
    '/ whole',
    'with encodeSplit',
    '/ whole',
    'split + graph capture',
    '/ whole',
    'JS µs/step split',
    'encodeSplit',
    'bit for bit',
  ];
  const body = rows.map((d) => {
    const [w, c, e, g] = d.systems;
    return [
      d.id,
      [d.r.decode.prefill, ...(d.r.decode.decodeSteps ? [`${d.r.decode.decodeSteps}x1`] : [])]
        .filter(Boolean)
        .join(' + '),
      w ? stepCell(w) : '-',
      c ? stepCell(c) : '-',
      ratioCell(c),
      e ? stepCell(e) : '-',
      ratioCell(e),
      g ? (d.r.captureError ? 'refused' : stepCell(g)) : '-',
      ratioCell(g),
      jsCell(c),
      e?.js ? ms(e.js.callUs.median) : '-',
      decodeFailures(d.r).length ? 'NO' : 'yes',
    ];
  });
  const widths = head.map((_, i) => Math.max(...[head, ...body].map((r) => String(r[i]).length)));
  const line = (/** @type {string[]} */ r) =>
    r.map((v, i) => (i < 2 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ');
  return (
    'Decode loops: median ms per step (the whole sequence over its steps), wall (GPU time); "/ whole": over ORT\'s whole graph, (paired: median of\n' +
    'the batch-by-batch ratios). JS: µs per step inside fromOrtTensor + engine.split until it resolved (sync: until it returned), or + encodeSplit\n' +
    'with its encoder and submit. bit for bit:' +
    " every step's y and the final caches against the reference, before and after timing.\n\n" +
    [line(head), widths.map((x) => '-'.repeat(x)).join('  '), ...body.map(line)].join('\n') +
    rows.map((d) => `\n${d.id}: ${captureText(d.r)}.${probesText(d.r)}`).join('')
  );
}

/** @param {DecodeResult} r */
export function decodeLine(r) {
  /** @param {DecodeKey} k */
  const cell = (k) => cellText(r.systems[k]);
  return (
    `${r.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  ms per sequence: ORT whole graph ${cell('ort-whole')}  ORT -> Cleave -> ORT ${cell('cleave-pipeline')}` +
    `  with graph capture ${r.captureError ? 'refused' : cell('cleave-capture')}`
  );
}

/** report.html's section. @param {Report} report */
export function decodeSection(report) {
  const rows = decodeRows(report.decodes);
  if (!rows.length) return '';
  /** @param {string} tag @param {readonly string[]} cells */
  const row = (tag, cells) =>
    `<tr>${cells.map((c, i) => `<${tag}${i >= 2 ? ' class="num"' : i === 0 && tag === 'td' ? ' class="id"' : ''}>${esc(c)}</${tag}>`).join('')}</tr>`;
  const head = [
    'decode loop',
    'system',
    'ms per step',
    'range per step',
    '/ whole',
    'paired / whole',
    'Cleave JS µs per step (sync)',
  ];
  const body = rows.flatMap((d) =>
    d.systems.map((x, i) => [
      i === 0 ? d.id : '',
      /** @type {{ label: string }} */ (DECODE_SYSTEMS[i]).label,
      x.key === 'cleave-capture' && d.r.captureError ? 'refused' : stepCell(x),
      x.s?.wall ? `${ms(x.s.wall.min / d.steps)}–${ms(x.s.wall.max / d.steps)}` : '',
      x.ratio === undefined ? '-' : near1(x.ratio),
      x.paired ? near1(x.paired.median) : '-',
      x.js ? `${ms(x.js.callUs.median)} (${ms(x.js.syncUs.median)})` : '-',
    ]),
  );
  return `<h2>Decode loops: ORT → Cleave into the KV caches → ORT against ORT's whole graph</h2>
<p class="muted">One timed iteration is the whole sequence; ms per step is its median over the steps, wall (GPU time), interleaved reps. Paired: the median of the batch-by-batch ratios. Every step's y and the final caches are checked against a reference in doubles, bit for bit, before and after timing.</p>
<div class="scroll"><table>${row('th', head)}${body.map((r) => row('td', r)).join('')}</table></div>
<ul class="msgs">${rows.map((d) => `<li><b>${esc(d.id)}</b>: ${esc(captureText(d.r))}.${esc(probesText(d.r))} ${esc(d.r.notes.join('; '))}${decodeFailures(d.r).length ? ` <span class="errtext">FAILED: ${esc(decodeFailures(d.r).join('; '))}</span>` : ''}</li>`).join('')}</ul>`;
}
