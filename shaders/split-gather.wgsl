// Cleave's gather shader: copies tiles of 2-D strided regions from one buffer into up to six others, one
// tile per workgroup, in a single dispatch whatever the number of regions (one per output).
// The host replaces only the `alias Word` line (u32, vec2<u32> or vec4<u32>: the widest word that
// divides every offset of the plan) and sets MSB_FIRST for gather_bits; everything else arrives
// as data. No arithmetic touches the values, so every dtype moves bit-exact.
alias Word = u32;

struct Params {
  tile_base: u32,   // first tile of this dispatch in `tiles`
  tile_count: u32,  // tiles of this dispatch: one workgroup each (the grid is rounded up past it)
  keep_tail: u32,   // gather_bits: bit k set keeps the bits after a tile's end in binding k (a caller's buffer)
}

// One workgroup's work, relative to the bound windows: `rows` rows of `row_len`, row r read from
// `src + r * src_stride` and written to `dst + r * dst_stride` of the target bound at `dst_binding`,
// positions [first, last) of it.
// gather_words: units are Words, positions are rows (a row longer than a tile is cut into tiles of
// its columns by the host).
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
  dst_binding: u32,
}

const WORKGROUP_SIZE = 256u;
// gather_bits: packed values start at bit 7 of each byte (uint1). A pipeline of its own, so no load
// tests it.
override MSB_FIRST: bool = false;
// Set when the plan has one target: the target switch folds to binding 0 (a software adapter runs a switch on data as
// divergent, each case masked, at half its copy rate).
override ONE_TARGET: bool = false;

// Three bind groups, so that each is made once for what it binds: the dispatch's table (its params at a dynamic
// offset, and the tiles), the source buffer (its window at a dynamic offset) and the six target buffers (the first
// ones at dynamic offsets, as the device's limits allow). A split whose buffers move (a KV-cache slot, a pooled
// output buffer) binds groups made before, at new offsets. Eight storage buffers: WebGPU's default limit.
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tiles: array<Tile>;
@group(1) @binding(0) var<storage, read> src: array<Word>;
@group(2) @binding(0) var<storage, read_write> dst0: array<Word>;
@group(2) @binding(1) var<storage, read_write> dst1: array<Word>;
@group(2) @binding(2) var<storage, read_write> dst2: array<Word>;
@group(2) @binding(3) var<storage, read_write> dst3: array<Word>;
@group(2) @binding(4) var<storage, read_write> dst4: array<Word>;
@group(2) @binding(5) var<storage, read_write> dst5: array<Word>;
// gather_bits sees the same bindings as plain u32 words (entry points never share them).
@group(1) @binding(0) var<storage, read> src_bits: array<u32>;
@group(2) @binding(0) var<storage, read_write> bits0: array<u32>;
@group(2) @binding(1) var<storage, read_write> bits1: array<u32>;
@group(2) @binding(2) var<storage, read_write> bits2: array<u32>;
@group(2) @binding(3) var<storage, read_write> bits3: array<u32>;
@group(2) @binding(4) var<storage, read_write> bits4: array<u32>;
@group(2) @binding(5) var<storage, read_write> bits5: array<u32>;

// Word i of bound target k: WGSL indexes no array of bindings.
fn put_bits(k: u32, i: u32, v: u32) {
  switch k {
    case 0u: { bits0[i] = v; }
    case 1u: { bits1[i] = v; }
    case 2u: { bits2[i] = v; }
    case 3u: { bits3[i] = v; }
    case 4u: { bits4[i] = v; }
    default: { bits5[i] = v; }
  }
}

fn get_bits(k: u32, i: u32) -> u32 {
  switch k {
    case 0u: { return bits0[i]; }
    case 1u: { return bits1[i]; }
    case 2u: { return bits2[i]; }
    case 3u: { return bits3[i]; }
    case 4u: { return bits4[i]; }
    default: { return bits5[i]; }
  }
}

// The binding of a tile's target. Uniform across a workgroup (one tile, one target).
fn target_binding(t: Tile) -> u32 {
  return select(t.dst_binding, 0u, ONE_TARGET);
}

// Grids wider than 65535 workgroups are folded into 2-D by the host. Uniform across the workgroup.
fn tile_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.y * nwg.x + wid.x;
}

// One workgroup copies rows [first, last) of its tile, a row at most WORKGROUP_SIZE words (the host
// cuts longer rows into tiles of columns). Lanes are (row, column) pairs, found by one division per
// lane: a pass covers WORKGROUP_SIZE / row_len whole rows (the lanes past the last whole row idle).
// Neighbouring lanes touch neighbouring words, and the loop is a plain copy: no search, no
// division, no wrap test per word.
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
  let ti = tile_index(wid, nwg);
  if (ti >= params.tile_count) { return; }
  let t = tiles[params.tile_base + ti];
  let pass_rows = WORKGROUP_SIZE / t.row_len;
  let lane_row = lid / t.row_len;
  let col = lid - lane_row * t.row_len;
  let r = t.first + lane_row;
  // The lane's rows: `n` of them from row `r`, `pass_rows` apart (none when its row is past the pass's whole rows).
  let n = select(0u, (t.last - r + pass_rows - 1u) / pass_rows, lane_row < pass_rows && r < t.last);
  var s = t.src + r * t.src_stride + col;
  var d = t.dst + r * t.dst_stride + col;
  // Steps in u32 arithmetic: the last one may wrap, an offset that is used does not.
  let ss = pass_rows * t.src_stride;
  let ds = pass_rows * t.dst_stride;
  // A loop per target binding, each a plain copy (a store chosen by a switch costs software adapters a branch a word).
  switch target_binding(t) {
    case 0u: { for (var i = 0u; i < n; i++) { dst0[d] = src[s]; s += ss; d += ds; } }
    case 1u: { for (var i = 0u; i < n; i++) { dst1[d] = src[s]; s += ss; d += ds; } }
    case 2u: { for (var i = 0u; i < n; i++) { dst2[d] = src[s]; s += ss; d += ds; } }
    case 3u: { for (var i = 0u; i < n; i++) { dst3[d] = src[s]; s += ss; d += ds; } }
    case 4u: { for (var i = 0u; i < n; i++) { dst4[d] = src[s]; s += ss; d += ds; } }
    default: { for (var i = 0u; i < n; i++) { dst5[d] = src[s]; s += ss; d += ds; } }
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

// Whether the bits after a tile's end stay (a caller's buffer) or are zeroed (an output's own last byte).
fn keeps_tail(t: Tile) -> bool {
  return ((params.keep_tail >> target_binding(t)) & 1u) != 0u;
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

// Consecutive destination words each gather_bits lane builds at a time: 16 bytes, as a vec4 copy moves.
const GROUP = 4u;

// For chunk boundaries that fall inside a 32-bit word (1- and 2-byte elements, packed sub-byte
// types). The tile's destination words are taken in groups of GROUP; each group belongs to one
// lane, so no word is written twice. Three passes over disjoint groups, each lean on its own:
// - bulk: every group but the tile's first and last that lies inside one row, one funnel shift
//   per word from GROUP + 1 loads; a lane's groups are WORKGROUP_SIZE groups apart, so neighbouring
//   lanes build neighbouring groups, and a group's place advances by a mixed-radix step;
// - seams: the group around each row end inside the tile, two funnel shifts (the row's tail and the
//   next row's head) merged under a mask, one lane per row end;
// - edges: the tile's first and last groups, word by word from pieces (build_word), which keep the
//   bits before a tile's start and after a caller's destination, and zero an output's tail.
// Rows shorter than a group (several row ends in one group) go word by word throughout.
// Software adapters (SwiftShader) pay for every path in a loop body, taken or not: the rare work
// stays out of the bulk loop.
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
  let groups = (t.last - t.first + GROUP - 1u) / GROUP;
  // Rows shorter than a group: every group goes word by word, none to the bulk or the seams.
  let short = t.row_len < GROUP * 32u;
  let bulk = select(groups, 0u, short);
  let step_bits = WORKGROUP_SIZE * GROUP * 32u;
  let step = vec2<u32>(step_bits / t.row_len, step_bits % t.row_len);
  // The bulk: a loop per target binding. Group k's words go from bit (row, col) `at` of the tile, when the group lies
  // inside its row (group_words); `at` steps on by the lane's stride (next_group).
  var at = place(t, t.first + (1u + lid) * GROUP);
  var w = t.first + (1u + lid) * GROUP;
  let ws = WORKGROUP_SIZE * GROUP;
  let n = select(0u, (bulk - 3u - lid) / WORKGROUP_SIZE + 1u, bulk > lid + 2u);
  switch target_binding(t) {
    case 0u: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits0[w] = v.x; bits0[w + 1u] = v.y; bits0[w + 2u] = v.z; bits0[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
    case 1u: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits1[w] = v.x; bits1[w + 1u] = v.y; bits1[w + 2u] = v.z; bits1[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
    case 2u: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits2[w] = v.x; bits2[w + 1u] = v.y; bits2[w + 2u] = v.z; bits2[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
    case 3u: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits3[w] = v.x; bits3[w + 1u] = v.y; bits3[w + 2u] = v.z; bits3[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
    case 4u: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits4[w] = v.x; bits4[w + 1u] = v.y; bits4[w + 2u] = v.z; bits4[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
    default: { for (var i = 0u; i < n; i++) { if (inside(t, at)) { let v = group_words(t, at); bits5[w] = v.x; bits5[w + 1u] = v.y; bits5[w + 2u] = v.z; bits5[w + 3u] = v.w; } at = next_group(t, at, step); w += ws; } }
  }
  for (var r = place(t, t.first).x + lid; r + 1u < t.rows; r += WORKGROUP_SIZE) {
    let e = t.dst + (r + 1u) * t.row_len;
    let k = (e / 32u - t.first) / GROUP;
    if (k + 1u >= bulk) { break; }
    let left = e - (t.first + k * GROUP) * 32u;
    if (k > 0u && left > 0u) {
      let m = low_bits4(left);
      let tail = funnel4(t.src + r * t.src_stride + t.row_len - left);
      let head = funnel4(t.src + (r + 1u) * t.src_stride - left);
      store4(target_binding(t), t.first + k * GROUP, (tail & m) | (head & ~m));
    }
  }
  for (var k = lid; k < select(min(groups, 2u), groups, short); k += WORKGROUP_SIZE) {
    let w = t.first + select(k * (groups - 1u), k, short) * GROUP;
    var cur = place(t, w);
    for (var j = w; j < min(w + GROUP, t.last); j++) {
      build_word(t, j, &cur);
    }
  }
}

// Whether the group from bit (row, col) `at` of a back-to-back tile lies inside its row.
fn inside(t: Tile, at: vec2<u32>) -> bool {
  return at.y + GROUP * 32u <= t.row_len;
}

// The group's words from bit (row, col) `at`, each turned back into the stream's bit order.
fn group_words(t: Tile, at: vec2<u32>) -> vec4<u32> {
  let v = funnel4(t.src + at.x * t.src_stride + at.y);
  return vec4<u32>(stream_word(v.x), stream_word(v.y), stream_word(v.z), stream_word(v.w));
}

// (row, col) `step` bits on from `at`.
fn next_group(t: Tile, at: vec2<u32>, step: vec2<u32>) -> vec2<u32> {
  let a = at + step;
  return select(a, a + vec2<u32>(1u, 0u - t.row_len), a.y >= t.row_len);
}

// Words w .. w + GROUP - 1 of target k, each turned back into the stream's bit order.
fn store4(k: u32, w: u32, v: vec4<u32>) {
  put_bits(k, w, stream_word(v.x));
  put_bits(k, w + 1u, stream_word(v.y));
  put_bits(k, w + 2u, stream_word(v.z));
  put_bits(k, w + 3u, stream_word(v.w));
}

// Bits [s, s + 128) of the source stream: GROUP + 1 loads, one funnel shift per word. The upper
// word's shift by 32 - sh is a multiplication by 2^(32 - sh), which is 0 for sh = 0 (no << 32):
// software adapters without per-lane shifts (SwiftShader's Subzero) multiply lanes natively but
// shift them one by one.
fn funnel4(s: u32) -> vec4<u32> {
  let i = s >> 5u;
  let sh = s & 31u;
  let lo = vec4<u32>(load(i), load(i + 1u), load(i + 2u), load(i + 3u));
  let hi = vec4<u32>(lo.yzw, load(i + 4u));
  return (lo >> vec4<u32>(sh)) | (hi * ((1u << (31u - sh)) << 1u));
}

// The low n of 128 bits set, 0 < n < 128 (word 0 holds bits 0..31).
fn low_bits4(n: u32) -> vec4<u32> {
  let m = vec4<u32>(clamp(vec4<i32>(i32(n)) - vec4<i32>(0, 32, 64, 96), vec4<i32>(0), vec4<i32>(32)));
  return select(vec4<u32>(0xffffffffu) >> (vec4<u32>(32u) - m), vec4<u32>(0u), m == vec4<u32>(0u));
}

// (row, col) in the tile of destination word w's first bit of the tile (a back-to-back tile).
fn place(t: Tile, w: u32) -> vec2<u32> {
  let k = max(w * 32u, t.dst) - t.dst;
  let row = k / t.row_len;
  return vec2<u32>(row, k - row * t.row_len);
}

// Destination word j of a back-to-back tile, from pieces that end at a row end or at the word's
// end, `at` the (row, col) of its first bit in the tile, moved past its last. Bits after the tile's
// end are zeroed (an output's last byte ends in zeros), or kept in a caller's buffer (`keep_tail`,
// the bytes after its destination); bits before its start (a previous dispatch's, when a region is
// cut at a window) are kept.
fn build_word(t: Tile, j: u32, at: ptr<function, vec2<u32>>) {
  let end = t.dst + t.rows * t.row_len;
  let base = j * 32u;
  let lo = max(base, t.dst);
  let hi = min(base + 32u, end);
  var s = t.src + (*at).x * t.src_stride + (*at).y;
  var value = 0u;
  for (var p = lo; p < hi;) {
    let n = min(hi - p, t.row_len - (*at).y);
    value |= (read32(s) & low_bits(n)) << (p - base);
    p += n;
    (*at).y += n;
    s += n;
    if ((*at).y == t.row_len) {
      *at = vec2<u32>((*at).x + 1u, 0u);
      s = t.src + (*at).x * t.src_stride;
    }
  }
  // Bits outside [lo, hi) that stay: before a tile's start, and after its end in a caller's buffer.
  var keep = 0u;
  if (lo > base) {
    keep = low_bits(lo - base);
  }
  if (hi < base + 32u && keeps_tail(t)) {
    keep |= ~low_bits(hi - base);
  }
  if (keep != 0u) {
    value |= stream_word(get_bits(target_binding(t), j)) & keep;
  }
  put_bits(target_binding(t), j, stream_word(value));
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
    if (n < 32u && keeps_tail(t)) {
      value |= stream_word(get_bits(target_binding(t), at)) & ~low_bits(n);
    }
    put_bits(target_binding(t), at, stream_word(value));
    k += WORKGROUP_SIZE;
    row += step_rows;
    col += step_cols;
    if (col >= words) {
      col -= words;
      row++;
    }
  }
}
