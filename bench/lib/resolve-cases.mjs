// Turns the editable lists (bench/cases.mjs) into what a run does: resolved cases (split lengths,
// element and byte counts from the library's dtype table, whether each chunk is one contiguous
// run, the ONNX model each case gives ONNX Runtime or why it gets none), pipelines with their
// models and reference (bench/lib/pipelines.mjs), and per-call cost cases. The model builders load
// only when models are built: resolving a case needs the library alone (the Node bench, bench/node,
// resolves cases on machines that carry no ONNX package).

import { DTYPES, ONNX_DTYPES, byteLengthOf, equalParts } from 'cleave';
import { CALL_COSTS, CASES, PIPELINES } from '../cases.mjs';

/** @import { BenchCase, CaseSpec, PipelineSpec } from '../types.js' */

/** @param {readonly number[]} xs */
const product = (xs) => xs.reduce((a, b) => a * b, 1);

/** @param {CaseSpec} c @param {string} why */
const bad = (c, why) => new Error(`bench/cases.mjs: case ${c.id}: ${why}`);

/** @param {CaseSpec} c @returns {BenchCase} */
export function resolveCase(c) {
  if (!DTYPES.includes(c.dtype) || c.dtype === 'string') throw bad(c, `the bench cannot run dtype ${c.dtype}`);
  const axis = c.axis < 0 ? c.axis + c.shape.length : c.axis;
  const dim = c.shape[axis];
  if (dim === undefined) throw bad(c, `axis ${c.axis} is out of range for shape [${c.shape}]`);
  const sizes = c.op === 'SplitToSequence' ? Array(dim).fill(1) : (c.sizes ?? equalParts(dim, c.parts ?? 1));
  if (sizes.reduce((a, b) => a + b, 0) !== dim) throw bad(c, `sizes do not sum to ${dim}`);
  const numel = product(c.shape);
  return {
    ...c,
    axis,
    sizes,
    op: c.op ?? 'Split',
    outputs: sizes.length,
    numel,
    bytes: byteLengthOf(c.dtype, numel),
    contiguous: product(c.shape.slice(0, axis)) === 1,
    ...(ONNX_DTYPES.includes(c.dtype)
      ? { model: c.id }
      : {
          ortSkip: `n/a: ${c.dtype} is no ONNX dtype that ONNX Runtime Web can split (no ONNX Split or SplitToSequence lists it), so ORT has no model to run`,
        }),
  };
}

/**
 * What to run: --cases keeps ids matching the regex (cases, pipelines and per-call cost cases
 * alike); else --quick keeps those marked quick.
 * @param {{ quick: boolean, filter?: RegExp | undefined }} o
 */
export function selectCases({ quick, filter }) {
  const ids = new Set();
  for (const c of [...CASES, ...PIPELINES, ...CALL_COSTS]) {
    if (ids.has(c.id)) throw new Error(`bench/cases.mjs: duplicate id ${c.id}`);
    ids.add(c.id);
  }
  const keep = (/** @type {{ id: string, quick?: boolean }} */ c) => (filter ? filter.test(c.id) : !quick || !!c.quick);
  return {
    cases: CASES.filter((c) => !c.nodeOnly && keep(c)).map(resolveCase),
    pipelines: PIPELINES.filter(keep),
    callCosts: CALL_COSTS.filter(keep),
  };
}

/**
 * Model bytes for each case ONNX Runtime can run (served at /model/<id>), a tiny one that keeps
 * ORT's device alive, and each pipeline's models, input and reference (resolved here).
 * @param {readonly BenchCase[]} cases @param {readonly PipelineSpec[]} pipelineSpecs
 */
export async function buildModels(cases, pipelineSpecs) {
  const { isOnnxDType, splitModel, splitToSequenceModel } = await import('../../scripts/lib/onnx-model.mjs');
  const { resolvePipeline } = await import('./pipelines.mjs');
  /** @type {Map<string, Uint8Array>} */
  const models = new Map();
  models.set('keepalive', splitModel({ dtype: 'float32', shape: [2, 4], axis: 1, sizes: [1, 3] }));
  for (const c of cases) {
    if (!c.model || !isOnnxDType(c.dtype)) continue;
    const spec = { dtype: c.dtype, shape: c.shape, axis: c.axis, sizes: c.sizes };
    models.set(c.model, c.op === 'SplitToSequence' ? splitToSequenceModel(spec) : splitModel(spec));
  }
  return { models, pipelines: pipelineSpecs.map((p) => resolvePipeline(p, models)) };
}
