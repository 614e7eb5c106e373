// The tiles the shader's workgroups take: each geometry cut into blocks of whole rows of words (gather_words) or into
// spans of destination words (gather_bits), one workgroup each, written to one of the dispatch's bound targets.

import type { Region, ShaderTile, UnitBits } from './types.js';

/** Destination u32 words a gather_bits tile of a small geometry covers: 8 per lane of a 256-lane workgroup. */
export const TILE_POSITIONS = 2048;

/**
 * Words a gather_words tile covers, at most: 16 per lane. Every SIMD group of a workgroup pays the
 * tile's setup (its descriptor, a division): a longer tile spreads that setup over more words, a
 * shorter one leaves more tiles for the adapter's cores to share (bench/RESULTS.md has the measurements).
 */
export const WORD_TILE_WORDS = 4096;

/**
 * Destination u32 words one gather_bits tile covers in a geometry of that many words or more: 32
 * per lane (8 groups of 4). Longer than a word tile: a tile's setup (its descriptor, divisions, the
 * passes for seams and edges) weighs more beside bit work. Longer still would leave cores idle on
 * a geometry of a few tiles; smaller geometries keep TILE_POSITIONS, so they still make several.
 */
export const BIT_TILE_POSITIONS = 8192;

/** Lanes of the shader's workgroup. */
const WORKGROUP_SIZE = 256;

/** Appends the tiles of geometry `g` (in shader units) written to `dst_binding`: rows for words, words for bits. */
export function coverRegion(g: Region, unit: UnitBits, dst_binding: number, out: ShaderTile[]): void {
  if (unit !== 1) return coverRows(g, dst_binding, out);
  const [first, last] =
    g.dst_stride === g.row_len
      ? [Math.floor(g.dst / 32), Math.ceil((g.dst + g.rows * g.row_len) / 32)]
      : [0, g.rows * Math.ceil(g.row_len / 32)];
  const span = last - first >= BIT_TILE_POSITIONS ? BIT_TILE_POSITIONS : TILE_POSITIONS;
  for (let p = first; p < last; p += span) out.push({ ...g, first: p, last: Math.min(last, p + span), dst_binding });
}

/**
 * gather_words' tiles: blocks of whole rows of about WORD_TILE_WORDS words, in whole passes of the
 * workgroup (256 / row_len rows each). A geometry whose rows lie back to back on both sides (one
 * row, say: a contiguous chunk) is one stretch of words, recut into rows of 256 words and one shorter
 * row; a longer row of a strided geometry is cut into columns of 256 words, each a geometry of its
 * own with the same strides.
 */
function coverRows(g: Region, dst_binding: number, out: ShaderTile[]): void {
  if (g.row_len > WORKGROUP_SIZE && (g.rows === 1 || (g.src_stride === g.row_len && g.dst_stride === g.row_len))) {
    const words = g.rows * g.row_len;
    const cut = words - (words % WORKGROUP_SIZE);
    const row = { row_len: WORKGROUP_SIZE, src_stride: WORKGROUP_SIZE, dst_stride: WORKGROUP_SIZE };
    coverRows({ ...g, ...row, rows: cut / WORKGROUP_SIZE }, dst_binding, out);
    if (cut < words)
      coverRows({ ...g, ...row, src: g.src + cut, dst: g.dst + cut, row_len: words - cut, rows: 1 }, dst_binding, out);
    return;
  }
  for (let c = 0; c < g.row_len; c += WORKGROUP_SIZE) {
    const rowLen = Math.min(WORKGROUP_SIZE, g.row_len - c);
    const passRows = Math.floor(WORKGROUP_SIZE / rowLen);
    const rows = Math.max(1, Math.floor(WORD_TILE_WORDS / rowLen / passRows)) * passRows;
    const cols = { ...g, src: g.src + c, dst: g.dst + c, row_len: rowLen };
    for (let r = 0; r < g.rows; r += rows)
      out.push({ ...cols, first: r, last: Math.min(g.rows, r + rows), dst_binding });
  }
}
