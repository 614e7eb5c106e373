// What the GPU planner takes and makes, as types: the device's numbers, where each output lies,
// the plan of each strategy, and the gather's dispatches down to the tiles the shader reads.

import type { Destination } from '../tensor.js';
import type { CostModel } from './costs.js';

/** Device numbers the layout depends on. */
export interface GpuLimits {
  /** minStorageBufferOffsetAlignment: every output starts at a multiple of it. */
  readonly alignment: number;
  /** maxStorageBufferBindingSize: the largest window one binding may show. */
  readonly maxBindingBytes: number;
  /** maxBufferSize: the largest output buffer. */
  readonly maxBufferBytes: number;
  /** What copy commands and the gather cost on this device: the planner picks the cheaper. */
  readonly costs: CostModel;
}

/**
 * Where an output lies: in the output buffer, in the input's buffer for `alias`, or, with `target`
 * k > 0, in target buffer k: at the caller's destination in the k-th distinct buffer of `into`, or,
 * with `separate` (layout 'separate'), at byte 0 of a buffer of its own, numbered after the caller's.
 */
export interface OutputSlot {
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly target?: number;
  readonly separate?: true;
}

/** One copyBufferToBuffer command: `size` bytes into output `output`, at `dst` of target buffer `target`. */
export interface ByteCopy {
  readonly output: number;
  readonly target: number;
  readonly src: number;
  readonly dst: number;
  readonly size: number;
}

/**
 * What the GPU does for one split: its {@link Strategy}, where each output lies, and the commands (copies) or the
 * dispatches (gather) that write them; the other strategies' fields are empty. Never changed once made: a program
 * records it on every call.
 */
export interface GpuPlan {
  readonly strategy: Strategy;
  readonly outputs: readonly OutputSlot[];
  /** The engine's shared output buffer: 0 when no output lies there (views, or every output elsewhere). */
  readonly bufferBytes: number;
  /** The buffers a split takes from the pool, by size: the shared one, then each separate output's own. */
  readonly buffers: readonly number[];
  readonly copies: readonly ByteCopy[];
  /** Shader word width in bits: 128, 64 or 32 (gather_words), 1 (gather_bits); 0 without a gather. */
  readonly unitBits: UnitBits | 0;
  /** Packed values start at bit 7 of each byte (uint1). */
  readonly msbFirst: boolean;
  readonly dispatches: readonly Dispatch[];
}

/**
 * How the GPU carries out a split:
 * - `alias`: outputs are views of the input buffer; no GPU command at all.
 * - `copy`: copyBufferToBuffer commands (one per output, or per row of strided chunks).
 * - `gather`: the gather shader, one dispatch for any number of outputs (more past a binding window, or with
 *   several destination buffers: the caller's, or one per output with layout 'separate').
 */
export type Strategy = 'alias' | 'copy' | 'gather';

/**
 * Where a split's input starts and where its outputs go, as the GPU planner takes them. A plan made for offsets
 * within one `alignment` of their buffers' bases holds at any base that is a multiple of it: a program plans at
 * those offsets and adds the bases when it records (engine/program.ts).
 */
export interface Placement {
  /** Byte offset of the input data in its buffer. */
  readonly srcByteOffset: number;
  /** Whether outputs may be views of the input buffer. */
  readonly allowAlias: boolean;
  /** Force a strategy where it is possible; `auto` lets the planner choose. */
  readonly strategy?: Strategy | 'auto';
  /** Outputs written at the caller's destinations (no views then), one entry per output. */
  readonly into?: readonly (Destination | undefined)[];
  /** Layout 'separate': every output not at a caller's destination gets a buffer of its own, written once. */
  readonly separate?: boolean;
}

/**
 * A 2-D strided region in bits: `rows` rows of `rowLen`, read `srcStride` apart and written
 * `dstStride` apart (`rowLen`, back to back, unless a caller's destination has strides).
 */
export interface Region {
  readonly src: number;
  readonly dst: number;
  readonly rowLen: number;
  readonly srcStride: number;
  readonly dstStride: number;
  readonly rows: number;
}

/** Shader word width in bits: vec4<u32>, vec2<u32> or u32 words, or 1 for the bit-level variant. */
export type UnitBits = 128 | 64 | 32 | 1;

/**
 * A run of regions in shader units relative to the windows: `count` equal regions `src_step` and
 * `dst_step` apart (4096 equal outputs are one run, not 4096), each `rows` rows of `row_len` read
 * `src_stride` apart and written `dst_stride` apart.
 */
export interface Run {
  readonly src: number;
  readonly dst: number;
  readonly row_len: number;
  readonly src_stride: number;
  readonly dst_stride: number;
  readonly rows: number;
  readonly count: number;
  readonly src_step: number;
  readonly dst_step: number;
}

/**
 * A tile as the shader's `Tile` struct reads it (same member names): one workgroup's work. Its
 * geometry is `rows` rows of `row_len` units, row r read from `src + r * src_stride` and written
 * to `dst + r * dst_stride`; the workgroup covers positions [first, last) of it. gather_words:
 * positions are words in row-major order. gather_bits: units are bits; with `dst_stride ===
 * row_len` (rows back to back) positions are the window's destination u32 words, else every row
 * starts a destination word and positions are (row, word of the row) in row-major order.
 */
export type ShaderTile = { readonly [K in (typeof SHADER_TILE_MEMBERS)[number]]: number };

/** Member names of the shader's Tile struct that the planner fills (the layout is checked against them). */
export const SHADER_TILE_MEMBERS = [
  'src',
  'dst',
  'row_len',
  'rows',
  'src_stride',
  'dst_stride',
  'first',
  'last',
] as const;

/**
 * One gather dispatch: binding windows (byte offset, size), its runs and its tiles (one workgroup
 * each). `target` is the buffer it writes: 0 the engine's output buffer, k > 0 target buffer k (see
 * {@link OutputSlot}); `keepTail` when that buffer is the caller's, whose bytes around the outputs are kept.
 */
export interface Dispatch {
  readonly target: number;
  readonly keepTail: boolean;
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindow: readonly [offset: number, size: number];
  readonly runs: readonly Run[];
  readonly tiles: readonly ShaderTile[];
}
