// The bench's case list: edit this file to add, remove or change cases. Nothing else in bench/
// names a case. Each case is one split:
//   id       unique name; `npm run bench -- --cases REGEX` matches it against this
//   dtype    any of the library's DTYPES but string (ONNX Runtime runs only the 16 ONNX ones; its
//            cells say n/a for the others, e.g. the packed sub-byte uint4 and uint1)
//   shape    input shape
//   axis     split axis
//   parts    a number of equal outputs (ONNX's rule: chunks of ceil(dim/parts)), or
//   sizes    explicit split lengths
//   op       'Split' (default) or 'SplitToSequence' (default split: chunks of length 1)
//   cold     time the first call on a fresh engine and device (pipeline compile included)
//   strategy force Cleave's GPU strategy for this case ('alias' | 'copy' | 'gather'), else the planner picks
//   quick    part of `--quick`
//   sameBytesAs  ids of cases with the same input bytes: the report gives this case's time over theirs
//   sameElementsAs  id of the case with the same element count and split in another dtype: likewise
//   scopeCost  with --probes, also time Cleave's per-split error-scope pair against the same loop without it
//   note     shown in the report
//   nodeQuick  part of `npm run bench:node -- --quick` (bench:node's full run takes every case but the cold
//            ones; the 128 MiB cases stay out of its quick run)
//   nodeOnly   run by bench:node only: the page bench leaves it out
/** @type {readonly import('./types.js').CaseSpec[]} */
export const CASES = [
  { id: 'f32-1024x1024-a0-2', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 2, quick: true },
  { id: 'f32-1024x1024-a0-4', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 4 },
  { id: 'f32-1024x1024-a0-16', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 16 },
  { id: 'f32-1024x1024-a1-2', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 2 },
  { id: 'f32-1024x1024-a1-4', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 4, quick: true },
  { id: 'f32-1024x1024-a1-16', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 16 },
  { id: 'f32-64x4096-a1-64', dtype: 'float32', shape: [64, 4096], axis: 1, parts: 64 },
  {
    id: 'f32-8x512x512-a2-100-200-212',
    dtype: 'float32',
    shape: [8, 512, 512],
    axis: 2,
    sizes: [100, 200, 212],
    nodeQuick: true,
  },
  { id: 'f32-4096x8192-a1-2-128MiB', dtype: 'float32', shape: [4096, 8192], axis: 1, parts: 2 },
  {
    id: 'u8-8192x16384-a1-5461-5462-5461-128MiB',
    dtype: 'uint8',
    shape: [8192, 16384],
    axis: 1,
    sizes: [5461, 5462, 5461],
    nodeOnly: true,
    note: 'the byte-level large split: rows of 5461 bytes are no whole 4-byte words',
  },
  {
    id: 'f16-1x128x12288-a2-3-qkv',
    dtype: 'float16',
    shape: [1, 128, 3 * 4096],
    axis: 2,
    parts: 3,
    nodeQuick: true,
    note: 'the QKV split of a model of width 4096, 128 tokens',
  },
  {
    id: 'f32-4096x1-a0-4096',
    dtype: 'float32',
    shape: [4096, 1],
    axis: 0,
    parts: 4096,
    quick: true,
    nodeQuick: true,
    sameBytesAs: ['f32-4096x1-a0-2', 'f32-4096x1-a0-2-gather'],
  },
  {
    id: 'f32-4096x1-a0-2',
    dtype: 'float32',
    shape: [4096, 1],
    axis: 0,
    parts: 2,
    quick: true,
    note: 'the 2-output case with the same bytes as the 4096-output case',
  },
  {
    id: 'f32-4096x1-a0-2-gather',
    dtype: 'float32',
    shape: [4096, 1],
    axis: 0,
    parts: 2,
    strategy: 'gather',
    note: 'the 2-output split with the gather strategy forced: how the gather alone scales with the output count',
  },
  { id: 'i64-1024x1024-a1-4', dtype: 'int64', shape: [1024, 1024], axis: 1, parts: 4, quick: true },
  { id: 'f16-1024x1024-a1-4', dtype: 'float16', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'u8-1024x1024-a1-4', dtype: 'uint8', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'bool-1024x1024-a1-4', dtype: 'bool', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'c64-1024x1024-a1-4', dtype: 'complex64', shape: [1024, 1024], axis: 1, parts: 4 },
  {
    id: 'u8-1024x1024-a1-301-402-321',
    dtype: 'uint8',
    shape: [1024, 1024],
    axis: 1,
    sizes: [301, 402, 321],
    quick: true,
    nodeQuick: true,
    note:
      'the uint8 peer of the uint4 and uint1 cases: same elements, same split; rows of 301 and 402 bytes are ' +
      'no whole 4-byte words, so Cleave gathers bits here too',
  },
  {
    id: 'u4-1024x1024-a1-301-402-321',
    dtype: 'uint4',
    shape: [1024, 1024],
    axis: 1,
    sizes: [301, 402, 321],
    quick: true,
    nodeQuick: true,
    sameElementsAs: 'u8-1024x1024-a1-301-402-321',
    note:
      'packed 4-bit (OpenVINO u4, LSB-first): chunk boundaries fall inside bytes (301 x 4 bits = 150.5 ' +
      'bytes), so only the bit-level gather can split it',
  },
  {
    id: 'u1-1024x1024-a1-301-402-321',
    dtype: 'uint1',
    shape: [1024, 1024],
    axis: 1,
    sizes: [301, 402, 321],
    quick: true,
    nodeQuick: true,
    sameElementsAs: 'u8-1024x1024-a1-301-402-321',
    note: 'packed 1-bit (OpenVINO u1, MSB-first): 8 values per byte, chunk boundaries inside bytes',
  },
  {
    id: 'tiny-f32-6-a0-3',
    dtype: 'float32',
    shape: [6],
    axis: 0,
    parts: 3,
    quick: true,
    nodeQuick: true,
    scopeCost: true,
    note: 'per-call latency; also what the per-split error-scope pair costs',
  },
  {
    id: 'seq-f32-4096x1-a0',
    dtype: 'float32',
    shape: [4096, 1],
    axis: 0,
    op: 'SplitToSequence',
    note: 'SplitToSequence-11, default split (4096 chunks of 1); ORT reads the sequence with 4096 SequenceAt nodes',
  },
  {
    id: 'cold-f32-1024x1024-a1-4',
    dtype: 'float32',
    shape: [1024, 1024],
    axis: 1,
    parts: 4,
    cold: true,
    quick: true,
    note: 'first call on a fresh engine, on a fresh device each time: pipeline compile included',
  },
];

// Pipelines: ONNX Runtime Web's whole graph against ORT A -> Cleave -> ORT B, GPU-resident,
// in the same page on the same device. The graph: x [1, S, D] -> MatMul by w [D, 3H] -> qkv
// [1, S, 3H] -> Split along the last axis into Q, K, V (heads 1) or Q, K, V per head (3 x heads
// outputs) -> per head o = (q · kᵀ) · v, plus v when heads is 1 (the e2e test's graph), heads
// concatenated. A is the MatMul, B the rest; Cleave splits qkv with layout 'separate'.
//   id      unique name (matched by --cases like a case's)
//   seq     S; width: D; hidden: H (divisible by heads)
//   heads   attention heads
//   quick   part of `--quick`
/** @type {readonly import('./types.js').PipelineSpec[]} */
export const PIPELINES = [
  {
    id: 'pipe-qkv-s128-d256-h256',
    seq: 128,
    width: 256,
    hidden: 256,
    heads: 1,
    quick: true,
    note: "Q, K, V: a Split into 3, which ORT's WebGPU EP runs itself",
  },
  {
    id: 'pipe-qkv-s1-d256-h256',
    seq: 1,
    width: 256,
    hidden: 256,
    heads: 1,
    note: 'one token (S = 1): little arithmetic, so the cost of two ORT runs and a split against one run shows',
  },
  {
    id: 'pipe-12heads-s128-d256-h384',
    seq: 128,
    width: 256,
    hidden: 384,
    heads: 12,
    note: "12 heads of 32: a Split into 36, more outputs than ORT's WebGPU Split can bind storage buffers for",
  },
];

// Per-call CPU cost: token-by-token decoding calls a split per layer per token, so what a
// call costs in JavaScript is what those users pay. Each variant is timed over `calls` calls (1,000
// in --quick), in rounds taken in turn: split and encodeSplit, the input aligned (byte 0 of its
// buffer) or at byte 4, in an engine upload or in a caller's buffer.
//   id, dtype, shape, axis, parts   the split
//   calls   calls timed per variant in a full run
/** @type {readonly import('./types.js').CallCostSpec[]} */
export const CALL_COSTS = [
  {
    id: 'calls-decode-f32-1x1x12288',
    dtype: 'float32',
    shape: [1, 1, 3 * 4096],
    axis: -1,
    parts: 3,
    calls: 10_000,
    quick: true,
    note: 'a decode step: [1, 1, 3 x 4096] float32 into Q, K, V',
  },
];

// Decode loops: a decoder step with a KV cache, run for a whole sequence of steps. ORT's whole graph
// the usual ONNX way (MatMul -> Split -> Concat of past and new K/V into present K/V -> attention,
// past/present fed back each step) against ORT A (MatMul) -> Cleave (engine.split of qkv with
// `into`: q into a buffer of its own, K and V into slot t.. of caches [1, heads, T, d], strided) ->
// ORT B (attention over the whole caches), and the same with B's session created with ORT's
// enableGraphCapture. One timed iteration is the whole sequence, caches cleared first; every
// step's y and the final caches are checked against a reference in doubles, bit for bit.
//   id           unique name (matched by --cases like a case's; `--cases '^decode'` runs only these)
//   width        D: x is [1, S, D]
//   heads        H; headDim: d (qkv is [1, S, 3 H d])
//   prefill      tokens of a first step (S = prefill), before the decode steps; 0 or absent: none
//   decodeSteps  steps of one token (S = 1); the caches hold every token: T = prefill + decodeSteps
//   quick        part of `--quick`
/** @type {readonly import('./types.js').DecodeSpec[]} */
export const DECODES = [
  {
    id: 'decode-s1-d64-h4x16',
    width: 64,
    heads: 4,
    headDim: 16,
    decodeSteps: 32,
    quick: true,
    note: 'decode: 32 steps of one token (S = 1), caches of T = 32 slots',
  },
  {
    id: 'decode-s128-d64-h4x16',
    width: 64,
    heads: 4,
    headDim: 16,
    prefill: 128,
    decodeSteps: 32,
    note: 'prefill: one step of 128 tokens (S = 128), then 32 steps of one token, caches of T = 160 slots',
  },
  {
    id: 'decode-p128-d64-h4x16',
    width: 64,
    heads: 4,
    headDim: 16,
    prefill: 128,
    decodeSteps: 0,
    note: 'the prefill step alone: one step of 128 tokens into caches of T = 128 slots',
  },
];
