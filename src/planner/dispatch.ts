// Gather dispatches: binding windows, runs of regions and the tiles the shader's workgroups take,
// in shader units. One dispatch covers every output when the input and the outputs each fit one
// binding window; beyond that, one dispatch per window-sized piece of a region.

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
 * each). `target` is the buffer it writes: 0 the engine's output buffer, k > 0 the k-th distinct
 * buffer of the caller's destinations (`into`), whose bytes around the outputs are kept.
 */
export interface Dispatch {
  readonly target: number;
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindow: readonly [offset: number, size: number];
  readonly runs: readonly Run[];
  readonly tiles: readonly ShaderTile[];
}

/** Destination u32 words a gather_bits tile of a small geometry covers: 8 per lane of a 256-lane workgroup. */
export const TILE_POSITIONS = 2048;

/**
 * Words a gather_words tile covers, at most: 16 per lane. On SwiftShader every SIMD group of a
 * workgroup pays the tile's setup (its descriptor, a division), so longer tiles measured faster
 * (the float32 cases: 4096 against 2048 and 8192).
 */
export const WORD_TILE_WORDS = 4096;

/**
 * Destination u32 words one gather_bits tile covers in a geometry of that many words or more: 32
 * per lane (8 groups of 4). Longer than a word tile: a tile's setup (its descriptor, divisions, the
 * passes for seams and edges) weighs more beside bit work. On SwiftShader, in one process against
 * the previous rule (8192 only from 4 such tiles up), the uint1 301/402/321 case ran 1.6x faster and
 * the uint8 and uint4 ones the same; 16384 left the uint1 case's cores idle (3 tiles, 1.8x slower).
 * Smaller geometries keep TILE_POSITIONS.
 */
export const BIT_TILE_POSITIONS = 8192;

/** `x` rounded up to a multiple of `a`. */
export const align = (x: number, a: number) => Math.ceil(x / a) * a;
/** A buffer size for `x` bytes: a multiple of 4, at least 4 (WebGPU sizes and copies are in 4-byte words). */
export const align4 = (x: number) => Math.max(4, align(x, 4));

/** One bit past a region's last row, read from `at` with stride `stride`. */
const endOf = (r: Region, at: number, stride: number) => at + (r.rows - 1) * stride + r.rowLen;

/**
 * Dispatches for `regions` (in bits) read from input bytes [srcBegin, srcEnd) into bytes
 * [dstBegin, dstEnd) of buffer `target`. Offsets inside a window stay below 2^31 shader units so
 * the shader's u32 arithmetic never wraps: 2 GiB for words, 256 MiB for the bit variant.
 */
export function planDispatches(
  regions: readonly Region[],
  src: readonly [begin: number, end: number],
  dst: readonly [begin: number, end: number],
  unit: UnitBits,
  limits: { readonly alignment: number; readonly maxBindingBytes: number },
  target = 0,
): Dispatch[] {
  const a = limits.alignment;
  const span = Math.floor(Math.min(limits.maxBindingBytes, unit === 1 ? 2 ** 28 : 2 ** 31) / a) * a;
  const [srcBase, dstBase] = [Math.floor(src[0] / a) * a, Math.floor(dst[0] / a) * a];
  if (align(src[1], 4) - srcBase <= span && align(dst[1], 4) - dstBase <= span) {
    return [makeDispatch(regions, srcBase, align(src[1], 4), dstBase, align(dst[1], 4), unit, target)];
  }
  // One dispatch per tile, each tile a block of rows (or of one row's bits) small enough that its
  // source and destination each fit one window.
  const room = (span - a) * 8;
  const out: Dispatch[] = [];
  for (const r of regions) {
    for (const t of tileRegion(r, room, unit)) {
      const [sb, db] = [Math.floor(t.src / 8 / a) * a, Math.floor(t.dst / 8 / a) * a];
      const [se, de] = [Math.ceil(endOf(t, t.src, t.srcStride) / 8), Math.ceil(endOf(t, t.dst, t.dstStride) / 8)];
      out.push(makeDispatch([t], sb, align(se, 4), db, align(de, 4), unit, target));
    }
  }
  return out;
}

/** Cuts a region into pieces whose source and destination spans are at most `room` bits. */
export function tileRegion(r: Region, room: number, unit: UnitBits): Region[] {
  const out: Region[] = [];
  if (r.rowLen <= room) {
    const stride = Math.max(r.srcStride, r.dstStride);
    const k = Math.max(1, Math.min(r.rows, Math.floor((room - r.rowLen) / stride) + 1));
    for (let row = 0; row < r.rows; row += k) {
      out.push({
        ...r,
        src: r.src + row * r.srcStride,
        dst: r.dst + row * r.dstStride,
        rows: Math.min(k, r.rows - row),
      });
    }
    return out;
  }
  const step = Math.floor(room / Math.max(unit, 32)) * Math.max(unit, 32);
  for (let row = 0; row < r.rows; row++) {
    for (let col = 0; col < r.rowLen; col += step) {
      const rowLen = Math.min(step, r.rowLen - col);
      out.push({
        src: r.src + row * r.srcStride + col,
        dst: r.dst + row * r.dstStride + col,
        rowLen,
        srcStride: rowLen,
        dstStride: rowLen,
        rows: 1,
      });
    }
  }
  return out;
}

/** One dispatch over windows [srcBase, srcEnd) and [dstBase, dstEnd) (bytes) and regions in bits. */
function makeDispatch(
  regions: readonly Region[],
  srcBase: number,
  srcEnd: number,
  dstBase: number,
  dstEnd: number,
  unit: UnitBits,
  target: number,
): Dispatch {
  const runs: Run[] = [];
  const tiles: ShaderTile[] = [];
  for (let i = 0; i < regions.length;) {
    const r = regions[i]!;
    const count = runLength(regions, i, unit);
    const next = regions[i + 1];
    const [srcStep, dstStep] = count > 1 ? [next!.src - r.src, next!.dst - r.dst] : [0, 0];
    const run: Run = {
      src: (r.src - srcBase * 8) / unit,
      dst: (r.dst - dstBase * 8) / unit,
      row_len: r.rowLen / unit,
      src_stride: r.srcStride / unit,
      dst_stride: r.dstStride / unit,
      rows: r.rows,
      count,
      src_step: srcStep / unit,
      dst_step: dstStep / unit,
    };
    runs.push(run);
    tilesOf(run, unit, tiles);
    i += count;
  }
  return { target, srcWindow: [srcBase, srcEnd - srcBase], dstWindow: [dstBase, dstEnd - dstBase], runs, tiles };
}

/**
 * Appends a run's tiles. Equal one-row regions are one geometry whose strides are the run's
 * steps; regions of several rows are one geometry each.
 */
export function tilesOf(run: Run, unit: UnitBits, out: ShaderTile[]): void {
  const g = {
    src: run.src,
    dst: run.dst,
    row_len: run.row_len,
    src_stride: run.src_stride,
    dst_stride: run.dst_stride,
  };
  if (run.rows === 1) {
    // A lone row: its strides never matter; equal lone rows: the steps are the strides.
    const rows = run.count;
    const strided =
      rows > 1
        ? { src_stride: run.src_step, dst_stride: run.dst_step }
        : { src_stride: run.row_len, dst_stride: run.row_len };
    cover({ ...g, ...strided, rows }, unit, out);
    return;
  }
  for (let c = 0; c < run.count; c++) {
    cover({ ...g, rows: run.rows, src: run.src + c * run.src_step, dst: run.dst + c * run.dst_step }, unit, out);
  }
}

type Geometry = Omit<ShaderTile, 'first' | 'last'>;

/** Lanes of the shader's workgroup. */
const WORKGROUP_SIZE = 256;

/** Cuts a geometry into tiles: rows for words, destination words for bits. */
function cover(g: Geometry, unit: UnitBits, out: ShaderTile[]): void {
  if (unit !== 1) return coverRows(g, out);
  const [first, last] =
    g.dst_stride === g.row_len
      ? [Math.floor(g.dst / 32), Math.ceil((g.dst + g.rows * g.row_len) / 32)]
      : [0, g.rows * Math.ceil(g.row_len / 32)];
  const span = last - first >= BIT_TILE_POSITIONS ? BIT_TILE_POSITIONS : TILE_POSITIONS;
  for (let p = first; p < last; p += span) out.push({ ...g, first: p, last: Math.min(last, p + span) });
}

/**
 * gather_words' tiles: blocks of whole rows of about WORD_TILE_WORDS words, in whole passes of the
 * workgroup (256 / row_len rows each). A geometry whose rows lie back to back on both sides (one
 * row, say: a contiguous chunk) is one run of words, recut into rows of 256 words and one shorter
 * row; a longer row of a strided geometry is cut into columns of 256 words, each a geometry of its
 * own with the same strides.
 */
function coverRows(g: Geometry, out: ShaderTile[]): void {
  if (g.row_len > WORKGROUP_SIZE && (g.rows === 1 || (g.src_stride === g.row_len && g.dst_stride === g.row_len))) {
    const words = g.rows * g.row_len;
    const cut = words - (words % WORKGROUP_SIZE);
    const row = { row_len: WORKGROUP_SIZE, src_stride: WORKGROUP_SIZE, dst_stride: WORKGROUP_SIZE };
    coverRows({ ...g, ...row, rows: cut / WORKGROUP_SIZE }, out);
    if (cut < words)
      coverRows({ ...g, ...row, src: g.src + cut, dst: g.dst + cut, row_len: words - cut, rows: 1 }, out);
    return;
  }
  for (let c = 0; c < g.row_len; c += WORKGROUP_SIZE) {
    const rowLen = Math.min(WORKGROUP_SIZE, g.row_len - c);
    const passRows = Math.floor(WORKGROUP_SIZE / rowLen);
    const rows = Math.max(1, Math.floor(WORD_TILE_WORDS / rowLen / passRows)) * passRows;
    const cols = { ...g, src: g.src + c, dst: g.dst + c, row_len: rowLen };
    for (let r = 0; r < g.rows; r += rows) out.push({ ...cols, first: r, last: Math.min(g.rows, r + rows) });
  }
}

/**
 * How many regions from `i` have the same form at the same distance (a run the shader walks as
 * one). The bit variant takes a run only of one-row regions whose destinations start words and
 * stay whole words apart: each row then owns its destination words.
 */
function runLength(regions: readonly Region[], i: number, unit: UnitBits): number {
  const r = regions[i]!;
  const next = regions[i + 1];
  if (!next) return 1;
  const srcStep = next.src - r.src;
  const dstStep = next.dst - r.dst;
  if (unit === 1 && (r.rows !== 1 || r.dst % 32 !== 0 || dstStep % 32 !== 0 || dstStep < r.rowLen)) return 1;
  let count = 1;
  while (i + count < regions.length) {
    const q = regions[i + count]!;
    if (
      q.rows !== r.rows ||
      q.rowLen !== r.rowLen ||
      q.srcStride !== r.srcStride ||
      q.dstStride !== r.dstStride ||
      q.src - r.src !== count * srcStep ||
      q.dst - r.dst !== count * dstStep
    )
      break;
    count++;
  }
  return count;
}
