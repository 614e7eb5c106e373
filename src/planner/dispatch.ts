// Gather dispatches: binding windows and regions in shader units. One dispatch covers every output
// when the input and the outputs each fit one binding window; beyond that, one dispatch per tile.

/** A 2-D strided region in bits: `rows` rows of `rowLen`, read `srcStride` apart, written back to back from `dst`. */
export interface Region {
  readonly src: number;
  readonly dst: number;
  readonly rowLen: number;
  readonly srcStride: number;
  readonly rows: number;
}

/** Shader word width in bits: vec4<u32>, vec2<u32> or u32 words, or 1 for the bit-level variant. */
export type UnitBits = 128 | 64 | 32 | 1;

/**
 * A region as the shader's `Region` struct reads it (same member names), in units relative to the
 * windows: `count` equal regions `src_step` and `dst_step` apart form one run (4096 equal outputs
 * are one entry, not 4096), and `start` is the run's first thread.
 */
export type ShaderRegion = { readonly [K in (typeof SHADER_REGION_MEMBERS)[number]]: number };

/** Member names of the shader's Region struct that the planner fills (the layout is checked against them). */
export const SHADER_REGION_MEMBERS = [
  'start',
  'src',
  'dst',
  'row_len',
  'src_stride',
  'rows',
  'count',
  'src_step',
  'dst_step',
] as const;

/** One gather dispatch: binding windows (byte offset, size) and its regions in shader units. */
export interface Dispatch {
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindow: readonly [offset: number, size: number];
  readonly regions: readonly ShaderRegion[];
  readonly threads: number;
}

/** Shader words each gather thread writes (the shader's WORDS_PER_THREAD override). */
export const WORDS_PER_THREAD = 8;

/** `x` rounded up to a multiple of `a`. */
export const align = (x: number, a: number) => Math.ceil(x / a) * a;
/** A buffer size for `x` bytes: a multiple of 4, at least 4 (WebGPU sizes and copies are in 4-byte words). */
export const align4 = (x: number) => Math.max(4, align(x, 4));

/**
 * Dispatches for `regions` (in bits) read from input bytes [srcBegin, srcEnd) into an output of
 * `dstEnd` bytes. Offsets inside a window stay below 2^31 shader units so the shader's u32
 * arithmetic never wraps: 2 GiB for words, 256 MiB for the bit variant.
 */
export function planDispatches(
  regions: readonly Region[],
  srcBegin: number,
  srcEnd: number,
  dstEnd: number,
  unit: UnitBits,
  limits: { readonly alignment: number; readonly maxBindingBytes: number },
): Dispatch[] {
  const a = limits.alignment;
  const span = Math.floor(Math.min(limits.maxBindingBytes, unit === 1 ? 2 ** 28 : 2 ** 31) / a) * a;
  const srcBase = Math.floor(srcBegin / a) * a;
  if (align(srcEnd, 4) - srcBase <= span && dstEnd <= span) {
    return [makeDispatch(regions, srcBase, align(srcEnd, 4), 0, dstEnd, unit)];
  }
  // One dispatch per tile, each tile a block of rows (or of one row's bits) small enough that its
  // source and destination each fit one window.
  const room = (span - a) * 8;
  const out: Dispatch[] = [];
  for (const r of regions) {
    for (const t of tileRegion(r, room, unit)) {
      const sb = Math.floor(t.src / 8 / a) * a;
      const db = Math.floor(t.dst / 8 / a) * a;
      const srcLast = t.src + (t.rows - 1) * t.srcStride + t.rowLen;
      out.push(
        makeDispatch(
          [t],
          sb,
          align(Math.ceil(srcLast / 8), 4),
          db,
          align(Math.ceil((t.dst + t.rows * t.rowLen) / 8), 4),
          unit,
        ),
      );
    }
  }
  return out;
}

/** Cuts a region into pieces whose source and destination spans are at most `room` bits. */
export function tileRegion(r: Region, room: number, unit: UnitBits): Region[] {
  const out: Region[] = [];
  if (r.rowLen <= room) {
    const k = Math.max(1, Math.min(r.rows, Math.floor((room - r.rowLen) / r.srcStride) + 1));
    for (let row = 0; row < r.rows; row += k) {
      out.push({ ...r, src: r.src + row * r.srcStride, dst: r.dst + row * r.rowLen, rows: Math.min(k, r.rows - row) });
    }
    return out;
  }
  const step = Math.floor(room / Math.max(unit, 32)) * Math.max(unit, 32);
  for (let row = 0; row < r.rows; row++) {
    for (let col = 0; col < r.rowLen; col += step) {
      const rowLen = Math.min(step, r.rowLen - col);
      out.push({
        src: r.src + row * r.srcStride + col,
        dst: r.dst + row * r.rowLen + col,
        rowLen,
        srcStride: rowLen,
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
): Dispatch {
  const rel: ShaderRegion[] = [];
  let threads = 0;
  for (let i = 0; i < regions.length;) {
    const r = regions[i]!;
    const count = unit === 1 ? 1 : runLength(regions, i);
    const next = regions[i + 1];
    const [srcStep, dstStep] = count > 1 ? [next!.src - r.src, next!.dst - r.dst] : [0, 0];
    const dst = r.dst - dstBase * 8;
    rel.push({
      start: threads,
      src: (r.src - srcBase * 8) / unit,
      dst: dst / unit,
      row_len: r.rowLen / unit,
      src_stride: r.srcStride / unit,
      rows: r.rows,
      count,
      src_step: srcStep / unit,
      dst_step: dstStep / unit,
    });
    // The bit variant's threads cover the destination u32 words the region touches.
    const words =
      unit === 1
        ? Math.floor((dst + r.rows * r.rowLen - 1) / 32) - Math.floor(dst / 32) + 1
        : (count * r.rows * r.rowLen) / unit;
    threads += Math.ceil(words / WORDS_PER_THREAD);
    i += count;
  }
  return { srcWindow: [srcBase, srcEnd - srcBase], dstWindow: [dstBase, dstEnd - dstBase], regions: rel, threads };
}

/** How many regions from `i` have the same form at the same distance (a run the shader walks as one). */
function runLength(regions: readonly Region[], i: number): number {
  const r = regions[i]!;
  const next = regions[i + 1];
  if (!next) return 1;
  const srcStep = next.src - r.src;
  const dstStep = next.dst - r.dst;
  let count = 1;
  while (i + count < regions.length) {
    const q = regions[i + count]!;
    if (
      q.rows !== r.rows ||
      q.rowLen !== r.rowLen ||
      q.srcStride !== r.srcStride ||
      q.src - r.src !== count * srcStep ||
      q.dst - r.dst !== count * dstStep
    )
      break;
    count++;
  }
  return count;
}
