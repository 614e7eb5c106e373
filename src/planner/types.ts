// What the GPU planner takes and makes, as types: the device's numbers, the key a plan is made for, the buffers a split
// writes and where each output lies in them, and the gather's dispatches down to the tiles the shader reads.

import type { CostModel } from './costs.js';

/** Device numbers a GPU plan depends on. */
export interface GpuLimits {
  /** minStorageBufferOffsetAlignment: every output starts at a multiple of it. */
  readonly alignment: number;
  /** maxStorageBufferBindingSize: the largest window one binding may show. */
  readonly maxBindingBytes: number;
  /** maxBufferSize: the largest output buffer. */
  readonly maxBufferBytes: number;
  /** The target buffers one gather dispatch binds: the shader's destination bindings. */
  readonly targetsPerDispatch: number;
}

/**
 * Everything a GPU plan depends on besides the split and the device: the input's byte offset within the alignment,
 * whether outputs may be views of it, layout 'separate', the strategy asked for, the costs the strategy is chosen by,
 * and for each output with a caller's destination (`into`) the target buffer it lies in (numbered by first
 * appearance), its offset from that target's base and its element strides over the plan's output shape. A call that
 * computes the same key gets the same plan, at its own bases (the plan cache's key, with the split as asked).
 */
export interface PlanKey {
  readonly srcByteOffset: number;
  readonly allowAlias: boolean;
  readonly separate: boolean;
  readonly strategy: Strategy | 'auto';
  readonly costs: CostModel;
  readonly into: readonly (Required<Omit<OutputPlace, 'byteLength'>> | undefined)[] | undefined;
}

/**
 * A buffer a split writes (or, for views, reads): the input's own (`input`: outputs are views of it), one buffer of
 * the caller's destinations (`into`: every destination in that buffer), the engine's shared output buffer (`shared`,
 * `bytes` long, from the pool) or one output's own buffer (`separate`, layout 'separate', `bytes` long). `into`
 * targets come first, numbered as in the key. Offsets in a target count from its base, which a call gives: the input's
 * offset rounded down to the alignment for `input`, 0 for the engine's buffers, and for `into` the lowest offset of
 * the buffer's destinations rounded down to the alignment.
 */
export interface Target {
  readonly kind: 'input' | 'into' | 'shared' | 'separate';
  readonly bytes: number;
}

/**
 * Where an output lies: `byteLength` bytes at `byteOffset` of target `target` (from its base); with `strides`, at a
 * caller's destination with these element strides over the plan's output shape.
 */
export interface OutputPlace {
  readonly target: number;
  readonly byteOffset: number;
  readonly byteLength: number;
  readonly strides?: readonly number[];
}

/** One copyBufferToBuffer command: `size` bytes from `src` of the input to `dst` of target `target`. */
export interface ByteCopy {
  readonly target: number;
  readonly src: number;
  readonly dst: number;
  readonly size: number;
}

/**
 * What the GPU does for one split under one key: its {@link Strategy}, the buffers it writes ({@link Target}) and
 * where each output lies in them, and the commands (copies) or the dispatches (gather) that write them; the other
 * strategies' fields are empty. Never changed once made.
 */
export interface GpuPlan {
  readonly key: PlanKey;
  readonly strategy: Strategy;
  readonly targets: readonly Target[];
  readonly outputs: readonly OutputPlace[];
  /** Each output's regions of the input, in bits, written at its place: what the copies or dispatches carry out. */
  readonly regions: readonly Region[];
  /** Region k's output. */
  readonly outputOf: readonly number[];
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
 * - `gather`: the gather shader, one dispatch for every output in up to `targetsPerDispatch` buffers (more past
 *   that, or past a binding window).
 */
export type Strategy = 'alias' | 'copy' | 'gather';

/** Shader word width in bits: vec4<u32>, vec2<u32> or u32 words, or 1 for the bit-level variant. */
export type UnitBits = 128 | 64 | 32 | 1;

/**
 * The one geometry: `rows` rows of `row_len` units, row r read from `src + r * src_stride` and written to
 * `dst + r * dst_stride`. The planner's regions count bits; a dispatch's tiles count shader units from its windows.
 * The member names are the shader's `Tile` struct's.
 */
export interface Region {
  readonly src: number;
  readonly dst: number;
  readonly row_len: number;
  readonly rows: number;
  readonly src_stride: number;
  readonly dst_stride: number;
}

/**
 * A tile as the shader's `Tile` struct reads it (the same member names): one workgroup's work, positions
 * [first, last) of its region, written to the target bound at the dispatch's `dst_binding`. gather_words: positions
 * are words in row-major order. gather_bits: units are bits; with `dst_stride === row_len` (rows back to back)
 * positions are the window's destination u32 words, else every row starts a destination word and positions are
 * (row, word of the row) in row-major order.
 */
export type ShaderTile = Region & { readonly first: number; readonly last: number; readonly dst_binding: number };

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
  'dst_binding',
] as const satisfies readonly (keyof ShaderTile)[];

/**
 * One gather dispatch: the plan's targets it binds (in binding order), a window of the source and of each bound
 * target (byte offset from the base, size), and its tiles (one workgroup each). In a caller's buffer (`into`), the
 * bytes around the outputs are left as they were.
 */
export interface Dispatch {
  readonly targets: readonly number[];
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindows: readonly (readonly [offset: number, size: number])[];
  readonly tiles: readonly ShaderTile[];
}
