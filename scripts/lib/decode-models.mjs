// The decode loop of the KV-cache example and the bench, built in Node: a decoder step with a KV cache, as ONNX
// Runtime runs it the usual way (one graph: MatMul -> Split -> Concat of past and new K/V into
// present K/V -> attention, past/present fed back each step) and as ORT A -> Cleave -> ORT B (A:
// the MatMul; Cleave writes q, and K and V into slot t.. of caches [1, heads, T, d]; B: attention
// over the whole caches), and the reference every step must match, computed in doubles,
// independent of ONNX Runtime and of Cleave.
//
// Attention has no softmax and no causal mask (like scripts/lib/attention.mjs): every token of a
// step attends to every cache slot filled so far, its own step's included. B reads all T slots of
// the caches; the slots not yet written hold zeros, which add exact zeros to every sum, so B's
// answer equals the first t + S slots'. With small-integer x and w every value is an integer, and
// where no dot product's sum of |terms| reaches 2^24, float32 is exact whatever order a kernel
// sums in. Plain Node ESM with JSDoc types.

import { buildModel, int64, node, tensor } from './onnx-model.mjs';

/** @typedef {import('./onnx-model.mjs').NodeProto} NodeProto */
/**
 * Model width D, heads H, head dimension d, and the tokens of each step in order (e.g. 32 steps
 * of 1, or 128 then 1s); the caches hold every token of the sequence: T = the sum of `steps`.
 * @typedef {{ readonly width: number, readonly heads: number, readonly headDim: number, readonly steps: readonly number[] }} DecodeShape
 */

/** @param {DecodeShape} p */
export const tokensOf = (p) => p.steps.reduce((a, b) => a + b, 0);

/** @param {string} name @param {readonly number[]} [shape] */
const f32 = (name, shape) => ({ name, dtype: /** @type {const} */ ('float32'), ...(shape ? { shape } : {}) });

/**
 * Attention without softmax over caches k, v [1, H, L, d] for queries q [1, H, S, d]: the heads
 * of (q · kᵀ) · v side by side, y [1, S, H, d], or with `flat` reshaped to [1, S, H d] (the same
 * bytes: the whole graph's). B ends without the Reshape: ORT Web's graph capture has returned wrong
 * values for a graph ending in MatMul -> MatMul -> Transpose -> Reshape when S > 1 (bench/RESULTS.md).
 * @param {string} q @param {string} k @param {string} v @param {string} y @param {boolean} flat @returns {NodeProto[]}
 */
const attendNodes = (q, k, v, y, flat) => [
  node('Transpose', [k], ['kt'], { perm: [0, 1, 3, 2] }),
  node('MatMul', [q, 'kt'], ['scores']),
  node('MatMul', ['scores', v], ['o']),
  ...(flat
    ? [node('Transpose', ['o'], ['o_t'], { perm: [0, 2, 1, 3] }), node('Reshape', ['o_t', 'y_shape'], [y])]
    : [node('Transpose', ['o'], [y], { perm: [0, 2, 1, 3] })]),
];

/**
 * The models of one step of S tokens: A (x -> qkv), B (attention over the caches, which Cleave
 * filled; y [1, S, H, d]) and the whole graph (y [1, S, H d]) (past K/V in, present K/V out; their length is left open in the model).
 * @param {DecodeShape} p @param {Float32Array} w  [D, 3 H d] @param {number} S
 */
export function decodeModels(p, w, S) {
  const { width: D, heads: H, headDim: d } = p;
  const T = tokensOf(p);
  const hd = H * d;
  const weights = tensor('w', 'float32', [D, 3 * hd], w);
  const yShape = int64('y_shape', [1, S, hd]);
  const heads = int64('heads_shape', [1, S, H, d]);
  const matmul = node('MatMul', ['x', 'w'], ['qkv']);
  /** [1, S, H d] -> [1, H, S, d] @param {string} a @param {string} b */
  const toHeads = (a, b) => [
    node('Reshape', [a, 'heads_shape'], [`${a}_4d`]),
    node('Transpose', [`${a}_4d`], [b], { perm: [0, 2, 1, 3] }),
  ];
  return {
    a: buildModel({
      name: 'decode_a',
      opset: 18,
      nodes: [matmul],
      initializers: [weights],
      inputs: [f32('x', [1, S, D])],
      outputs: [f32('qkv', [1, S, 3 * hd])],
    }),
    b: buildModel({
      name: 'decode_b',
      opset: 18,
      nodes: attendNodes('q', 'k_cache', 'v_cache', 'y', false),
      inputs: [f32('q', [1, H, S, d]), f32('k_cache', [1, H, T, d]), f32('v_cache', [1, H, T, d])],
      outputs: [f32('y', [1, S, H, d])],
    }),
    whole: buildModel({
      name: 'decode_whole',
      opset: 18,
      nodes: [
        matmul,
        node('Split', ['qkv'], ['q_flat', 'k_flat', 'v_flat'], { axis: -1, num_outputs: 3 }),
        ...toHeads('q_flat', 'q'),
        ...toHeads('k_flat', 'k_new'),
        ...toHeads('v_flat', 'v_new'),
        node('Concat', ['past_k', 'k_new'], ['present_k'], { axis: 2 }),
        node('Concat', ['past_v', 'v_new'], ['present_v'], { axis: 2 }),
        ...attendNodes('q', 'present_k', 'present_v', 'y', true),
      ],
      initializers: [weights, yShape, heads],
      inputs: [f32('x', [1, S, D]), f32('past_k'), f32('past_v')],
      outputs: [f32('y', [1, S, hd]), f32('present_k'), f32('present_v')],
    }),
  };
}

/**
 * The reference, in doubles: every step's y (the steps' [S, H d] one after another: [T, H d]),
 * the final caches k and v [H, T, d], and the largest sum of |terms| of any dot product on the way.
 * @param {DecodeShape} p @param {Float32Array} x  [T, D], the sequence's tokens @param {Float32Array} w  [D, 3 H d]
 */
export function decodeReference(p, x, w) {
  const { width: D, heads: H, headDim: d } = p;
  const T = tokensOf(p);
  const hd = H * d;
  const n = 3 * hd;
  const qkv = new Float64Array(T * n);
  let maxTermSum = 0;
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < n; j++) {
      let sum = 0,
        abs = 0;
      for (let i = 0; i < D; i++) {
        const v = /** @type {number} */ (x[t * D + i]) * /** @type {number} */ (w[i * n + j]);
        sum += v;
        abs += Math.abs(v);
      }
      qkv[t * n + j] = sum;
      maxTermSum = Math.max(maxTermSum, abs);
    }
  }
  const at = (/** @type {number} */ part, /** @type {number} */ t, /** @type {number} */ h, /** @type {number} */ j) =>
    /** @type {number} */ (qkv[t * n + part * hd + h * d + j]);
  const y = new Float32Array(T * hd);
  let t0 = 0;
  for (const S of p.steps) {
    const filled = t0 + S;
    for (let s = t0; s < filled; s++)
      for (let h = 0; h < H; h++) {
        const put = (/** @type {number} */ j, /** @type {number} */ o) => {
          y[s * hd + h * d + j] = o;
        };
        maxTermSum = Math.max(
          maxTermSum,
          attendOne((part, u, j) => at(part, u, h, j), s, filled, d, put),
        );
      }
    t0 = filled;
  }
  const cache = (/** @type {number} */ part) => {
    const c = new Float32Array(H * T * d);
    for (let h = 0; h < H; h++)
      for (let t = 0; t < T; t++) for (let j = 0; j < d; j++) c[(h * T + t) * d + j] = at(part, t, h, j);
    return c;
  };
  return { y, k: cache(1), v: cache(2), maxTermSum };
}

/**
 * One query row s of one head against cache slots 0..filled-1: o_j = Σ_u (q_s · k_u) v_u,j;
 * `put(j, o)` receives each output. Returns the largest sum of |terms| it met.
 * @param {(part: number, u: number, j: number) => number} at  part 0: q, 1: k, 2: v
 * @param {number} s @param {number} filled @param {number} d @param {(j: number, o: number) => void} put
 */
function attendOne(at, s, filled, d, put) {
  let max = 0;
  const scores = new Float64Array(filled);
  for (let u = 0; u < filled; u++) {
    let sum = 0,
      abs = 0;
    for (let j = 0; j < d; j++) {
      const v = at(0, s, j) * at(1, u, j);
      sum += v;
      abs += Math.abs(v);
    }
    scores[u] = sum;
    max = Math.max(max, abs);
  }
  for (let j = 0; j < d; j++) {
    let sum = 0,
      abs = 0;
    for (let u = 0; u < filled; u++) {
      const v = /** @type {number} */ (scores[u]) * at(2, u, j);
      sum += v;
      abs += Math.abs(v);
    }
    put(j, sum);
    max = Math.max(max, abs);
  }
  return max;
}
