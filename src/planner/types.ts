// What the GPU planner takes and makes, as types: the device's numbers, the buffers a split writes and where each
// output lies in them, the plan of each strategy, and the gather's dispatches down to the tiles the shader reads.

import type { CostModel } from './costs.js';

/** Device numbers a GPU plan depends on. */
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
 * A buffer a split writes (or, for views, reads): the input's own (`input`: outputs are views of it), the engine's
 * shared output buffer (`shared`: `bytes` long, from the pool), the buffer of output `output`'s destination (`into`:
 * the caller's, which every output whose destination lies in it shares), or output `output`'s own buffer (`separate`,
 * layout 'separate': `bytes` long, from the pool). Offsets in a target count from its base, which a call gives: the
 * input's offset rounded down to the alignment for `input`, 0 for the engine's buffers, and for `into` the lowest
 * destination offset in it rounded down to the alignment.
 */
export interface Target {
  readonly kind: 'input' | 'shared' | 'into' | 'separate';
  readonly output: number;
  readonly bytes: number;
}

/**
 * Where an output lies: `byteLength` bytes at `byteOffset` of target `target` (from its base); with `strides`, at a
 * caller's destination with these element strides over the plan's output shape.
 */
export interface OutputSlot {
  readonly target: number;
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly strides?: readonly number[];
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
 * What the GPU does for one split at one placement: its {@link Strategy}, the buffers it writes ({@link Target}) and
 * where each output lies in them, and the commands (copies) or the dispatches (gather) that write them; the other
 * strategies' fields are empty. It records what it was made for: the input's offset within the alignment, whether
 * views were allowed, the costs it was chosen by, and (in its outputs) where each destination lies from its target's
 * base: a call placed alike at any bases gets it again (gpu.ts, `fits`). Never changed once made.
 */
export interface GpuPlan {
  readonly srcByteOffset: number;
  readonly allowAlias: boolean;
  readonly costs: CostModel;
  readonly strategy: Strategy;
  readonly targets: readonly Target[];
  readonly outputs: readonly OutputSlot[];
  /** The sizes of the buffers it takes from the pool: its `shared` and `separate` targets' bytes. */
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
 * A series of regions in shader units relative to the windows: `count` equal regions `src_step` and
 * `dst_step` apart (4096 equal outputs are one series, not 4096), each `rows` rows of `row_len` read
 * `src_stride` apart and written `dst_stride` apart.
 */
export interface Series {
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

/** Member names of the shader's Tile struct that the planner fills (the reflected struct is checked against them). */
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
 * One gather dispatch: binding windows (byte offset from the bases, size), its series and its tiles (one workgroup
 * each). `target` is the {@link Target} it writes; in a caller's (`into`), the bytes around the outputs are left as
 * they were.
 */
export interface Dispatch {
  readonly target: number;
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindow: readonly [offset: number, size: number];
  readonly series: readonly Series[];
  readonly tiles: readonly ShaderTile[];
}
