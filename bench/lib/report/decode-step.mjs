// The decode step's figures in words (bench/node/decode-step.mjs measures them): per engine (the gather forced, the
// planner's choice) its plan, the pipelines compiled by phase, the GPU work no call recorded, what Cleave records and
// makes per step, whether the caches came back exact, where a figure is off the issue's expectation, and the host
// time of its steps against the same calls replayed bare, per run and over the runs. The text table, the rows the
// HTML page shows, device-run.sh's summary lines and what fails a run. Pure: records in, strings out.

import { table } from './format.mjs';

/** @import { DecodeStepRecord, DecodeStepRun, DeviceTally } from '../../types.js' */

/** @param {number | undefined} v */
const x = (v) => (v === undefined || !Number.isFinite(v) ? '-' : `${v.toFixed(2)}x`);
/** @param {number | undefined} v */
const us = (v) => (v === undefined || !Number.isFinite(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1));
/** A count per step: whole where it is. @param {number | undefined} v */
const n = (v) => (v === undefined ? '-' : Number.isInteger(v) ? String(v) : v.toFixed(2));

/** @param {DecodeStepRun} r */
export const engineName = (r) => (r.strategy === 'gather' ? 'gather forced' : "auto (the planner's choice)");

/** The plan, as engine.stats gave it. @param {DecodeStepRun} r */
export function planName(r) {
  const p = r.plan;
  if (!p) return '-';
  if (p.strategy === 'gather') return `gather ${p.unitBits === 1 ? 'bits' : `${p.unitBits}-bit`} x${p.dispatches}`;
  return p.strategy === 'copy' ? `copy x${p.copies}` : p.strategy;
}

/** Compiles as 'N' (synchronous) and 'N async'. @param {{ sync: number, async: number } | undefined} c */
const compiles = (c) =>
  !c
    ? '-'
    : c.sync + c.async === 0
      ? '0'
      : [c.sync ? `${c.sync} sync` : '', c.async ? `${c.async} async` : ''].filter(Boolean).join(', ');

/** The GPU work no call recorded, in words: 'none', or each count that is not 0. @param {DecodeStepRun} r */
export function unrecordedText(r) {
  const u = r.unrecorded;
  if (!u) return '-';
  const of = (/** @type {Partial<DeviceTally>} */ t) =>
    Object.entries(t)
      .filter(([k, v]) => v && k !== 'compiles' && k !== 'compilesAsync')
      .map(([k, v]) => `${v} ${k}`);
  const out = of(u.outside);
  const inside = of(u.inSteps);
  const parts = [
    ...(out.length ? [`outside a step: ${out.join(', ')}`] : []),
    ...(inside.length ? [`of its own inside a step: ${inside.join(', ')}`] : []),
  ];
  return parts.join('; ') || 'none';
}

/**
 * Where a run's counts are off what the issue expects (0.7's decode step): compiles, work no call recorded, and per
 * step with the gather 1 pass, 1 dispatch, 3 setBindGroup; never an object or a writeBuffer.
 * @param {DecodeStepRun} r @returns {string[]}
 */
export function offExpected(r) {
  const off = [];
  const c = r.compiles;
  const gather = r.plan?.strategy === 'gather';
  if (c) {
    const want = {
      creation: { sync: 0, async: 0 },
      ready: { sync: 0, async: gather ? 1 : 0 },
      firstCall: { sync: 0, async: 0 },
      steps: { sync: 0, async: 0 },
    };
    for (const [k, v] of Object.entries(want)) {
      const got = c[/** @type {keyof typeof want} */ (k)];
      if (got.sync !== v.sync || got.async !== v.async)
        off.push(`compiles at ${k} ${compiles(got)} (expected ${compiles(v)})`);
    }
  }
  if (unrecordedText(r) !== 'none' && r.unrecorded) off.push(`GPU work no call recorded: ${unrecordedText(r)}`);
  const s = r.perStep;
  if (s) {
    /** @type {[keyof typeof s, number][]} */
    const want = [
      ['buffers', 0],
      ['bindGroups', 0],
      ['writeBuffers', 0],
      ...(gather
        ? /** @type {[keyof typeof s, number][]} */ ([
            ['passes', 1],
            ['dispatches', 1],
            ['setBindGroup', 3],
          ])
        : []),
    ];
    for (const [k, v] of want) if (s[k] !== v) off.push(`per step ${k} ${n(s[k])} (expected ${v})`);
  }
  return off;
}

/** What fails a run: an engine that failed, caches that differ, a GPU error. @param {DecodeStepRecord} r */
export function decodeStepFailures(r) {
  return r.runs.flatMap((e) => {
    const why = [
      ...(e.error ? [e.error] : []),
      ...(e.exact && e.exact !== 'exact' ? [e.exact] : []),
      ...(e.exactAfterTiming && e.exactAfterTiming !== 'exact' ? [`after timing: ${e.exactAfterTiming}`] : []),
      ...e.gpuErrors.map((g) => `GPU error: ${g}`),
    ];
    return why.map((w) => `${r.id} (${engineName(e)}): ${w}`);
  });
}

/**
 * The counts, a row per figure and a column per engine.
 * @param {DecodeStepRecord} r @returns {{ head: string[], rows: string[][] }}
 */
export function countRows(r) {
  const runs = r.runs;
  const col = (/** @type {(e: DecodeStepRun) => string} */ f) =>
    runs.map((e) => (e.error && !e.perStep ? 'ERR' : f(e)));
  const per = (/** @type {keyof NonNullable<DecodeStepRun['perStep']>} */ k) => col((e) => n(e.perStep?.[k]));
  const steps = runs[0]?.perStep?.steps ?? r.settings.counted;
  return {
    head: ['', ...runs.map(engineName)],
    rows: [
      ['plan (engine.stats)', ...col(planName)],
      ['compiled at engine creation', ...col((e) => compiles(e.compiles?.creation))],
      ['  in prepare, until ready', ...col((e) => compiles(e.compiles?.ready))],
      ['  at the first step', ...col((e) => compiles(e.compiles?.firstCall))],
      ['  over every step', ...col((e) => compiles(e.compiles?.steps))],
      ['GPU work no call recorded', ...col(unrecordedText)],
      [`per step (${steps} after ${r.spec.warmup}): passes`, ...per('passes')],
      ['  dispatches', ...per('dispatches')],
      ['  setPipeline', ...per('setPipeline')],
      ['  setBindGroup', ...per('setBindGroup')],
      ['  copyBufferToBuffer', ...per('copies')],
      ['  createBuffer', ...per('buffers')],
      ['  createBindGroup', ...per('bindGroups')],
      ['  writeBuffer', ...per('writeBuffers')],
      ['  calls into the encoder', ...per('calls')],
      ['caches and Q after the steps', ...col((e) => e.exact ?? '-')],
      ['  after the timed rounds', ...col((e) => e.exactAfterTiming ?? '-')],
    ],
  };
}

/**
 * Host time, a row per engine and run, then the median over the runs: µs per step of the fastest round of Cleave
 * (with the release of its outputs, without) and of the bare replay, the fastest-round ratios, the rounds' median
 * ratios.
 * @param {DecodeStepRecord} r @returns {{ head: string[], rows: string[][] }}
 */
export function hostRows(r) {
  const head = [
    'engine',
    'run',
    'Cleave µs',
    'no release µs',
    'bare µs',
    'fastest ratio',
    'fastest, no release',
    'median ratio',
    'median, no release',
  ];
  const rows = r.runs.flatMap((e) => {
    const h = e.host;
    if (!h) return [[engineName(e), '-', e.error ? `ERR: ${e.error}` : 'not timed', '', '', '', '', '', '']];
    return [
      ...h.runs.map((run, i) => [
        engineName(e),
        String(i + 1),
        us(run.us.release.min),
        us(run.us.noRelease.min),
        us(run.us.bare.min),
        x(run.fastest.release),
        x(run.fastest.noRelease),
        x(run.ratios.release.median),
        x(run.ratios.noRelease.median),
      ]),
      [
        engineName(e),
        'median',
        '',
        '',
        '',
        x(h.fastest.release),
        x(h.fastest.noRelease),
        x(h.roundMedian.release),
        x(h.roundMedian.noRelease),
      ],
    ];
  });
  return { head, rows };
}

/** The case in words: what a step is and how it was run. @param {DecodeStepRecord} r */
export function aboutText(r) {
  const { heads: H, tokens: T, headDim: D, warmup } = r.spec;
  const s = r.settings;
  return (
    `float16 QKV [1, ${3 * H}, 1, ${D}] in a buffer of the runtime's, split along axis 1 by a split prepared once ` +
    `on createSplitEngine({ device }) (the runtime's device, one per engine): Q into a buffer of the runtime's, K ` +
    `and V into caches [1, ${H}, ${T}, ${D}] at a slot that moves one position per step; each step recorded into ` +
    `the runtime's encoder with encode(encoder, x, into) and submitted by the runtime. ${warmup} warm-up steps, ` +
    `${s.counted} counted; host time: ${s.runs} runs of ${s.rounds} rounds of ${s.stepsPerRound} steps per system.`
  );
}

/** The words under the host table. @param {DecodeStepRecord} r */
export const hostRule = (r) =>
  `Host time: µs per step of the fastest round; ratio: Cleave's fastest round over the bare replay's (the ` +
  `captured WebGPU calls of each slot: encoder, the calls, finish, submit), and the median of the rounds' ratios. ` +
  `Cleave's step (encoder, encode, finish, submit) releases its 3 outputs with engine.release inside its timing (the ` +
  `replay has no outputs): 'no release' is the same step without it. The issue's target: at most ${x(r.spec.target)}.`;

/** The decode step's text section. @param {DecodeStepRecord} r */
export function renderDecodeStep(r) {
  const c = countRows(r);
  const h = hostRows(r);
  const off = r.runs.flatMap((e) => offExpected(e).map((o) => `${engineName(e)}: ${o}`));
  const lines = [
    `${r.id}: ${aboutText(r)}`,
    table([c.head, ...c.rows]),
    off.length ? `Off the issue's expectations: ${off.join('; ')}.` : 'Every count as the issue expects.',
    '',
    hostRule(r),
    table([h.head, ...h.rows]),
    ...r.runs.map((e) => targetText(r, e)),
    ...decodeStepFailures(r).map((f) => `FAILED: ${f}`),
  ];
  return lines.join('\n');
}

/**
 * The median fastest-round ratio against the target, in words (to 3 decimals: 1.25x is on either side of 1.25).
 * @param {DecodeStepRecord} r @param {DecodeStepRun} e
 */
export function targetText(r, e) {
  const f = e.host?.fastest.release;
  if (f === undefined || !e.host) return `${engineName(e)}: not timed.`;
  const within = f <= r.spec.target ? 'within' : 'over';
  const x3 = (/** @type {number} */ v) => `${v.toFixed(3)}x`;
  return (
    `${engineName(e)}: ${x3(f)} the bare calls' host time (median over ${e.host.runs.length} runs of the fastest ` +
    `rounds; ${x3(e.host.fastest.noRelease)} without the release): ${within} the target of ${x(r.spec.target)}.`
  );
}

/**
 * device-run.sh's summary lines: per engine, its host ratios and its counts, led by the step's name.
 * @param {string} name @param {DecodeStepRecord} r @returns {string[]}
 */
export function decodeStepLines(name, r) {
  return r.runs.map((e) => {
    const head = `${name}: ${r.id}, ${engineName(e)}`;
    if (!e.host || !e.perStep) return `${head}: FAILED (${e.error ?? 'no figures'})`;
    const h = e.host;
    const each = (/** @type {'release' | 'noRelease'} */ k) => h.runs.map((run) => x(run.fastest[k])).join(' ');
    const s = e.perStep;
    const c = e.compiles;
    const off = offExpected(e);
    const fails = decodeStepFailures({ ...r, runs: [e] });
    return (
      `${head}: ${planName(e)}; host, fastest Cleave / fastest bare, median over ${h.runs.length} runs: ` +
      `${x(h.fastest.release)} with release (runs ${each('release')}), ${x(h.fastest.noRelease)} without ` +
      `(runs ${each('noRelease')}); median round ratio ${x(h.roundMedian.release)} / ${x(h.roundMedian.noRelease)}; ` +
      `target ${x(r.spec.target)}; per step ${n(s.passes)} pass, ${n(s.dispatches)} dispatch, ${n(s.setBindGroup)} ` +
      `setBindGroup, ${n(s.copies)} copies, ${n(s.buffers + s.bindGroups)} objects, ${n(s.writeBuffers)} ` +
      `writeBuffer; compiles creation/ready/first/steps ${compiles(c?.creation)}/${compiles(c?.ready)}/` +
      `${compiles(c?.firstCall)}/${compiles(c?.steps)}; unrecorded GPU work ${unrecordedText(e)}; ` +
      `${e.exact}${e.exactAfterTiming === 'exact' ? '' : `, after timing: ${e.exactAfterTiming}`}` +
      `${off.length ? `; OFF: ${off.join('; ')}` : ''}${fails.length ? `; FAILED: ${fails.join('; ')}` : ''}`
    );
  });
}
