// Turns the editable lists (bench/cases.mjs) into what a run does: resolved cases (split lengths, element
// and byte counts from the library's dtype table, the ONNX model each case gives ONNX Runtime or why it gets
// none), pipelines and decode loops with their models and references (lib/pipelines.mjs, lib/decode.mjs),
// and per-call cost cases. The model builders load only when models are built: resolving a case needs the
// library alone (bench/node resolves cases on machines that carry no ONNX package).

import { DTYPES, ONNX_DTYPES, byteLengthOf, equalParts } from 'cleave-gpu';
import { CALL_COSTS, CASES, DECODES, PIPELINES } from '../cases.mjs';

/** @import { BenchCase, CaseSpec, DecodeSpec, PipelineSpec } from '../types.js' */

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
  const numel = c.shape.reduce((a, b) => a * b, 1);
  const onnx = ONNX_DTYPES.includes(c.dtype);
  const ortSkip = `n/a: no ONNX Split or SplitToSequence lists ${c.dtype}, so ONNX Runtime has no model to run`;
  const bytes = byteLengthOf(c.dtype, numel);
  return {
    ...c,
    axis,
    sizes,
    op: c.op ?? 'Split',
    outputs: sizes.length,
    numel,
    bytes,
    ...(onnx ? { model: c.id } : { ortSkip }),
  };
}

/**
 * What to run: --cases keeps the ids matching the regex (cases, pipelines, decode loops and per-call cost
 * cases alike); else --quick keeps those marked quick.
 * @param {{ quick: boolean, filter?: RegExp | undefined }} o
 */
export function selectCases({ quick, filter }) {
  const ids = new Set();
  for (const c of [...CASES, ...PIPELINES, ...DECODES, ...CALL_COSTS]) {
    if (ids.has(c.id)) throw new Error(`bench/cases.mjs: duplicate id ${c.id}`);
    ids.add(c.id);
  }
  const keep = (/** @type {{ id: string, quick?: boolean }} */ c) => (filter ? filter.test(c.id) : !quick || !!c.quick);
  return {
    cases: CASES.filter((c) => !c.nodeOnly && keep(c)).map(resolveCase),
    pipelines: PIPELINES.filter(keep),
    decodes: DECODES.filter(keep),
    callCosts: CALL_COSTS.filter(keep),
  };
}

/**
 * Model bytes, served at /model/<name>: each case's that ONNX Runtime can run, a tiny one that keeps ORT's
 * device alive, and each pipeline's and decode loop's files (resolved here).
 * @param {readonly BenchCase[]} cases @param {readonly PipelineSpec[]} pipelines @param {readonly DecodeSpec[]} decodes
 */
export async function buildModels(cases, pipelines, decodes) {
  const { isOnnxDType, splitModel, splitToSequenceModel } = await import('../../scripts/lib/onnx-model.mjs');
  const { resolvePipeline } = await import('./pipelines.mjs');
  const { resolveDecode } = await import('./decode.mjs');
  /** @type {Map<string, Uint8Array>} */
  const models = new Map();
  models.set('keepalive', splitModel({ dtype: 'float32', shape: [2, 4], axis: 1, sizes: [1, 3] }));
  for (const c of cases) {
    if (!c.model || !isOnnxDType(c.dtype)) continue;
    const spec = { dtype: c.dtype, shape: c.shape, axis: c.axis, sizes: c.sizes };
    models.set(c.model, c.op === 'SplitToSequence' ? splitToSequenceModel(spec) : splitModel(spec));
  }
  return {
    models,
    pipelines: pipelines.map((p) => resolvePipeline(p, models)),
    decodes: decodes.map((p) => resolveDecode(p, models)),
  };
}
