// The attention pipeline of the ORT tests and the bench, built in Node: model A (x -> MatMul by w
// -> qkv), model B (attention without softmax on the split of qkv into Q, K and V, or into 3 x heads
// per-head parts), the whole graph with ONNX's own Split, and the reference output computed in
// doubles, independent of ONNX Runtime and of Cleave. With small-integer x and w every product is an
// integer; where no dot product's sum of |terms| reaches 2^24, float32 is exact whatever order a
// kernel sums in. Plain Node ESM with JSDoc types.

import { buildModel, node, tensor } from './onnx-model.mjs';

/** @typedef {import('./onnx-model.mjs').NodeProto} NodeProto */
/**
 * Sequence length, model width, attention width (Q, K and V each [1, seq, hidden]) and heads.
 * @typedef {{ readonly seq: number, readonly width: number, readonly hidden: number, readonly heads: number }} AttentionShape
 */

/**
 * Deterministic integers drawn from `values`.
 * @param {number} n @param {number} seed @param {readonly number[]} values
 */
export function draw(n, seed, values) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return /** @type {number} */ (values[(s >>> 8) % values.length]);
  });
}

/** @param {AttentionShape} p */
export function namesOf(p) {
  return p.heads === 1
    ? ['q', 'k', 'v']
    : ['q', 'k', 'v'].flatMap((x) => Array.from({ length: p.heads }, (_, i) => `${x}${i}`));
}

/** One attention head without softmax: out = (q · kᵀ) · v. @param {string} p @param {string} q @param {string} k @param {string} v @param {string} out */
const head = (p, q, k, v, out) => [
  node('Transpose', [k], [`${p}kt`], { perm: [0, 2, 1] }),
  node('MatMul', [q, `${p}kt`], [`${p}s`]),
  node('MatMul', [`${p}s`, v], [out]),
];

/** B's nodes: y = (q · kᵀ) · v + v for one head; heads concatenated otherwise. @param {AttentionShape} p @returns {NodeProto[]} */
function bNodes(p) {
  if (p.heads === 1) return [...head('', 'q', 'k', 'v', 'o'), node('Add', ['o', 'v'], ['y'])];
  const h = Array.from({ length: p.heads }, (_, i) => i);
  return [
    ...h.flatMap((i) => head(`h${i}`, `q${i}`, `k${i}`, `v${i}`, `o${i}`)),
    node(
      'Concat',
      h.map((i) => `o${i}`),
      ['y'],
      { axis: -1 },
    ),
  ];
}

/**
 * The three models of a pipeline.
 * @param {AttentionShape} p @param {Float32Array} w  [D, 3H]
 */
export function attentionModels(p, w) {
  const { seq: S, width: D, hidden: H } = p;
  const names = namesOf(p);
  /** @param {string} name @param {number[]} shape */
  const f32 = (name, shape) => ({ name, dtype: /** @type {const} */ ('float32'), shape });
  const matmul = node('MatMul', ['x', 'w'], ['qkv']);
  const initializers = [tensor('w', 'float32', [D, 3 * H], w)];
  const y = f32('y', [1, S, H]);
  const split = node('Split', ['qkv'], names, { axis: -1, num_outputs: names.length });
  return {
    a: buildModel({
      name: 'a',
      opset: 18,
      nodes: [matmul],
      initializers,
      inputs: [f32('x', [1, S, D])],
      outputs: [f32('qkv', [1, S, 3 * H])],
    }),
    b: buildModel({
      name: 'b',
      opset: 18,
      nodes: bNodes(p),
      inputs: names.map((n) => f32(n, [1, S, (H * 3) / names.length])),
      outputs: [y],
    }),
    whole: buildModel({
      name: 'whole',
      opset: 18,
      nodes: [matmul, split, ...bNodes(p)],
      initializers,
      inputs: [f32('x', [1, S, D])],
      outputs: [y],
    }),
  };
}

/**
 * The reference y in doubles, and the largest sum of |terms| of any dot product on the way.
 * @param {AttentionShape} p @param {Float32Array} x  [S, D] @param {Float32Array} w  [D, 3H]
 */
export function attentionReference(p, x, w) {
  const { seq: S, width: D, hidden: H, heads } = p;
  const n = 3 * H,
    dh = H / heads;
  const qkv = new Float64Array(S * n);
  const bound = new Float64Array(S * n);
  for (let s = 0; s < S; s++) {
    for (let d = 0; d < D; d++) {
      const xv = /** @type {number} */ (x[s * D + d]);
      if (xv === 0) continue;
      for (let j = 0; j < n; j++) {
        const t = xv * /** @type {number} */ (w[d * n + j]);
        qkv[s * n + j] += t;
        bound[s * n + j] += Math.abs(t);
      }
    }
  }
  let maxTermSum = bound.reduce((a, b) => Math.max(a, b), 0);
  const y = new Float32Array(S * H);
  for (let h = 0; h < heads; h++) {
    const plusV = heads === 1;
    const put = (/** @type {number} */ s, /** @type {number} */ j, /** @type {number} */ o) => {
      y[s * H + h * dh + j] = o;
    };
    maxTermSum = Math.max(maxTermSum, attend({ qkv, S, n, H, col: h * dh, dh, plusV }, put));
  }
  return { y, maxTermSum };
}

/**
 * One head of (q · kᵀ) · v (+ v with `plusV`) on qkv rows of n values, the head's dh columns at
 * `col` (+H for k, +2H for v); `put(s, j, o)` receives each output. Returns the largest sum of
 * |terms| it met.
 * @param {{ qkv: Float64Array, S: number, n: number, H: number, col: number, dh: number, plusV: boolean }} g
 * @param {(s: number, j: number, o: number) => void} put
 */
function attend({ qkv, S, n, H, col, dh, plusV }, put) {
  const at = (/** @type {number} */ part, /** @type {number} */ s, /** @type {number} */ j) =>
    /** @type {number} */ (qkv[s * n + part * H + col + j]);
  let max = 0;
  const scores = new Float64Array(S);
  for (let s = 0; s < S; s++) {
    for (let t = 0; t < S; t++) {
      let sum = 0,
        abs = 0;
      for (let j = 0; j < dh; j++) {
        const v = at(0, s, j) * at(1, t, j);
        sum += v;
        abs += Math.abs(v);
      }
      scores[t] = sum;
      max = Math.max(max, abs);
    }
    for (let j = 0; j < dh; j++) {
      let sum = 0,
        abs = 0;
      for (let t = 0; t < S; t++) {
        const v = /** @type {number} */ (scores[t]) * at(2, t, j);
        sum += v;
        abs += Math.abs(v);
      }
      const v = plusV ? at(2, s, j) : 0;
      put(s, j, sum + v);
      max = Math.max(max, abs + Math.abs(v));
    }
  }
  return max;
}
