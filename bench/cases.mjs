// The bench's case lists: edit this file to add, remove or change cases. Nothing else in bench/ names a
// case. Each case is one split:
//   id       unique name; `--cases REGEX` matches it against this
//   dtype    any of the library's DTYPES but string (ONNX Runtime runs only the 16 ONNX ones; its cells say
//            n/a for the others, e.g. the packed sub-byte uint4 and uint1)
//   shape    input shape; axis: split axis
//   parts    a number of equal outputs (ONNX's rule: chunks of ceil(dim/parts)), or
//   sizes    explicit split lengths
//   op       'Split' (default) or 'SplitToSequence' (default split: chunks of length 1)
//   cold     time the first call on a fresh engine and device (pipeline compile included)
//   strategy force Cleave's GPU strategy for this case ('alias' | 'copy' | 'gather'), else the planner picks
//   quick    part of `--quick`
//   sameBytesAs  ids of cases with the same input bytes: the report gives this case's time over theirs
//   sameElementsAs  id of the case with the same element count and split in another dtype: likewise
//   scopeCost  with --probes, also time Cleave's per-split error-scope pair against the same loop without it
//   nodeQuick  part of `npm run bench:node -- --quick` (bench:node's full run takes every case but the cold
//            ones; the 128 MiB cases stay out of its quick run)
//   nodeOnly   run by bench:node only: the page bench leaves it out
/** @type {readonly import('./types.js').CaseSpec[]} */
export const CASES = [
  { id: 'f32-1024x1024-a0-2', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 2, quick: true },
  { id: 'f32-1024x1024-a0-4', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 4 },
  { id: 'f32-1024x1024-a0-16', dtype: 'float32', shape: [1024, 1024], axis: 0, parts: 16 },
  { id: 'f32-1024x1024-a1-2', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 2 },
  { id: 'f32-1024x1024-a1-4', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 4, quick: true, nodeQuick: true },
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
  // The byte-level large split: rows of 5461 bytes are no whole 4-byte words.
  {
    id: 'u8-8192x16384-a1-5461-5462-5461-128MiB',
    dtype: 'uint8',
    shape: [8192, 16384],
    axis: 1,
    sizes: [5461, 5462, 5461],
    nodeOnly: true,
  },
  // The QKV split of a model of width 4096, 128 tokens.
  { id: 'f16-1x128x12288-a2-3-qkv', dtype: 'float16', shape: [1, 128, 3 * 4096], axis: 2, parts: 3, nodeQuick: true },
  // 4096 outputs of one element, beside 2 outputs of the same bytes (the planner's plan, and gather forced: how
  // the gather alone scales with the output count).
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
  { id: 'f32-4096x1-a0-2', dtype: 'float32', shape: [4096, 1], axis: 0, parts: 2, quick: true },
  { id: 'f32-4096x1-a0-2-gather', dtype: 'float32', shape: [4096, 1], axis: 0, parts: 2, strategy: 'gather' },
  { id: 'i64-1024x1024-a1-4', dtype: 'int64', shape: [1024, 1024], axis: 1, parts: 4, quick: true },
  { id: 'f16-1024x1024-a1-4', dtype: 'float16', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'u8-1024x1024-a1-4', dtype: 'uint8', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'bool-1024x1024-a1-4', dtype: 'bool', shape: [1024, 1024], axis: 1, parts: 4 },
  { id: 'c64-1024x1024-a1-4', dtype: 'complex64', shape: [1024, 1024], axis: 1, parts: 4 },
  // uint8, uint4 (OpenVINO u4, LSB-first) and uint1 (u1, MSB-first): the same elements and split. Rows of 301
  // and 402 bytes are no whole 4-byte words, so Cleave gathers bits in all three; in the packed ones chunk
  // boundaries fall inside bytes (301 x 4 bits = 150.5 bytes).
  {
    id: 'u8-1024x1024-a1-301-402-321',
    dtype: 'uint8',
    shape: [1024, 1024],
    axis: 1,
    sizes: [301, 402, 321],
    quick: true,
    nodeQuick: true,
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
  },
  // Per-call latency; with --probes, also what the per-split error-scope pair costs.
  {
    id: 'tiny-f32-6-a0-3',
    dtype: 'float32',
    shape: [6],
    axis: 0,
    parts: 3,
    quick: true,
    nodeQuick: true,
    scopeCost: true,
  },
  // SplitToSequence-11, default split (4096 chunks of 1); ORT reads the sequence with 4096 SequenceAt nodes.
  { id: 'seq-f32-4096x1-a0', dtype: 'float32', shape: [4096, 1], axis: 0, op: 'SplitToSequence' },
  // The first call on a fresh engine, on a fresh device each time: pipeline compile included.
  { id: 'cold-f32-1024x1024-a1-4', dtype: 'float32', shape: [1024, 1024], axis: 1, parts: 4, cold: true, quick: true },
];

// Pipelines: ONNX Runtime Web's whole graph against ORT A -> Cleave -> ORT B, GPU-resident, in the same page
// on the same device. The graph: x [1, S, D] -> MatMul by w [D, 3H] -> qkv [1, S, 3H] -> Split along the last
// axis into Q, K, V (heads 1) or Q, K, V per head (3 x heads outputs) -> per head o = (q · kᵀ) · v, plus v
// when heads is 1, heads concatenated. A is the MatMul, B the rest; Cleave splits qkv with layout 'separate'.
//   id      unique name (matched by --cases like a case's)
//   seq     S; width: D; hidden: H (divisible by heads)
//   heads   attention heads
//   quick   part of `--quick`
/** @type {readonly import('./types.js').PipelineSpec[]} */
export const PIPELINES = [
  // Q, K, V: a Split into 3, which ORT's WebGPU EP runs itself.
  { id: 'pipe-qkv-s128-d256-h256', seq: 128, width: 256, hidden: 256, heads: 1, quick: true },
  // One token: little arithmetic, so the cost of two ORT runs and a split against one run shows.
  { id: 'pipe-qkv-s1-d256-h256', seq: 1, width: 256, hidden: 256, heads: 1 },
  // 12 heads of 32: a Split into 36, more outputs than ORT's WebGPU Split can bind storage buffers for.
  { id: 'pipe-12heads-s128-d256-h384', seq: 128, width: 256, hidden: 384, heads: 12 },
];

// Decode loops: a decoder step with a KV cache, run for a whole sequence of steps: ORT's whole graph the
// usual ONNX way (past and present K and V) against examples/kv-cache-decode/ (ORT A -> Cleave `into` the
// caches -> ORT B). One timed iteration is the whole sequence.
//   id           unique name (matched by --cases like a case's; `--cases '^decode'` runs only these)
//   width        D: x is [1, S, D]
//   heads        H; headDim: d (qkv is [1, S, 3 H d])
//   prefill      tokens of a first step (S = prefill), before the decode steps; absent: none
//   decodeSteps  steps of one token; the caches hold every token: T = prefill + decodeSteps
//   quick        part of `--quick`
/** @type {readonly import('./types.js').DecodeSpec[]} */
export const DECODES = [
  // 32 steps of one token, caches of 32 slots.
  { id: 'decode-s1-d64-h4x16', width: 64, heads: 4, headDim: 16, decodeSteps: 32, quick: true },
  // A step of 128 tokens, then 32 steps of one token, caches of 160 slots.
  { id: 'decode-s128-d64-h4x16', width: 64, heads: 4, headDim: 16, prefill: 128, decodeSteps: 32 },
  // The prefill step alone: 128 tokens into caches of 128 slots.
  { id: 'decode-p128-d64-h4x16', width: 64, heads: 4, headDim: 16, prefill: 128, decodeSteps: 0 },
];

// The decode step on the runtime's own device (bench/node/decode-step.mjs): a fused float16 QKV [1, 3 H, 1, D] in a
// buffer of the runtime's, split by a split prepared once on `createSplitEngine({ device })`: Q into a buffer of the
// runtime's, K and V into heads-major caches [1, H, T, D] at a slot that moves one position per step, each step
// recorded into the runtime's encoder and submitted by it; the gather forced and the planner's choice. It counts
// compiles, GPU work no call recorded and the calls per step, checks the caches, and times the steps against the
// same WebGPU calls replayed bare. bench:node only (not in --quick).
//   id        unique name (matched by --cases like a case's: `--cases '^decode-step$'`)
//   heads     H; tokens: T (the caches' slots); headDim: D
//   warmup    steps before the counted ones (both alignment classes of the moving slot met)
//   target    the issue's bound on Cleave's step over the replayed calls' (host time, fastest rounds)
/** @type {readonly import('./types.js').DecodeStepSpec[]} */
export const DECODE_STEPS = [{ id: 'decode-step', heads: 12, tokens: 64, headDim: 64, warmup: 8, target: 1.25 }];

// Per-call cost: a token-by-token decoder calls a split per layer per token, and such a split is small, so what a
// call costs in JavaScript and WebGPU calls is what its users pay, on any GPU. Each variant (split, encodeSplit with
// its encoder and submit, a prepared split, on an engine upload or a caller's buffer, aligned or at byte 4) is
// called callsInARow times in a row per round (7 rounds in --quick, else 21; --call-rounds N) and compared with the
// bare calls its copies need, and the same inside error scopes, timed in the same rounds.
//   id, dtype, shape, axis, parts   the split (here: a decode step, [1, 1, 3 x 4096] into Q, K, V)
//   callsInARow   calls per variant per round, timed as a whole
/** @type {readonly import('./types.js').CallCostSpec[]} */
export const CALL_COSTS = [
  {
    id: 'calls-decode-f32-1x1x12288',
    dtype: 'float32',
    shape: [1, 1, 3 * 4096],
    axis: -1,
    parts: 3,
    callsInARow: 100,
    quick: true,
  },
];
