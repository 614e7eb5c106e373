// The bench's targets, one function each, evaluated on one run's results. They are
// reported, never asserted: a miss is a row with the measured gap. All ratios compare medians of
// wall time per split (or per inference) measured side by side in the same page (GPU-resident
// systems: batches, then one onSubmittedWorkDone).

import { gpuMed, med, ownCases, pipelineRows, planChoiceRows, ratioOf, versusOrt } from './findings.mjs';
import { near1 } from './report/format.mjs';
import { decodeFailures, decodeRows, stepsText } from './report/decode.mjs';

/** @import { CaseRecord, DecodeRecord, FinalState, PipelineRecord, Target } from '../types.js' */

/** @param {number} x */
const x2 = (x) => `${x.toFixed(2)}x`;

/**
 * @param {readonly CaseRecord[]} results @param {FinalState | undefined} final @param {readonly PipelineRecord[]} [pipelines]
 * @param {readonly DecodeRecord[]} [decodes]
 * @returns {Target[]}
 */
export function evaluateTargets(results, final, pipelines = [], decodes = []) {
  return [
    runsTarget(results),
    versusOrtTarget(results),
    limitTarget(results, true),
    limitTarget(results, false),
    ...outputCountTargets(results),
    ...tinyTargets(results),
    pipelinesTarget(results, final),
    ...pipelineTargets(pipelines),
    ...decodeTargets(decodes),
    planChoiceTarget(results),
  ];
}

/** The most the planner's choice may cost over the best strategy forced, in the same run. */
export const PLAN_CHOICE_SLACK = 1.15;

/**
 * Every case's plan within 1.15x of the fastest strategy forced on it, medians side by side: the
 * chosen strategy forced against the fastest (like for like, engines of one kind), or where the
 * chosen one was not forced, the default itself.
 * @param {readonly CaseRecord[]} results @returns {Target}
 */
function planChoiceTarget(results) {
  const rows = planChoiceRows(results).flatMap((x) => {
    const r = x.choiceRatio ?? x.ratio;
    return r === undefined ? [] : [{ ...x, r }];
  });
  const missed = rows.filter((x) => x.r > PLAN_CHOICE_SLACK);
  return {
    id: 'plan-choice',
    name: `The planner's choice within ${PLAN_CHOICE_SLACK}x of the fastest strategy forced on the same case (wall time, same run)`,
    goal: `<= ${PLAN_CHOICE_SLACK}x in every case`,
    value:
      rows.length === 0
        ? 'no case'
        : `${rows.length - missed.length} of ${rows.length}; worst ${x2(Math.max(...rows.map((x) => x.r)))}`,
    met: rows.length === 0 ? null : missed.length === 0,
    details: rows.map(
      (x) =>
        `${x.id}: chose ${x.chosen} (default ${x.defaultMs?.toPrecision(3)} ms), fastest forced ${x.best} ${x.bestMs?.toPrecision(3)} ms: ${x2(x.r)}`,
    ),
  };
}

/**
 * Where ORT runs the graph alone, ORT -> Cleave -> ORT is no slower than ORT's whole
 * graph; where ORT's whole graph fails, the pipeline runs and verifies.
 * @param {readonly PipelineRecord[]} pipelines @returns {Target[]}
 */
function pipelineTargets(pipelines) {
  return pipelineRows(pipelines).map((p) => {
    const verified = !!p.r.systems['cleave-pipeline']?.verified;
    if (p.wholeError || p.r.crashed) {
      return {
        id: 'pipeline-runs',
        name: `Where ORT's whole graph fails, ORT -> Cleave -> ORT runs and verifies (${p.id})`,
        goal: 'runs, y verified',
        value: verified
          ? `runs (${p.viaMs?.toPrecision(3)} ms per inference), y verified; ORT's whole graph failed`
          : `pipeline: ${p.viaError ?? p.r.crashed ?? 'did not run'}`,
        met: verified,
        details: p.wholeError ? [`ORT: ${p.wholeError}`] : [],
      };
    }
    const ok = p.ratio !== undefined && verified && p.r.sameBitsAsWhole === true;
    return {
      id: 'pipeline-speed',
      name: `ORT -> Cleave -> ORT no slower than ORT's whole graph, GPU-resident (${p.id})`,
      goal: '<= 1.00x, same y',
      value:
        p.ratio === undefined
          ? 'not measured'
          : `${near1(p.ratio)} (pipeline ${p.viaMs?.toPrecision(3)} ms, whole graph ${p.wholeMs?.toPrecision(3)} ms)`,
      met: p.ratio === undefined ? null : ok && p.ratio <= 1,
      ratio: p.ratio,
      details: [
        `y equal to the whole graph's bit for bit: ${p.r.sameBitsAsWhole ?? 'not compared'}`,
        ...(p.r.pairedRatio
          ? [
              `batch by batch: median ${near1(p.r.pairedRatio.median)}, ${x2(p.r.pairedRatio.min)} to ${x2(p.r.pairedRatio.max)}`,
            ]
          : []),
        ...(p.gpuRatio === undefined ? [] : [`GPU time: ${x2(p.gpuRatio)} the whole graph's`]),
      ],
    };
  });
}

/**
 * Each decode loop: ORT A -> Cleave (into the KV caches) -> ORT B no slower per step than ORT's whole
 * graph, every step's y and the final caches bit for bit; the graph-capture row beside it.
 * @param {readonly DecodeRecord[]} decodes @returns {Target[]}
 */
function decodeTargets(decodes) {
  return decodeRows(decodes).map((d) => {
    const [w, c, e, g] = d.systems;
    const fails = decodeFailures(d.r);
    const S = stepsText(d.r.decode);
    return {
      id: 'decode-speed',
      name: `Decode loop (${S}): ORT -> Cleave into the KV caches -> ORT no slower per step than ORT's whole graph (${d.id})`,
      goal: '<= 1.00x, bit for bit',
      value:
        c?.ratio === undefined
          ? `not measured${fails.length ? ' (failed)' : ''}`
          : `${near1(c.ratio)} (pipeline ${c.stepMs?.toPrecision(3)} ms per step, whole graph ${w?.stepMs?.toPrecision(3)} ms)`,
      met: c?.ratio === undefined ? (fails.length ? false : null) : fails.length === 0 && c.ratio <= 1,
      ratio: c?.ratio,
      details: [
        ...(c?.paired
          ? [`batch by batch: median ${near1(c.paired.median)}, ${x2(c.paired.min)} to ${x2(c.paired.max)}`]
          : []),
        ...(c?.js
          ? [
              `JavaScript in Cleave's part: ${c.js.callUs.median.toFixed(1)} µs per step (${c.js.syncUs.median.toFixed(1)} µs before it returned)`,
            ]
          : []),
        e?.ratio !== undefined
          ? `with encodeSplit instead: ${near1(e.ratio)} the whole graph's (${e.stepMs?.toPrecision(3)} ms per step${e.js ? `, ${e.js.callUs.median.toFixed(1)} µs of JavaScript in Cleave's calls` : ''})`
          : `with encodeSplit instead: ${e?.s?.error ?? 'not measured'}`,
        d.r.captureError
          ? `B with enableGraphCapture: ORT refused: ${d.r.captureError}`
          : g?.ratio !== undefined
            ? `split, B with enableGraphCapture: ${near1(g.ratio)} the whole graph's (${g.stepMs?.toPrecision(3)} ms per step)`
            : `B with enableGraphCapture: ${g?.s?.error ?? 'not measured'}`,
        ...fails.map((f) => `FAILED: ${f}`),
      ],
    };
  });
}

/** Every case runs and verifies for Cleave. @param {readonly CaseRecord[]} results @returns {Target} */
function runsTarget(results) {
  const broken = [];
  for (const r of results) {
    if (r.crashed) {
      broken.push(`${r.case.id}: page failed: ${r.crashed}`);
      continue;
    }
    if (r.cpuPathError) broken.push(`${r.case.id}: CPU path: ${r.cpuPathError}`);
    for (const k of /** @type {const} */ (['cleave-gpu', 'cleave-host'])) {
      const s = r.systems[k];
      if (!s?.ok || !s.verified) broken.push(`${r.case.id} ${k}: ${s?.error ?? 'did not run'}`);
    }
  }
  return {
    id: 'runs',
    name: 'Every case runs and verifies for Cleave (GPU-resident and host, every dtype, every output count)',
    goal: '0 failures',
    value: `${broken.length} failure(s) in ${results.length} case(s)`,
    met: broken.length === 0,
    details: broken,
  };
}

/**
 * GPU-resident Cleave against GPU-resident ORT, geometric mean over the cases where Cleave does
 * GPU work and ORT runs on WebGPU; zero-copy and CPU-EP cases are listed, not counted.
 * @param {readonly CaseRecord[]} results @returns {Target}
 */
function versusOrtTarget(results) {
  const v = versusOrt(results);
  /** @param {import('./findings.mjs').OrtRow} x @param {string} why */
  const line = (x, why) =>
    `${x.id}: ${x2(x.ratio)} wall${x.gpuRatio ? `, ${x2(x.gpuRatio)} GPU time` : ''} (${x.strategy})${why}`;
  return {
    id: 'vs-ort',
    name: 'GPU-resident: Cleave at least 3x faster than ORT Web GPU-resident (geometric mean over the cases where Cleave does GPU work and ORT runs on its WebGPU EP)',
    goal: '>= 3x',
    value: v.headline === undefined ? 'no case' : `${x2(v.headline)} over ${v.gpuWork.length} case(s)`,
    met: v.headline === undefined ? null : v.headline >= 3,
    ratio: v.headline,
    details: [
      ...v.gpuWork.map((x) => line(x, '')),
      ...v.zeroCopy.map((x) => line(x, ': zero-copy, not counted (Cleave made views and submitted nothing)')),
      ...v.cpuEp.map((x) => line(x, ': not counted (ORT ran on its CPU EP)')),
    ],
  };
}

/**
 * Contiguous chunks against the copy limit, the other cases against the shader-copy limit.
 * @param {readonly CaseRecord[]} results @param {boolean} contiguous @returns {Target}
 */
function limitTarget(results, contiguous) {
  const key = contiguous ? 'copy-limit' : 'shader-limit';
  const rows = ownCases(results)
    .filter((r) => r.case.contiguous === contiguous)
    .map((r) => {
      const c = r.systems['cleave-gpu'];
      const ratio = ratioOf(med(c), med(r.systems[key]));
      return {
        id: r.case.id,
        ratio,
        gpuRatio: ratioOf(gpuMed(c), gpuMed(r.systems[key])),
        strategy: c?.stats?.strategy,
      };
    });
  const misses = rows.filter((x) => x.ratio === undefined || x.ratio > 1.3);
  const worst = Math.max(0, ...rows.map((x) => x.ratio ?? 0));
  return {
    id: key,
    name: contiguous
      ? 'Contiguous chunks (all dims before the axis are 1): GPU-resident Cleave within 1.3x of the copy limit'
      : 'Other cases: GPU-resident Cleave within 1.3x of the shader-copy limit',
    goal: '<= 1.3x each',
    value: rows.length
      ? `${rows.length - misses.length}/${rows.length} within; worst ${x2(worst)}`
      : 'no case in this run',
    met: rows.length === 0 ? null : misses.length === 0,
    details: rows.map((x) =>
      x.ratio === undefined
        ? `${x.id}: not measured`
        : `${x.id}: ${x2(x.ratio)} wall${x.gpuRatio ? `, ${x2(x.gpuRatio)} GPU time` : ''} (${x.strategy})`,
    ),
  };
}

/**
 * Many outputs against fewer of the same bytes: judged against the first case in sameBytesAs
 * (the planner's own choice); the others (e.g. the same strategy forced) explain it.
 * @param {readonly CaseRecord[]} results @returns {Target[]}
 */
function outputCountTargets(results) {
  const timed = results.filter((r) => !r.case.cold && !r.crashed);
  return timed
    .filter((r) => r.case.sameBytesAs)
    .map((r) => {
      const names = r.case.sameBytesAs ?? [];
      const details = [];
      let ratio;
      let judged;
      for (const [j, id] of names.entries()) {
        const base = timed.find((x) => x.case.id === id);
        if (!base) {
          details.push(`${id}: not in this run`);
          continue;
        }
        for (const k of /** @type {const} */ (['cleave-gpu', 'cleave-host'])) {
          const a = med(r.systems[k]);
          const b = med(base.systems[k]);
          if (a === undefined || b === undefined) continue;
          if (j === 0 && k === 'cleave-gpu') {
            ratio = a / b;
            judged = base;
          }
          details.push(
            `vs ${id}, ${k}: ${a.toPrecision(3)} ms vs ${b.toPrecision(3)} ms = ${x2(a / b)}` +
              ` (${r.systems[k]?.stats?.strategy} vs ${base.systems[k]?.stats?.strategy})`,
          );
        }
      }
      return {
        id: 'outputs',
        name: `${r.case.outputs} outputs cost at most 2x the ${judged?.case.outputs ?? '?'}-output case of the same bytes (${r.case.id} vs ${names[0]}, GPU-resident)`,
        goal: '<= 2x',
        value: ratio === undefined ? 'not measured (run both cases)' : x2(ratio),
        met: ratio === undefined ? null : ratio <= 2,
        details,
      };
    });
}

/** Tiny case, host in/out, against ORT host in/out. @param {readonly CaseRecord[]} results @returns {Target[]} */
function tinyTargets(results) {
  return results
    .filter((r) => r.case.tiny && !r.crashed)
    .map((r) => {
      const c = med(r.systems['cleave-host']);
      const o = med(r.systems['ort-host']);
      const ratio = ratioOf(o, c);
      return {
        id: 'tiny',
        name: `Tiny case (${r.case.id}), host in/out: Cleave at least 3x faster than ORT Web`,
        goal: '>= 3x',
        value:
          ratio === undefined || c === undefined || o === undefined
            ? 'not measured'
            : `${x2(ratio)} (Cleave ${c.toPrecision(3)} ms, ORT ${o.toPrecision(3)} ms)`,
        met: ratio === undefined ? null : ratio >= 3,
        details: r.systems['ort-host']?.fallback ? ['ORT ran on its CPU EP'] : [],
      };
    });
}

/** Pipelines compiled over the whole run. @param {readonly CaseRecord[]} results @param {FinalState | undefined} final @returns {Target} */
function pipelinesTarget(results, final) {
  const units = new Set();
  for (const r of results.filter((x) => !x.case.cold)) {
    for (const k of /** @type {const} */ (['cleave-gpu', 'cleave-host'])) {
      const s = r.systems[k]?.stats;
      if (s?.strategy === 'gather') units.add(`${s.unitBits}-bit`);
    }
  }
  const n = final?.cleavePipelines;
  const variants = final?.shaderVariants ?? NaN; // the library's own count (cleave's SHADER_VARIANTS)
  return {
    id: 'pipelines',
    name: 'Pipelines Cleave compiled over the whole run: no more than the number of shader variants',
    goal: `<= ${variants} (variants)`,
    value:
      n === undefined
        ? 'not measured'
        : `${n} on the shared device (gather units used: ${[...units].sort().join(', ') || 'none'})`,
    met: n === undefined ? null : n <= variants,
    details: [
      `compute pipelines created on the shared device by anyone (Cleave + ORT + the bench's copy kernel): ${final?.devicePipelines ?? '?'}`,
      'an engine starts compiling the 128- and 32-bit word variants when it is created, so a short run may compile one it never uses',
      'the cold-start case compiles on each fresh device, by design (not counted here: the count is per device)',
    ],
  };
}
