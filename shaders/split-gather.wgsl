// Cleave's gather shader: copies a list of 2-D strided regions from one buffer into another, a few
// destination words per thread, in a single dispatch whatever the number of regions (one per
// output).
// The host replaces only the `alias Word` line (u32, vec2<u32> or vec4<u32>: the widest word that
// divides every offset of the plan); everything else arrives as data. No arithmetic touches the
// values, so every dtype moves bit-exact.
alias Word = u32;

struct Params {
  region_base: u32,   // first region of this dispatch in `regions`
  region_count: u32,
  thread_count: u32,  // threads that do work; the grid is rounded up past it
  msb_first: u32,     // gather_bits: 1 when packed values start at bit 7 of each byte (uint1)
}

// Offsets, lengths and strides in Words (gather_words) or bits (gather_bits), relative to the
// bound windows of the source and destination buffers. One entry describes a run of `count`
// regions of the same form, `src_step` and `dst_step` apart (gather_bits: always one region).
struct Region {
  start: u32,       // first thread of this run within the dispatch
  src: u32,
  dst: u32,
  row_len: u32,
  src_stride: u32,  // distance between consecutive rows in the source
  rows: u32,        // rows are written back to back in the destination
  count: u32,
  src_step: u32,
  dst_step: u32,
}

const WORKGROUP_SIZE = 256u;
// Set by the host from the planner, which counts threads with it. Several words per thread
// amortise the region search (8 measured best on SwiftShader: 1.2x the plain copy kernel, 4 gave 1.5x).
override WORDS_PER_THREAD: u32;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> regions: array<Region>;
@group(0) @binding(2) var<storage, read> src: array<Word>;
@group(0) @binding(3) var<storage, read_write> dst: array<Word>;
// gather_bits sees the same two bindings as plain u32 words (entry points never share them).
@group(0) @binding(2) var<storage, read> src_bits: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst_bits: array<u32>;

// Grids wider than 65535 workgroups are folded into 2-D by the host.
fn thread_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
  return (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid;
}

// The last region whose first thread is <= t (binary search: 4096 outputs cost 12 steps).
fn find_region(t: u32) -> Region {
  var lo = params.region_base;
  var hi = params.region_base + params.region_count - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (regions[mid].start <= t) { lo = mid; } else { hi = mid - 1u; }
  }
  return regions[lo];
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  if (t >= params.thread_count) { return; }
  let r = find_region(t);
  // Coalesced: the run's T threads take words i, i + T, i + 2T, ... so that neighbouring threads
  // touch neighbouring words on every step. The (region, row, column) position advances by T as a
  // mixed-radix number, without a division per word (integer division is slow, on CPU adapters
  // especially).
  let region_words = r.rows * r.row_len;
  let words = r.count * region_words;
  let step = (words + WORDS_PER_THREAD - 1u) / WORDS_PER_THREAD;
  let step_regions = step / region_words;
  let step_rows = (step - step_regions * region_words) / r.row_len;
  let step_cols = step - step_regions * region_words - step_rows * r.row_len;
  var k = t - r.start;
  var c = k / region_words;
  var row = (k - c * region_words) / r.row_len;
  var col = k - c * region_words - row * r.row_len;
  while (k < words) {
    dst[r.dst + c * r.dst_step + row * r.row_len + col] = src[r.src + c * r.src_step + row * r.src_stride + col];
    k += step;
    col += step_cols;
    row += step_rows;
    c += step_regions;
    if (col >= r.row_len) {
      col -= r.row_len;
      row++;
    }
    if (row >= r.rows) {
      row -= r.rows;
      c++;
    }
  }
}

// Bit j of every byte swapped with bit 7 - j: turns an MSB-first packed stream into an LSB-first
// one and back (reverseBits also reverses the byte order, which the swap undoes).
fn flip_bytes(x: u32) -> u32 {
  let r = reverseBits(x);
  return (r >> 24u) | ((r >> 8u) & 0xff00u) | ((r << 8u) & 0xff0000u) | (r << 24u);
}

fn stream_word(x: u32) -> u32 {
  if (params.msb_first != 0u) { return flip_bytes(x); }
  return x;
}

// Bits [s, s + n) of the source stream (1 <= n <= 32), in the low n bits.
fn read_bits(s: u32, n: u32) -> u32 {
  let i = s / 32u;
  let shift = s % 32u;
  var v = stream_word(src_bits[i]) >> shift;
  if (shift + n > 32u) { v |= stream_word(src_bits[i + 1u]) << (32u - shift); }
  if (n < 32u) { v &= (1u << n) - 1u; }
  return v;
}

// For chunk boundaries that fall inside a 32-bit word (1- and 2-byte elements, packed sub-byte
// types): each thread builds consecutive destination words of one region from runs of source bits,
// keeps the bits before the region (a previous tile's) and zeroes those after it, so the unused
// bits of an output's last byte are always 0. The (row, column) position is found once per thread
// and then advanced, without a division per word.
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_bits(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
  let t = thread_index(wid, nwg, lid);
  if (t >= params.thread_count) { return; }
  let r = find_region(t);
  let end = r.dst + r.rows * r.row_len;
  let first = r.dst / 32u + (t - r.start) * WORDS_PER_THREAD;
  let last = min(first + WORDS_PER_THREAD, (end + 31u) / 32u);
  let k = max(first * 32u, r.dst) - r.dst;
  var row = k / r.row_len;
  var col = k - row * r.row_len;
  for (var w = first; w < last; w++) {
    let base = w * 32u;
    let lo = max(base, r.dst);
    let hi = min(base + 32u, end);
    var value = 0u;
    // Each run ends at the end of a source row or of this word.
    for (var p = lo; p < hi;) {
      let n = min(hi - p, r.row_len - col);
      value |= read_bits(r.src + row * r.src_stride + col, n) << (p - base);
      p += n;
      col += n;
      if (col == r.row_len) {
        row++;
        col = 0u;
      }
    }
    if (lo > base) {
      value |= stream_word(dst_bits[w]) & ((1u << (lo - base)) - 1u);
    }
    dst_bits[w] = stream_word(value);
  }
}
