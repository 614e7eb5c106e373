// The pipeline cases (bench/cases.mjs, PIPELINES) resolved in Node: the three ONNX models (A: the
// MatMul; B: attention on the split's outputs; the whole graph with ORT's own Split), the input x
// and the reference output y, from the attention builder the ORT tests share
// (scripts/lib/attention.mjs). x and w hold small integers, and a pipeline where a dot product's sum of
// |terms| reaches 2^24 is refused: below that, float32 is exact whatever order a kernel sums in, and every
// system must match the reference bit for bit.

import { attentionModels, attentionReference, draw, namesOf } from '../../scripts/lib/attention.mjs';

/** @import { BenchPipeline, PipelineSpec } from '../types.js' */

const EXACT = 2 ** 24;

/**
 * Resolves a pipeline: its split, its files (added to `files` under their names, served at
 * /model/<name>) and what its reference says.
 * @param {PipelineSpec} p @param {Map<string, Uint8Array>} files
 * @returns {BenchPipeline}
 */
export function resolvePipeline(p, files) {
  if (p.hidden % p.heads !== 0)
    throw new Error(`bench/cases.mjs: pipeline ${p.id}: hidden ${p.hidden} is not divisible by heads ${p.heads}`);
  const { seq: S, width: D, hidden: H } = p;
  const x = draw(S * D, 3, [-1, 0, 0, 1]);
  const w = draw(D * 3 * H, 7, [-1, 0, 1]);
  const { y, maxTermSum } = attentionReference(p, x, w);
  if (maxTermSum >= EXACT) throw new Error(`bench/cases.mjs: pipeline ${p.id}: float32 is not exact (${maxTermSum})`);
  const names = namesOf(p);
  const at = { a: `${p.id}-a`, b: `${p.id}-b`, whole: `${p.id}-whole`, x: `${p.id}-x`, ref: `${p.id}-ref` };
  const bytes = (/** @type {Float32Array} */ f) => new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  const m = attentionModels(p, w);
  for (const [k, v] of /** @type {const} */ ([
    ['a', m.a],
    ['b', m.b],
    ['whole', m.whole],
    ['x', bytes(x)],
    ['ref', bytes(y)],
  ]))
    files.set(at[k], v);
  return {
    ...p,
    parts: names.length,
    names,
    files: at,
    maxTermSum,
  };
}
