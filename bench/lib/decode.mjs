// The decode loops (bench/cases.mjs, DECODES) resolved in Node with the example's own files
// (examples/kv-cache-decode/files.mjs): models A and B per step size, x, and the reference in doubles
// (every step's y, the final caches), independent of ORT and of Cleave; plus ORT's whole graph per step
// size, which the bench times the loop against. Served at /model/<id>/<name>.

import { decodeFiles } from '../../examples/kv-cache-decode/files.mjs';

/** @import { BenchDecode, DecodeSpec } from '../types.js' */

/** @param {DecodeSpec} p */
export const stepsOf = (p) => [...(p.prefill ? [p.prefill] : []), ...Array(p.decodeSteps).fill(1)];

/**
 * Adds the loop's files to `files` under `<id>/<name>` (the whole graph as whole-S.onnx).
 * @param {DecodeSpec} p @param {Map<string, Uint8Array>} files @returns {BenchDecode}
 */
export function resolveDecode(p, files) {
  const steps = stepsOf(p);
  const built = decodeFiles({ width: p.width, heads: p.heads, headDim: p.headDim, steps });
  for (const [name, bytes] of built.files) files.set(`${p.id}/${name}`, bytes);
  for (const [S, m] of built.models) files.set(`${p.id}/whole-${S}.onnx`, m.whole);
  const tokens = steps.reduce((a, b) => a + b, 0);
  return { ...p, steps, tokens, maxTermSum: built.reference.maxTermSum };
}
