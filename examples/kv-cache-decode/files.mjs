// The example's files, built in Node: models A and B for each step size, the tokens x, and the reference
// that every step's y and the final caches must match, computed in doubles by scripts/lib/decode-models.mjs,
// independent of ONNX Runtime and of Cleave. x and w hold small integers: where no dot product's sum of
// |terms| reaches 2^24, float32 is exact in any summation order, so the GPU's answer must equal the
// reference bit for bit. serve.mjs serves these files; the browser test and the bench build them the same way.

import { draw } from '../../scripts/lib/attention.mjs';
import { decodeModels, decodeReference, tokensOf } from '../../scripts/lib/decode-models.mjs';

/** @typedef {import('../../scripts/lib/decode-models.mjs').DecodeShape} DecodeShape */

/** The example's decoder: width 64, 4 heads of 16; a prompt of 8 tokens, then 8 steps of one token. */
export const EXAMPLE = Object.freeze({ width: 64, heads: 4, headDim: 16, steps: [8, 1, 1, 1, 1, 1, 1, 1, 1] });

/** @param {Float32Array} f */
const bytesOf = (f) => new Uint8Array(f.buffer, f.byteOffset, f.byteLength);

/**
 * The files, by name: case.json (the shape and T), x.bin (x [T, D]), reference.bin (y [T, H d], then the
 * caches K and V [H, T, d]), a-S.onnx and b-S.onnx for each step size S; with each S's models (the
 * whole graph among them) and the reference.
 * @param {DecodeShape} shape
 */
export function decodeFiles(shape) {
  const T = tokensOf(shape);
  const x = draw(T * shape.width, 5, [-1, 0, 0, 1]);
  const w = draw(shape.width * 3 * shape.heads * shape.headDim, 11, [-1, 0, 1]);
  const reference = decodeReference(shape, x, w);
  if (reference.maxTermSum >= 2 ** 24)
    throw new Error(`a dot product's sum of |terms| reaches ${reference.maxTermSum}: float32 is not exact here`);
  const models = new Map([...new Set(shape.steps)].map((S) => [S, decodeModels(shape, w, S)]));
  const { y, k, v } = reference;
  const ref = new Uint8Array(y.byteLength + k.byteLength + v.byteLength);
  let at = 0;
  for (const f of [y, k, v]) {
    ref.set(bytesOf(f), at);
    at += f.byteLength;
  }
  /** @type {Map<string, Uint8Array>} */
  const files = new Map([
    ['case.json', new TextEncoder().encode(JSON.stringify({ ...shape, tokens: T }))],
    ['x.bin', bytesOf(x)],
    ['reference.bin', ref],
  ]);
  for (const [S, m] of models) files.set(`a-${S}.onnx`, m.a).set(`b-${S}.onnx`, m.b);
  return { files, models, reference };
}
