// Turns the editable case list (bench/cases.mjs) into resolved cases: split lengths, byte counts,
// whether each chunk is one contiguous run, and the ONNX model each case gives ONNX Runtime.
import { CASES } from '../cases.mjs';
import { splitModel, splitToSequenceModel } from './onnx-model.mjs';

const ELEMENT_BYTES = { float32: 4, float16: 2, int64: 8, uint8: 1, bool: 1, complex64: 8, int32: 4 };

/** ONNX's equal split: chunks of ceil(dim / parts), clamped to what is left. */
export function equalParts(dim, parts) {
  const chunk = Math.ceil(dim / parts);
  const out = [];
  let left = dim;
  for (let i = 0; i < parts; i++) { const s = Math.min(chunk, left); out.push(s); left -= s; }
  return out;
}

export function resolveCase(c) {
  if (!(c.dtype in ELEMENT_BYTES)) throw new Error(`bench/cases.mjs: case ${c.id}: unknown dtype ${c.dtype}`);
  const axis = c.axis < 0 ? c.axis + c.shape.length : c.axis;
  const dim = c.shape[axis];
  const sizes = c.op === 'SplitToSequence' ? Array(dim).fill(1) : c.sizes ?? equalParts(dim, c.parts);
  if (sizes.reduce((a, b) => a + b, 0) !== dim) throw new Error(`bench/cases.mjs: case ${c.id}: sizes do not sum to ${dim}`);
  const numel = c.shape.reduce((a, b) => a * b, 1);
  const outer = c.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  return {
    ...c, axis, sizes, op: c.op ?? 'Split',
    outputs: sizes.length,
    bytes: numel * ELEMENT_BYTES[c.dtype],
    // Each chunk is one run of the input when every dimension before the axis is 1.
    contiguous: outer === 1,
    model: c.id,
  };
}

/** The cases to run: --cases keeps ids matching the regex; else --quick keeps those marked quick. */
export function selectCases({ quick, filter }) {
  const ids = new Set();
  for (const c of CASES) {
    if (ids.has(c.id)) throw new Error(`bench/cases.mjs: duplicate id ${c.id}`);
    ids.add(c.id);
  }
  return CASES
    .filter((c) => (filter ? filter.test(c.id) : !quick || c.quick))
    .map(resolveCase);
}

/** Model bytes for each case (served at /model/<id>), and a tiny one that keeps ORT's device alive. */
export function buildModels(cases) {
  const models = new Map();
  models.set('keepalive', splitModel({ dtype: 'float32', shape: [2, 4], axis: 1, sizes: [1, 3] }));
  for (const c of cases) {
    models.set(c.model, c.op === 'SplitToSequence' ? splitToSequenceModel(c) : splitModel(c));
  }
  return models;
}
