// The planner: pure functions from (shape, dtype, split arguments) to a plan, and from a plan to
// the byte regions, strategy and dispatches the GPU executor carries out. Nothing here knows of
// GPU objects; device limits arrive as plain numbers, so every rule is testable in plain Node.

import { SplitError, check } from './errors.js';
import { type DType, type FixedDType, elementBytes } from './dtype.js';

/** A split seen as [outer, axisLen, inner]: every output is [outer, size_i, inner]. */
export interface SplitPlan {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly outer: number;
  readonly axisLen: number;
  readonly inner: number;
  readonly sizes: readonly number[];
  /** Offset of each output along the axis. */
  readonly starts: readonly number[];
  readonly outputShapes: readonly (readonly number[])[];
}

/** Resolves a possibly negative axis against a rank; `who` prefixes the message. */
export function normalizeAxis(axis: number, rank: number, who = 'split'): number {
  check(rank > 0, 'RANK', () => `${who}: the input is rank 0 (a scalar) and has no axis to split along`);
  check(Number.isInteger(axis) && axis >= -rank && axis < rank, 'AXIS_RANGE',
    () => `${who}: axis ${axis} is outside [${-rank}, ${rank - 1}] for an input of rank ${rank}`);
  return axis < 0 ? axis + rank : axis;
}

/**
 * Equal parts with a smaller tail: chunks of ceil(dim/parts), clamped to what remains, so trailing
 * chunks may be empty (5 into 4 = [2, 2, 1, 0]). This is the ONNX reference implementation's rule.
 */
export function equalParts(dim: number, parts: number, who = 'split'): number[] {
  check(Number.isInteger(parts) && parts >= 1, 'BAD_PARTS', () => `${who}: parts must be an integer >= 1, got ${parts}`);
  const chunk = Math.ceil(dim / parts);
  const sizes: number[] = [];
  let left = dim;
  for (let i = 0; i < parts; i++) {
    const s = Math.min(chunk, left);
    sizes.push(s);
    left -= s;
  }
  return sizes;
}

/** Plans a split of `shape` along `axis` into `sizes`, checking every rule. */
export function planSplit(dtype: DType, shape: readonly number[], axis: number, sizes: readonly number[], who = 'split'): SplitPlan {
  const ax = normalizeAxis(axis, shape.length, who);
  const axisLen = shape[ax]!;
  // No outputs at all only makes sense for an empty axis (SplitToSequence's empty sequence).
  check(Array.isArray(sizes) && (sizes.length >= 1 || axisLen === 0), 'BAD_SIZE',
    () => `${who}: at least one split length is needed for dimension ${ax} of length ${axisLen}`);
  // Plain loops: this runs per call, and 4096-output splits are a case we care about.
  const starts = new Array<number>(sizes.length);
  let sum = 0;
  for (let i = 0; i < sizes.length; i++) {
    const s = sizes[i]!;
    if (!(Number.isSafeInteger(s) && s >= 0)) throw new SplitError('BAD_SIZE', `${who}: split length ${i} must be an integer >= 0, got ${s}`);
    starts[i] = sum;
    sum += s;
  }
  check(sum === axisLen, 'SIZE_SUM',
    () => `${who}: split lengths [${sizes.join(', ')}] sum to ${sum} but dimension ${ax} of the input has length ${axisLen}`);
  return {
    dtype, shape: [...shape], axis: ax, axisLen,
    outer: product(shape.slice(0, ax)),
    inner: product(shape.slice(ax + 1)),
    sizes: [...sizes], starts,
    outputShapes: sizes.map((s) => shape.map((d, i) => (i === ax ? s : d))),
  };
}

function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}

// ---------------------------------------------------------------------------------------------
// GPU layout: outputs, strategy and dispatches, in bytes.

/** Device numbers the layout depends on. */
export interface GpuLimits {
  /** minStorageBufferOffsetAlignment: every output starts at a multiple of it. */
  readonly alignment: number;
  /** maxStorageBufferBindingSize: the largest window one binding may show. */
  readonly maxBindingBytes: number;
  /** maxBufferSize: the largest output buffer. */
  readonly maxBufferBytes: number;
  /**
   * Strided chunks whose rows are at least this long are moved by one copy command per row
   * instead of the shader: ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS on CPU adapters (SwiftShader), where
   * a copy is a memcpy; Infinity (never) on GPUs, where one dispatch beats thousands of commands.
   */
  readonly rowCopyMinBytes: number;
}

/** A 2-D strided copy: `rows` rows of `rowLen`, read `srcStride` apart, written back to back. */
export interface Region {
  readonly src: number;
  readonly dst: number;
  readonly rowLen: number;
  readonly srcStride: number;
  readonly rows: number;
}

/**
 * A region as the shader reads it, in units relative to the windows: `count` equal regions
 * `srcStep` and `dstStep` apart form one run (4096 equal outputs are one entry, not 4096), and
 * `start` is the run's first thread.
 */
export interface ShaderRegion extends Region {
  readonly start: number;
  readonly count: number;
  readonly srcStep: number;
  readonly dstStep: number;
}

/** One gather dispatch: binding windows (byte offset, size) and its regions in shader units. */
export interface Dispatch {
  readonly srcWindow: readonly [offset: number, size: number];
  readonly dstWindow: readonly [offset: number, size: number];
  /** Regions relative to the windows, in units of `unitBytes`, each with its first thread index. */
  readonly regions: readonly ShaderRegion[];
  readonly threads: number;
}

/**
 * - `alias`: outputs are views of the input buffer; no GPU command at all.
 * - `copy`: one copyBufferToBuffer per output (per row of each output, for strided chunks).
 * - `gather`: the gather shader, one dispatch (more only when a tensor exceeds a binding window).
 */
export type Strategy = 'alias' | 'copy' | 'gather';

export interface GpuPlan {
  readonly strategy: Strategy;
  /** Shader word width in bytes: 16, 8 or 4, or 1 for the byte-packing variant. */
  readonly unitBytes: 1 | 4 | 8 | 16;
  /** Where each output lies: in the output buffer, or in the input buffer for `alias`. */
  readonly outputs: readonly { readonly byteOffset: number; readonly byteLength: number }[];
  /** Size of the output buffer to create (0 for `alias`). */
  readonly bufferBytes: number;
  /** Byte regions, absolute in the input and output buffers, one per non-empty output. */
  readonly regions: readonly Region[];
  readonly dispatches: readonly Dispatch[];
}

export interface GpuPlanOptions {
  /** Byte offset of the input data in its buffer. */
  readonly srcByteOffset: number;
  /** Whether outputs may alias the input buffer (only for GPU-resident inputs). */
  readonly allowAlias: boolean;
  /** Force a strategy where it is possible; `auto` lets the planner choose. */
  readonly strategy?: Strategy | 'auto';
}

/** Shader words each gather thread writes (the shader's WORDS_PER_THREAD override). */
export const WORDS_PER_THREAD = 8;

/** Most copy commands the planner issues for contiguous chunks before one gather dispatch is cheaper. */
export const MAX_COPY_COMMANDS = 16;

/** Row length from which row copies beat the gather shader on a CPU adapter (measured by `npm run bench`). */
export const ROW_COPY_MIN_BYTES_ON_CPU_ADAPTERS = 1024;

/** Most row copies in one split: past it, encoding the commands costs more than the shader. */
export const MAX_ROW_COPIES = 1 << 16;

const align = (x: number, a: number) => Math.ceil(x / a) * a;

export function planGpu(plan: SplitPlan, limits: GpuLimits, opts: GpuPlanOptions): GpuPlan {
  const eb = elementBytes(plan.dtype as FixedDType);
  const rowBytes = plan.axisLen * plan.inner * eb;
  const outBytes = plan.sizes.map((s) => plan.outer * s * plan.inner * eb);
  const want = opts.strategy ?? 'auto';
  // Each non-empty output read as rows of the input; a chunk whose rows are back to back in the
  // input (outer = 1, or the chunk spans the whole axis) is a single row.
  const runs: (Omit<Region, 'dst'> & { output: number })[] = [];
  for (let i = 0; i < plan.sizes.length; i++) {
    if (outBytes[i] === 0) continue;
    const rowLen = plan.sizes[i]! * plan.inner * eb;
    const rows = rowLen === rowBytes ? 1 : plan.outer;
    const src = opts.srcByteOffset + plan.starts[i]! * plan.inner * eb;
    // A single row's stride is its own length, so strides never constrain word widths or copies.
    runs.push({ output: i, src, rowLen: rowLen * (plan.outer / rows), srcStride: rows === 1 ? rowLen * plan.outer : rowBytes, rows });
  }
  const contiguous = runs.every((r) => r.rows === 1);

  if (contiguous && opts.allowAlias && (want === 'auto' || want === 'alias')
      && runs.every((r) => r.src % limits.alignment === 0)) {
    const outputs = outBytes.map((n) => ({ byteOffset: opts.srcByteOffset, byteLength: n }));
    for (const r of runs) outputs[r.output]!.byteOffset = r.src;
    return { strategy: 'alias', unitBytes: 1, bufferBytes: 0, regions: [], dispatches: [], outputs };
  }

  const outputs: { byteOffset: number; byteLength: number }[] = [];
  let end = 0;
  for (const n of outBytes) {
    const at = align(end, limits.alignment);
    outputs.push({ byteOffset: at, byteLength: n });
    end = at + n;
  }
  const bufferBytes = Math.max(4, align(end, 4));
  check(bufferBytes <= limits.maxBufferBytes, 'TOO_LARGE',
    () => `split: the outputs need a ${bufferBytes}-byte buffer, above this device's maxBufferSize of ${limits.maxBufferBytes}`);
  const regions: Region[] = runs.map((r) => ({ src: r.src, dst: outputs[r.output]!.byteOffset, rowLen: r.rowLen, srcStride: r.srcStride, rows: r.rows }));

  // Copy commands need 4-byte offsets and sizes; one command per row of each region.
  const copyable = regions.every((r) => r.src % 4 === 0 && r.rowLen % 4 === 0 && r.srcStride % 4 === 0);
  const commands = regions.reduce((n, r) => n + r.rows, 0);
  const copyWins = contiguous ? commands <= MAX_COPY_COMMANDS
    : commands <= MAX_ROW_COPIES && regions.every((r) => r.rowLen >= limits.rowCopyMinBytes);
  if (regions.length === 0 || copyable && (want === 'copy' || want === 'auto' && copyWins)) {
    return { strategy: 'copy', unitBytes: 4, outputs, bufferBytes, regions, dispatches: [] };
  }

  const unitBytes = chooseUnit(regions, limits.alignment);
  const srcEnd = opts.srcByteOffset + plan.outer * rowBytes;
  return {
    strategy: 'gather', unitBytes, outputs, bufferBytes, regions,
    dispatches: planDispatches(regions, opts.srcByteOffset, srcEnd, bufferBytes, unitBytes, limits),
  };
}

/** The widest word that divides every offset, length and stride (window bases are aligned). */
function chooseUnit(regions: readonly Region[], alignment: number): 1 | 4 | 8 | 16 {
  for (const u of [16, 8, 4] as const) {
    if (alignment % u === 0 && regions.every((r) =>
      r.src % u === 0 && r.dst % u === 0 && r.rowLen % u === 0 && r.srcStride % u === 0)) return u;
  }
  return 1;
}

function planDispatches(regions: readonly Region[], srcBegin: number, srcEnd: number, dstEnd: number,
  unit: number, limits: GpuLimits): Dispatch[] {
  const a = limits.alignment;
  // Keep offsets inside a window below 2^31 so the shader's u32 arithmetic never wraps.
  const span = Math.floor(Math.min(limits.maxBindingBytes, 2 ** 31) / a) * a;
  const srcBase = Math.floor(srcBegin / a) * a;
  if (align(srcEnd, 4) - srcBase <= span && dstEnd <= span) {
    return [makeDispatch(regions, srcBase, align(srcEnd, 4), 0, dstEnd, unit)];
  }
  // Beyond one binding: one dispatch per tile, each tile a block of rows (or of one row's bytes)
  // small enough that its source and destination each fit one window.
  const room = span - a;
  const out: Dispatch[] = [];
  for (const r of regions) {
    for (const t of tileRegion(r, room, unit)) {
      const sb = Math.floor(t.src / a) * a;
      const db = Math.floor(t.dst / a) * a;
      const srcLast = t.src + (t.rows - 1) * t.srcStride + t.rowLen;
      out.push(makeDispatch([t], sb, align(srcLast, 4), db, align(t.dst + t.rows * t.rowLen, 4), unit));
    }
  }
  return out;
}

/** Cuts a region into pieces whose source and destination spans are at most `room` bytes. */
export function tileRegion(r: Region, room: number, unit: number): Region[] {
  if (r.rowLen <= room) {
    const k = Math.max(1, Math.min(r.rows, Math.floor((room - r.rowLen) / r.srcStride) + 1));
    const out: Region[] = [];
    for (let row = 0; row < r.rows; row += k) {
      const rows = Math.min(k, r.rows - row);
      out.push({ ...r, src: r.src + row * r.srcStride, dst: r.dst + row * r.rowLen, rows });
    }
    return out;
  }
  const step = Math.floor(room / Math.max(unit, 4)) * Math.max(unit, 4);
  const out: Region[] = [];
  for (let row = 0; row < r.rows; row++) {
    for (let col = 0; col < r.rowLen; col += step) {
      const rowLen = Math.min(step, r.rowLen - col);
      out.push({ src: r.src + row * r.srcStride + col, dst: r.dst + row * r.rowLen + col, rowLen, srcStride: rowLen, rows: 1 });
    }
  }
  return out;
}

function makeDispatch(regions: readonly Region[], srcBase: number, srcEnd: number, dstBase: number, dstEnd: number,
  unit: number): Dispatch {
  const rel: ShaderRegion[] = [];
  let threads = 0;
  for (let i = 0; i < regions.length;) {
    const r = regions[i]!;
    if (unit === 1) {
      // Byte variant: threads cover the destination u32 words the region touches; no runs.
      const dst = r.dst - dstBase;
      const words = Math.floor((dst + r.rows * r.rowLen - 1) / 4) - Math.floor(dst / 4) + 1;
      rel.push({ start: threads, src: r.src - srcBase, dst, rowLen: r.rowLen, srcStride: r.srcStride, rows: r.rows, count: 1, srcStep: 0, dstStep: 0 });
      threads += Math.ceil(words / WORDS_PER_THREAD);
      i++;
      continue;
    }
    // Extend a run while the next region has the same form at the same distance.
    let count = 1;
    const next = regions[i + 1];
    const srcStep = next ? next.src - r.src : 0;
    const dstStep = next ? next.dst - r.dst : 0;
    while (i + count < regions.length) {
      const q = regions[i + count]!;
      if (q.rows !== r.rows || q.rowLen !== r.rowLen || q.srcStride !== r.srcStride
        || q.src - r.src !== count * srcStep || q.dst - r.dst !== count * dstStep) break;
      count++;
    }
    rel.push({
      start: threads, src: (r.src - srcBase) / unit, dst: (r.dst - dstBase) / unit, rowLen: r.rowLen / unit,
      srcStride: r.srcStride / unit, rows: r.rows, count, srcStep: count > 1 ? srcStep / unit : 0, dstStep: count > 1 ? dstStep / unit : 0,
    });
    threads += Math.ceil((count * r.rows * r.rowLen) / unit / WORDS_PER_THREAD);
    i += count;
  }
  return { srcWindow: [srcBase, srcEnd - srcBase], dstWindow: [dstBase, dstEnd - dstBase], regions: rel, threads };
}
