// The decode loops (bench/cases.mjs, DECODES) selected and resolved in Node: each step size's three
// ONNX models (A, B and the whole graph, from scripts/lib/decode-models.mjs), the sequence's input
// x and the reference (every step's y, the final caches), computed in doubles, independent of ORT
// and of Cleave. x and w hold small integers; a loop whose dot products could leave float32's exact
// integers is refused here, so every system must match the reference bit for bit.

import { decodeModels, decodeReference, tokensOf } from '../../scripts/lib/decode-models.mjs';
import { draw } from '../../scripts/lib/attention.mjs';
import { CALL_COSTS, CASES, DECODES, PIPELINES } from '../cases.mjs';

/** @import { BenchDecode, DecodeSpec } from '../types.js' */

const EXACT = 2 ** 24;

/**
 * The decode loops a run does: --cases keeps ids matching the regex; else --quick keeps those marked quick.
 * @param {{ quick: boolean, filter?: RegExp | undefined }} o
 */
export function selectDecodes({ quick, filter }) {
  const others = new Set([...CASES, ...PIPELINES, ...CALL_COSTS].map((c) => c.id));
  const ids = new Set();
  for (const c of DECODES) {
    if (others.has(c.id) || ids.has(c.id)) throw new Error(`bench/cases.mjs: duplicate id ${c.id}`);
    ids.add(c.id);
  }
  return DECODES.filter((c) => (filter ? filter.test(c.id) : !quick || !!c.quick));
}

/** @param {DecodeSpec} p */
export const stepsOf = (p) => [...(p.prefill ? [p.prefill] : []), ...Array(p.decodeSteps).fill(1)];

/**
 * Resolves a decode loop: its steps, its files (added to `files` under their names, served at
 * /model/<name>) and what its reference says.
 * @param {DecodeSpec} p @param {Map<string, Uint8Array>} files
 * @returns {BenchDecode}
 */
export function resolveDecode(p, files) {
  const steps = stepsOf(p);
  const shape = { width: p.width, heads: p.heads, headDim: p.headDim, steps };
  const T = tokensOf(shape);
  const hd = p.heads * p.headDim;
  const x = draw(T * p.width, 5, [-1, 0, 0, 1]);
  const w = draw(p.width * 3 * hd, 11, [-1, 0, 1]);
  const ref = decodeReference(shape, x, w);
  if (ref.maxTermSum >= EXACT)
    throw new Error(
      `bench/cases.mjs: decode ${p.id}: a dot product's sum of |terms| reaches ${ref.maxTermSum} >= 2^24, so float32 is not exact: make it smaller`,
    );
  const bytes = (/** @type {Float32Array} */ f) => new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  const seqs = [...new Set(steps)];
  const models = seqs.map((seq) => {
    const m = decodeModels(shape, w, seq);
    const names = {
      seq,
      a: `${p.id}-s${seq}-a`,
      b: `${p.id}-s${seq}-b`,
      bFlat: `${p.id}-s${seq}-bflat`,
      whole: `${p.id}-s${seq}-whole`,
    };
    for (const k of /** @type {const} */ (['a', 'b', 'bFlat', 'whole'])) files.set(names[k], m[k]);
    return names;
  });
  const refBytes = new Uint8Array(ref.y.byteLength + ref.k.byteLength + ref.v.byteLength);
  refBytes.set(bytes(ref.y), 0);
  refBytes.set(bytes(ref.k), ref.y.byteLength);
  refBytes.set(bytes(ref.v), ref.y.byteLength + ref.k.byteLength);
  const at = { x: `${p.id}-x`, ref: `${p.id}-ref` };
  files.set(at.x, bytes(x));
  files.set(at.ref, refBytes);
  return { ...p, steps, tokens: T, models, files: at, maxTermSum: ref.maxTermSum };
}
