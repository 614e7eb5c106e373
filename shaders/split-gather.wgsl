// Cleave's gather shader: copies tiles of 2-D strided regions from one buffer into another, one
// tile per workgroup, in a single dispatch whatever the number of regions (one per output).
// The host replaces only the `alias Word` line (u32, vec2<u32> or vec4<u32>: the widest word that
// divides every offset of the plan) and sets MSB_FIRST for gather_bits; everything else arrives
// as data. No arithmetic touches the values, so every dtype moves bit-exact.
alias Word = u32;

struct Params {
  tile_base: u32,   // first tile of this dispatch in `tiles`
  tile_count: u32,  // tiles of this dispatch: one workgroup each (the grid is rounded up past it)
  keep_tail: u32,   // gather_bits: 1 keeps the bits after a tile's end (a caller's buffer), 0 zeroes them
}

// One workgroup's work, relative to the bound windows: `rows` rows of `row_len`, row r read from
// `src + r * src_stride` and written to `dst + r * dst_stride`, positions [first, last) of it.
// gather_words: units are Words, positions are words in row-major order.
// gather_bits: units are bits. With dst_stride == row_len the rows lie back to back and positions
// are the destination window's u32 words; otherwise every row starts a destination word (the host
// guarantees it) and positions are (row, u32 word of the row) in row-major order.
struct Tile {
  src: u32,
  dst: u32,
  row_len: u32,
  rows: u32,
  src_stride: u32,
  dst_stride: u32,
  first: u32,
  last: u32,
}

const WORKGROUP_SIZE = 256u;
// gather_bits: packed values start at bit 7 of each byte (uint1). A pipeline of its own, so no load
// tests it.
override MSB_FIRST: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tiles: array<Tile>;
@group(0) @binding(2) var<storage, read> src: array<Word>;
@group(0) @binding(3) var<storage, read_write> dst: array<Word>;
// gather_bits sees the same two bindings as plain u32 words (entry points never share them).
@group(0) @binding(2) var<storage, read> src_bits: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst_bits: array<u32>;

// Grids wider than 65535 workgroups are folded into 2-D by the host. Uniform across the workgroup.
fn tile_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.y * nwg.x + wid.x;
}

// Lanes take positions first + lane, + 256, ...: neighbouring lanes touch neighbouring words. The
// (row, column) position advances by 256 as a mixed-radix number: one division per thread, none
// per word.
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
  let ti = tile_index(wid, nwg);
  if (ti >= params.tile_count) { return; }
  let t = tiles[params.tile_base + ti];
  var k = t.first + lid;
  if (k >= t.last) { return; }
  let step_rows = WORKGROUP_SIZE / t.row_len;
  let step_cols = WORKGROUP_SIZE - step_rows * t.row_len;
  var row = k / t.row_len;
  var col = k - row * t.row_len;
  var s = t.src + row * t.src_stride + col;
  var d = t.dst + row * t.dst_stride + col;
  // Steps in u32 arithmetic: they may wrap, the sums do not.
  let s_step = step_rows * t.src_stride + step_cols;
  let d_step = step_rows * t.dst_stride + step_cols;
  let s_wrap = t.src_stride - t.row_len;
  let d_wrap = t.dst_stride - t.row_len;
  while (k < t.last) {
    dst[d] = src[s];
    k += WORKGROUP_SIZE;
    col += step_cols;
    s += s_step;
    d += d_step;
    if (col >= t.row_len) {
      col -= t.row_len;
      s += s_wrap;
      d += d_wrap;
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
  if (MSB_FIRST) { return flip_bytes(x); }
  return x;
}

// Source word i of the stream, the index clamped to the window (robust access is not a contract).
fn load(i: u32) -> u32 {
  return stream_word(src_bits[min(i, arrayLength(&src_bits) - 1u)]);
}

// Bits [s, s + 32) of the source stream from two words by a funnel shift (sh = 0 safe: no << 32).
fn read32(s: u32) -> u32 {
  let i = s >> 5u;
  let sh = s & 31u;
  return (load(i) >> sh) | ((load(i + 1u) << 1u) << (31u - sh));
}

// The low n bits set, 1 <= n <= 32.
fn low_bits(n: u32) -> u32 {
  return 0xffffffffu >> (32u - n);
}

// Consecutive destination words each gather_bits thread builds: 16 bytes, as a vec4 copy moves.
const GROUP = 4u;

// For chunk boundaries that fall inside a 32-bit word (1- and 2-byte elements, packed sub-byte
// types). Each destination word belongs to one thread, which builds GROUP consecutive words, each
// from pieces that end at a row end or at the word's end: one piece inside a row, two across a row
// end, more only for rows shorter than a word. A piece is a funnel shift of two source words.
// Every word takes the same loop: software adapters (SwiftShader) run a branch that any lane takes
// for every lane, so a separate fast path for words inside a row measured slower (1.7x on the
// uint1 case with 301-bit rows). Bits after a tile's end are zeroed (an output's last byte ends in
// zeros), or kept in a caller's buffer (`keep_tail`, the bytes after its destination); bits before
// its start (a previous dispatch's, when a region is cut at a window) are kept.
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_bits(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
  let ti = tile_index(wid, nwg);
  if (ti >= params.tile_count) { return; }
  let t = tiles[params.tile_base + ti];
  if (t.dst_stride != t.row_len) {
    gather_rows(t, lid);
    return;
  }
  let end = t.dst + t.rows * t.row_len;
  for (var w = t.first + lid * GROUP; w < t.last; w += WORKGROUP_SIZE * GROUP) {
    // Where the group's first bit comes from: one division per group, none per word.
    let k = max(w * 32u, t.dst) - t.dst;
    var row = k / t.row_len;
    var col = k - row * t.row_len;
    var s = t.src + row * t.src_stride + col;
    // The usual group of a tile with rows of 32 words or more: its GROUP words inside one row and
    // inside the tile. Each word is then one funnel shift of two neighbouring source words: GROUP +
    // 1 loads for the group. Shorter rows (uint1's 301 bits) put too many groups across a row end:
    // lanes would take both paths, so their tiles take only the loop (a choice uniform per tile).
    if (t.row_len >= 32u * 32u && w * 32u >= t.dst && col + GROUP * 32u <= t.row_len && w + GROUP <= t.last) {
      let i = s >> 5u;
      let sh = s & 31u;
      var a = load(i);
      for (var j = 0u; j < GROUP; j++) {
        let b = load(i + j + 1u);
        dst_bits[w + j] = stream_word((a >> sh) | ((b << 1u) << (31u - sh)));
        a = b;
      }
      continue;
    }
    for (var j = w; j < min(w + GROUP, t.last); j++) {
      let base = j * 32u;
      let lo = max(base, t.dst);
      let hi = min(base + 32u, end);
      var value = 0u;
      for (var p = lo; p < hi;) {
        let n = min(hi - p, t.row_len - col);
        value |= (read32(s) & low_bits(n)) << (p - base);
        p += n;
        col += n;
        s += n;
        if (col == t.row_len) {
          row++;
          col = 0u;
          s = t.src + row * t.src_stride;
        }
      }
      // Bits outside [lo, hi) that stay: before a tile's start, and after its end in a caller's buffer.
      var keep = 0u;
      if (lo > base) {
        keep = low_bits(lo - base);
      }
      if (hi < base + 32u && params.keep_tail != 0u) {
        keep |= ~low_bits(hi - base);
      }
      if (keep != 0u) {
        value |= stream_word(dst_bits[j]) & keep;
      }
      dst_bits[j] = stream_word(value);
    }
  }
}

// gather_bits for rows that each start a destination word: row r's word j takes the 32 bits from
// src + r * src_stride + 32 j, its tail past row_len zeroed (kept in a caller's buffer).
fn gather_rows(t: Tile, lid: u32) {
  let words = (t.row_len + 31u) / 32u;
  let step_rows = WORKGROUP_SIZE / words;
  let step_cols = WORKGROUP_SIZE - step_rows * words;
  var k = t.first + lid;
  var row = k / words;
  var col = k - row * words;
  while (k < t.last) {
    let n = min(32u, t.row_len - col * 32u);
    let at = t.dst / 32u + row * (t.dst_stride / 32u) + col;
    var value = read32(t.src + row * t.src_stride + col * 32u) & low_bits(n);
    if (n < 32u && params.keep_tail != 0u) {
      value |= stream_word(dst_bits[at]) & ~low_bits(n);
    }
    dst_bits[at] = stream_word(value);
    k += WORKGROUP_SIZE;
    row += step_rows;
    col += step_cols;
    if (col >= words) {
      col -= words;
      row++;
    }
  }
}
