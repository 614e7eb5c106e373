// Writes the golden files test/golden/<Op>-<version>.json (run: node test/golden/make-golden.mjs).
// Expected outputs come from the spec texts where they give them (copied literally and checked
// here against the slicing below) and otherwise from `slice`, a per-element coordinate walk that
// shares no code with Cleave. Split lengths of policy cases are written out by hand, never derived
// from Cleave's planner. Encoding: see README.md next to this file.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Values

const ALL = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'bool',
  'string',
  'complex64',
  'complex128',
];
const NO_BF16 = ALL.filter((d) => d !== 'bfloat16');
const INTS = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
const lanes = (d) => (d.startsWith('complex') ? 2 : 1);

/** Exact float16 bits of a small integer (|v| <= 2048). */
function halfBits(v) {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const s = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const e = Math.floor(Math.log2(a));
  const frac = Math.round((a / 2 ** e - 1) * 1024);
  return s | ((e + 15) << 10) | frac;
}
/** Exact bfloat16 bits of a small integer (|v| <= 256). */
function bf16Bits(v) {
  const f = new Float32Array([v]);
  return new Uint32Array(f.buffer)[0] >>> 16;
}
const hex = (bits, digits) => `0x${bits.toString(16).padStart(digits, '0')}`;

/** Element i of an ordinary sequence in the dtype's encoding; one token per host-array entry. */
function ordinary(dtype, i) {
  switch (dtype) {
    case 'float32':
    case 'float64':
      return [i + 0.5];
    case 'float16':
      return [hex(halfBits((i % 2048) + 1), 4)];
    case 'bfloat16':
      return [hex(bf16Bits((i % 256) + 1), 4)];
    case 'complex64':
    case 'complex128':
      return [i + 1, -(i + 0.25)];
    case 'int8':
      return [(i % 256) - 128];
    case 'uint8':
      return [i % 256];
    case 'int16':
      return [(i % 65536) - 32768];
    case 'uint16':
      return [i % 65536];
    case 'int32':
      return [((i * 1000003) % 2147483647) - 1073741824];
    case 'uint32':
      return [(i * 2654435761) % 4294967296];
    case 'int64':
      return [String(BigInt(i) * 1000000000007n - 4611686018427387904n)];
    case 'uint64':
      return [String((BigInt(i) * 3000000000000000001n) % 18446744073709551616n)];
    case 'bool':
      return [(i * 7 + 3) % 3 === 0 ? 1 : 0];
    case 'string':
      return [`s${i}`];
    default:
      throw new Error(dtype);
  }
}

/** Values that catch a converting or canonicalising copy: NaN payloads, -0, Inf, extremes. */
const SPECIAL = {
  float32: ['0x7fc00001', '0xffa00005', '-0', 'Infinity', '-Infinity', '0x00000001', '0x7f7fffff', 'NaN'],
  float64: [
    '0x7ff8000000000001',
    '0xfff4000000000003',
    '-0',
    'Infinity',
    '-Infinity',
    '0x0000000000000001',
    '0x7fefffffffffffff',
    'NaN',
  ],
  float16: ['0x7e01', '0xfd03', '0x8000', '0x7c00', '0xfc00', '0x0001', '0x7bff', '0x7e00'],
  bfloat16: ['0x7fc1', '0xff83', '0x8000', '0x7f80', '0xff80', '0x0001', '0x7f7f', '0x7fc0'],
  complex64: [
    '0x7fc00001',
    '-0',
    'Infinity',
    '0xffa00005',
    '-0',
    '-Infinity',
    '0x00000001',
    'NaN',
    1.5,
    -2.5,
    '0x7f7fffff',
    0,
    3,
    4,
    5,
    6,
  ],
  complex128: [
    '0x7ff8000000000001',
    '-0',
    'Infinity',
    '0xfff4000000000003',
    '-0',
    '-Infinity',
    '0x0000000000000001',
    'NaN',
    1.5,
    -2.5,
    '0x7fefffffffffffff',
    0,
    3,
    4,
    5,
    6,
  ],
  int8: [-128, 127, -1, 0, 1, -127, 126, 2],
  uint8: [0, 255, 128, 127, 1, 254, 2, 3],
  int16: [-32768, 32767, -1, 0, 1, -32767, 256, 255],
  uint16: [0, 65535, 32768, 32767, 1, 65534, 256, 255],
  int32: [-2147483648, 2147483647, -1, 0, 1, -2147483647, 65536, 16777217],
  uint32: [0, 4294967295, 2147483648, 2147483647, 1, 4294967294, 16777217, 65536],
  int64: [
    '-9223372036854775808',
    '9223372036854775807',
    '9007199254740993',
    '-9007199254740993',
    '-1',
    '0',
    '4611686018427387905',
    '18014398509481985',
  ],
  uint64: [
    '18446744073709551615',
    '9223372036854775808',
    '9007199254740993',
    '0',
    '1',
    '18446744073709551614',
    '18014398509481985',
    '9223372036854775807',
  ],
  bool: [1, 0, 0, 1, 1, 1, 0, 0],
  string: ['', 'héllo', '日本語', '🙂👍🏽', 'a\u0000b', '\ud800', ' ', 'ok'],
};

function tensor(dtype, shape, data) {
  return { dtype, shape, data };
}
const numel = (shape) => shape.reduce((a, b) => a * b, 1);
function ord(dtype, shape, offset = 0) {
  const data = [];
  for (let i = 0; i < numel(shape); i++) data.push(...ordinary(dtype, i + offset));
  return tensor(dtype, shape, data);
}
function special(dtype, shape) {
  const vals = SPECIAL[dtype];
  const n = numel(shape) * lanes(dtype);
  return tensor(
    dtype,
    shape,
    Array.from({ length: n }, (_, i) => vals[i % vals.length]),
  );
}
const i64 = (values, shape = [values.length]) => tensor('int64', shape, values.map(String));
const ints = (dtype, values, shape = [values.length]) =>
  tensor(dtype, shape, dtype.endsWith('64') ? values.map(String) : values);

// ---------------------------------------------------------------------------------------------
// The independent slicer: walks every output coordinate and reads the input at the matching one.

function slice(x, axis, sizes, dropAxis = false) {
  const shape = x.shape;
  const ax = axis < 0 ? axis + shape.length : axis;
  const L = lanes(x.dtype);
  const strides = shape.map((_, i) => numel(shape.slice(i + 1)));
  const outs = [];
  let start = 0;
  for (const size of sizes) {
    const oshape = shape.map((d, i) => (i === ax ? size : d));
    const data = [];
    for (let k = 0; k < numel(oshape); k++) {
      // Coordinates of element k in the output, then the input's flat index.
      let rem = k;
      let src = 0;
      for (let i = 0; i < oshape.length; i++) {
        const os = numel(oshape.slice(i + 1));
        const c = Math.floor(rem / os);
        rem %= os;
        src += (i === ax ? c + start : c) * strides[i];
      }
      for (let l = 0; l < L; l++) data.push(x.data[src * L + l]);
    }
    outs.push({ shape: dropAxis ? oshape.filter((_, i) => i !== ax) : oshape, data });
    start += size;
  }
  if (start !== shape[ax]) throw new Error(`bad hand-written sizes ${sizes} for dim ${shape[ax]}`);
  return outs;
}

// ---------------------------------------------------------------------------------------------
// Case builders

const files = new Map();
function file(name, op, opset, about) {
  const f = { op, opset, about, cases: [] };
  files.set(name, f);
  return f;
}
function ok(f, name, source, { inputs, attrs, outputs, opset, expect }) {
  f.cases.push(strip({ name, source, opset, inputs, attrs, outputs, expect }));
}
function err(f, name, { inputs, attrs, outputs, opset, code, includes, prefix }) {
  f.cases.push(
    strip({ name, source: 'error', opset, inputs, attrs, outputs, error: strip({ code, prefix, includes }) }),
  );
}
const strip = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A success case whose expectation is the slicer's, for hand-written sizes. */
function sliced(f, name, source, { x, extra = [], attrs, outputs, opset, axis = attrs?.axis ?? 0, sizes, dropAxis }) {
  ok(f, name, source, { inputs: [x, ...extra], attrs, outputs, opset, expect: slice(x, axis, sizes, dropAxis) });
}

/** Checks a literal expectation copied from a spec text against the slicer. */
function literal(x, axis, sizes, expected, dropAxis = false) {
  const got = slice(x, axis, sizes, dropAxis);
  const a = JSON.stringify(got.map((o) => o.data));
  const b = JSON.stringify(expected);
  if (a !== b) throw new Error(`spec literal disagrees with the slicer: ${a} vs ${b}`);
  return got;
}

const f32 = (shape, data) => tensor('float32', shape, data);
const IN6 = () => f32([6], [1, 2, 3, 4, 5, 6]);
const IN2x6 = () => f32([2, 6], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);

// ---------------------------------------------------------------------------------------------
// Shared groups

/** The spec's opset-13 examples (Split-13 and, with its own names, Split-18's split-input ones). */
function specExamples13(f, suffix, withEqual) {
  if (withEqual) {
    ok(f, `spec: test_split_equal_parts_1d${suffix}`, 'spec', {
      inputs: [IN6()],
      attrs: { axis: 0 },
      outputs: 3,
      expect: literal(
        IN6(),
        0,
        [2, 2, 2],
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
      ),
    });
    ok(f, `spec: test_split_equal_parts_2d${suffix}`, 'spec', {
      inputs: [IN2x6()],
      attrs: { axis: 1 },
      outputs: 2,
      expect: literal(
        IN2x6(),
        1,
        [3, 3],
        [
          [1, 2, 3, 7, 8, 9],
          [4, 5, 6, 10, 11, 12],
        ],
      ),
    });
    ok(f, `spec: test_split_equal_parts_default_axis${suffix}`, 'spec', {
      inputs: [IN6()],
      outputs: 3,
      expect: literal(
        IN6(),
        0,
        [2, 2, 2],
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
      ),
    });
  }
  ok(f, `spec: test_split_variable_parts_1d${suffix}`, 'spec', {
    inputs: [IN6(), i64([2, 4])],
    attrs: { axis: 0 },
    outputs: 2,
    expect: literal(
      IN6(),
      0,
      [2, 4],
      [
        [1, 2],
        [3, 4, 5, 6],
      ],
    ),
  });
  ok(f, `spec: test_split_variable_parts_2d${suffix}`, 'spec', {
    inputs: [IN2x6(), i64([2, 4])],
    attrs: { axis: 1 },
    outputs: 2,
    expect: literal(
      IN2x6(),
      1,
      [2, 4],
      [
        [1, 2, 7, 8],
        [3, 4, 5, 6, 9, 10, 11, 12],
      ],
    ),
  });
  ok(f, `spec: test_split_variable_parts_default_axis${suffix}`, 'spec', {
    inputs: [IN6(), i64([2, 4])],
    outputs: 2,
    expect: literal(
      IN6(),
      0,
      [2, 4],
      [
        [1, 2],
        [3, 4, 5, 6],
      ],
    ),
  });
  ok(f, `spec: test_split_zero_size_splits${suffix}`, 'spec', {
    inputs: [f32([0], []), i64([0, 0, 0])],
    outputs: 3,
    expect: literal(f32([0], []), 0, [0, 0, 0], [[], [], []]),
  });
}

/** Ranks 1 to 6, negative axes, zero-length chunks and zero-size dimensions, with a split given by `how`. */
function structural(f, how, dtype = 'float32') {
  const shapes = [[7], [3, 5], [2, 3, 4], [2, 1, 3, 2], [1, 2, 3, 1, 2], [2, 1, 3, 1, 2, 3]];
  for (const shape of shapes) {
    const r = shape.length;
    const axis = Math.floor(r / 2);
    const d = shape[axis];
    const sizes = d === 1 ? [0, 1, 0] : [1, 0, d - 1];
    sliced(f, `rank ${r}: axis ${axis} of [${shape}] into [${sizes}]`, 'edge', {
      x: ord(dtype, shape),
      axis,
      sizes,
      ...how(axis, sizes),
    });
    const neg = -1 - (r > 2 ? 1 : 0);
    const nd = shape[neg + r];
    const nsizes = nd === 1 ? [1] : [nd - 1, 1];
    sliced(f, `rank ${r}: negative axis ${neg} of [${shape}] into [${nsizes}]`, 'edge', {
      x: ord(dtype, shape, 11),
      axis: neg,
      sizes: nsizes,
      ...how(neg, nsizes),
    });
  }
  sliced(f, 'zero-size dimension elsewhere: [2, 0, 3] along 2 into [1, 2]', 'edge', {
    x: ord(dtype, [2, 0, 3]),
    axis: 2,
    sizes: [1, 2],
    ...how(2, [1, 2]),
  });
  sliced(f, 'zero-size split dimension: [2, 0, 3] along 1 into [0, 0]', 'edge', {
    x: ord(dtype, [2, 0, 3]),
    axis: 1,
    sizes: [0, 0],
    ...how(1, [0, 0]),
  });
  sliced(f, 'zero-length chunks between: [4, 5] along 1 into [0, 2, 0, 3, 0]', 'edge', {
    x: ord(dtype, [4, 5]),
    axis: 1,
    sizes: [0, 2, 0, 3, 0],
    ...how(1, [0, 2, 0, 3, 0]),
  });
  sliced(f, 'one output holding everything: [3, 4] along -1 into [4]', 'edge', {
    x: ord(dtype, [3, 4]),
    axis: -1,
    sizes: [4],
    ...how(-1, [4]),
  });
  sliced(f, 'odd byte offsets: [3, 7] along 1 into [1, 3, 3]', 'edge', {
    x: ord(dtype, [3, 7]),
    axis: 1,
    sizes: [1, 3, 3],
    ...how(1, [1, 3, 3]),
  });
}

/** One case per dtype: special values (NaN payloads, -0, Inf, extremes, unicode) split unevenly. */
function dtypeSweep(f, dtypes, how) {
  for (const d of dtypes) {
    sliced(f, `dtype ${d}: special values, [2, 4] along 1 into [1, 3]`, 'edge', {
      x: special(d, [2, 4]),
      axis: 1,
      sizes: [1, 3],
      ...how(1, [1, 3]),
    });
    sliced(f, `dtype ${d}: [5, 3] along 0 into [2, 0, 3]`, 'edge', {
      x: ord(d, [5, 3]),
      axis: 0,
      sizes: [2, 0, 3],
      ...how(0, [2, 0, 3]),
    });
  }
}

/** Every dtype a version refuses, as BAD_DTYPE naming where it would be allowed. */
function refusedDtypes(f, dtypes, inputsFor, includes) {
  for (const d of dtypes) {
    err(f, `refuses dtype ${d}`, {
      inputs: inputsFor(ord(d, [2, 2])),
      outputs: 2,
      code: 'BAD_DTYPE',
      includes: [`dtype ${d}`, ...includes(d)],
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Split-18

{
  const f = file(
    'Split-18',
    'Split',
    18,
    'ONNX Split-18: split input XOR num_outputs; uneven num_outputs per the ONNX reference (ceil chunks, clamped)',
  );
  ok(f, 'spec: test_split_equal_parts_1d_opset18', 'spec', {
    inputs: [IN6()],
    attrs: { axis: 0, num_outputs: 3 },
    outputs: 3,
    expect: literal(
      IN6(),
      0,
      [2, 2, 2],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ),
  });
  ok(f, 'spec: test_split_equal_parts_2d', 'spec', {
    inputs: [IN2x6()],
    attrs: { axis: 1, num_outputs: 2 },
    outputs: 2,
    expect: literal(
      IN2x6(),
      1,
      [3, 3],
      [
        [1, 2, 3, 7, 8, 9],
        [4, 5, 6, 10, 11, 12],
      ],
    ),
  });
  ok(f, 'spec: test_split_equal_parts_default_axis_opset18', 'spec', {
    inputs: [IN6()],
    attrs: { num_outputs: 3 },
    outputs: 3,
    expect: literal(
      IN6(),
      0,
      [2, 2, 2],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ),
  });
  specExamples13(f, '_opset18', false);
  const in7 = f32([7], [1, 2, 3, 4, 5, 6, 7]);
  ok(f, 'spec: test_split_1d_uneven_split_opset18', 'spec', {
    inputs: [in7],
    attrs: { num_outputs: 4 },
    outputs: 4,
    expect: literal(in7, 0, [2, 2, 2, 1], [[1, 2], [3, 4], [5, 6], [7]]),
  });
  const in2x8 = f32([2, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
  ok(f, 'spec: test_split_2d_uneven_split_opset18', 'spec', {
    inputs: [in2x8],
    attrs: { axis: 1, num_outputs: 3 },
    outputs: 3,
    expect: literal(
      in2x8,
      1,
      [3, 3, 2],
      [
        [1, 2, 3, 9, 10, 11],
        [4, 5, 6, 12, 13, 14],
        [7, 8, 15, 16],
      ],
    ),
  });

  // Policy: uneven num_outputs = chunks of ceil(dim/n), clamped; trailing chunks may be empty.
  for (const [dim, n, sizes] of [
    [5, 4, [2, 2, 1, 0]],
    [2, 3, [1, 1, 0]],
    [6, 4, [2, 2, 2, 0]],
    [0, 3, [0, 0, 0]],
    [10, 4, [3, 3, 3, 1]],
    [1, 1, [1]],
    [9, 6, [2, 2, 2, 2, 1, 0]],
  ]) {
    sliced(f, `policy: num_outputs ${n} on length ${dim} = [${sizes}]`, 'policy', {
      x: ord('float32', [2, dim]),
      attrs: { axis: 1, num_outputs: n },
      outputs: n,
      sizes,
    });
  }
  sliced(f, 'policy: num_outputs without a declared output count', 'policy', {
    x: ord('int32', [5]),
    attrs: { num_outputs: 4 },
    sizes: [2, 2, 1, 0],
  });
  sliced(f, 'policy: opset 24 selects Split-18', 'policy', {
    x: ord('float32', [6]),
    opset: 24,
    attrs: { num_outputs: 2 },
    outputs: 2,
    sizes: [3, 3],
  });
  sliced(f, 'policy: no opset selects the newest Split (18)', 'policy', {
    x: ord('float32', [5]),
    opset: null,
    attrs: { num_outputs: 2 },
    outputs: 2,
    sizes: [3, 2],
  });
  structural(f, (_axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis: _axis }, outputs: sizes.length }));
  sliced(f, '1000 outputs from num_outputs', 'edge', {
    x: ord('int32', [2, 1000]),
    attrs: { axis: 1, num_outputs: 1000 },
    outputs: 1000,
    sizes: new Array(1000).fill(1),
  });
  const thousand = [...new Array(999).fill(1), 1];
  sliced(f, '1000 outputs from the split input, some empty', 'edge', {
    x: ord('uint8', [1000, 2]),
    extra: [i64(thousand.map((v, i) => (i % 3 === 1 ? 0 : i % 3 === 2 ? 2 : 1)))],
    attrs: { axis: 0 },
    outputs: 1000,
    sizes: thousand.map((v, i) => (i % 3 === 1 ? 0 : i % 3 === 2 ? 2 : 1)),
  });
  dtypeSweep(f, ALL, (axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis }, outputs: sizes.length }));
  sliced(f, 'dtype bfloat16 with num_outputs', 'edge', {
    x: special('bfloat16', [9]),
    attrs: { num_outputs: 4 },
    outputs: 4,
    sizes: [3, 3, 3, 0],
  });

  const x = IN2x6();
  err(f, "neither 'split' nor num_outputs", {
    inputs: [x],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'BAD_OPTIONS',
    includes: ['exactly one', 'neither'],
  });
  err(f, "both 'split' and num_outputs", {
    inputs: [x, i64([2, 4])],
    attrs: { axis: 1, num_outputs: 2 },
    outputs: 2,
    code: 'BAD_OPTIONS',
    includes: ['not both'],
  });
  err(f, 'declared outputs disagree with num_outputs', {
    inputs: [x],
    attrs: { axis: 1, num_outputs: 3 },
    outputs: 2,
    code: 'OUTPUT_COUNT',
    includes: ['declares 2 outputs', "'num_outputs' = 3"],
  });
  err(f, "declared outputs disagree with 'split'", {
    inputs: [x, i64([1, 2, 3])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'OUTPUT_COUNT',
    includes: ['declares 2 outputs', 'gives 3'],
  });
  err(f, "'split' sums past the dimension", {
    inputs: [x, i64([3, 4])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'SIZE_SUM',
    includes: ['[3, 4]', 'sum to 7', 'dimension 1', 'length 6'],
  });
  err(f, "'split' sums short of the dimension", {
    inputs: [x, i64([1, 4])],
    attrs: { axis: 1 },
    code: 'SIZE_SUM',
    includes: ['sum to 5', 'length 6'],
  });
  err(f, "negative 'split' value", {
    inputs: [x, i64([-1, 7])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['split length 0', '>= 0', '-1'],
  });
  err(f, "'split' beyond 2^53", {
    inputs: [x, i64(['9007199254740993', '-9007199254740987'])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['9007199254740993', '2^53'],
  });
  err(f, "int32 'split' (int64 only)", {
    inputs: [x, ints('int32', [2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ["input 'split'", 'int32', 'allowed: int64'],
  });
  err(f, "float 'split' (not an integer tensor)", {
    inputs: [x, f32([2], [2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ["input 'split'", 'float32'],
  });
  err(f, "scalar 'split'", {
    inputs: [x, i64([6], [])],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ["'split'", '1-D', 'shape []'],
  });
  err(f, "2-D 'split'", {
    inputs: [x, i64([2, 4], [1, 2])],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ["'split'", '1-D', 'shape [1, 2]'],
  });
  err(f, "empty 'split'", {
    inputs: [x, i64([])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ["'split' is empty"],
  });
  err(f, "'split' on the GPU", {
    inputs: [x, { ...i64([2, 4]), gpu: true }],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['GPU tensor', 'plans on the CPU', 'HostTensor'],
  });
  err(f, "'split' attribute at opset 18", {
    inputs: [x],
    attrs: { axis: 1, split: [2, 4] },
    code: 'BAD_ATTRIBUTE',
    includes: ["'split'", 'opset 13', 'input'],
  });
  err(f, 'keepdims attribute on Split', {
    inputs: [x],
    attrs: { num_outputs: 2, keepdims: 0 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'keepdims'", 'SplitToSequence'],
  });
  err(f, 'unknown attribute', {
    inputs: [x],
    attrs: { num_outputs: 2, axes: [1] },
    code: 'BAD_ATTRIBUTE',
    includes: ["'axes'", "'axis', 'num_outputs'"],
  });
  err(f, 'num_outputs 0', {
    inputs: [x],
    attrs: { num_outputs: 0 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'", '>= 1', 'got 0'],
  });
  err(f, 'num_outputs not an integer', {
    inputs: [x],
    attrs: { num_outputs: 2.5 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'", 'integer', '2.5'],
  });
  err(f, 'axis past the rank', {
    inputs: [x],
    attrs: { axis: 2, num_outputs: 2 },
    code: 'AXIS_RANGE',
    includes: ['axis 2', '[-2, 1]', 'rank 2'],
  });
  err(f, 'axis before -rank', {
    inputs: [x],
    attrs: { axis: -3, num_outputs: 2 },
    code: 'AXIS_RANGE',
    includes: ['axis -3', '[-2, 1]'],
  });
  err(f, 'axis not an integer', {
    inputs: [x],
    attrs: { axis: 0.5, num_outputs: 2 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'axis'", '0.5'],
  });
  err(f, 'rank-0 data', { inputs: [f32([], [1])], attrs: { num_outputs: 1 }, code: 'RANK', includes: ['rank 0'] });
  err(f, 'a third input', {
    inputs: [x, i64([2, 4]), i64([1])],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['at most 2 inputs', 'got 3'],
  });
  err(f, 'missing data input', {
    inputs: [null, i64([2, 4])],
    code: 'BAD_INPUT',
    includes: ["input 'input' is required"],
  });
  err(f, 'data array of the wrong length', {
    inputs: [f32([2, 6], [1, 2, 3])],
    attrs: { num_outputs: 2 },
    code: 'DATA_LENGTH',
    includes: ["input 'input'", 'needs 12'],
  });
  err(f, 'negative dimension in the data shape', {
    inputs: [f32([2, -1], [])],
    attrs: { num_outputs: 2 },
    code: 'BAD_SHAPE',
    includes: ["input 'input'", 'dimension 1', 'got -1'],
  });
  err(f, 'declared output count 0', {
    inputs: [x],
    attrs: { num_outputs: 2 },
    outputs: 0,
    code: 'OUTPUT_COUNT',
    includes: ['integer >= 1', 'got 0'],
  });
  err(f, 'opset 0', {
    inputs: [x],
    attrs: { num_outputs: 2 },
    opset: 0,
    code: 'BAD_OPSET',
    prefix: 'Split:',
    includes: ['opset must be an integer >= 1'],
  });
}

// ---------------------------------------------------------------------------------------------
// Split-13

{
  const f = file(
    'Split-13',
    'Split',
    13,
    "ONNX Split-13: 'split' is an optional int64 input; without it, equal parts by the declared outputs, which must divide the axis; bfloat16 allowed",
  );
  specExamples13(f, '_opset13', true);
  sliced(f, 'policy: opset 17 selects Split-13 (equal parts)', 'policy', {
    x: ord('float32', [2, 6]),
    opset: 17,
    attrs: { axis: -1 },
    outputs: 3,
    sizes: [2, 2, 2],
  });
  sliced(f, 'policy: equal parts of a zero-length axis', 'policy', {
    x: ord('float32', [0, 3]),
    outputs: 4,
    sizes: [0, 0, 0, 0],
  });
  structural(f, (axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis }, outputs: sizes.length }));
  sliced(f, '1000 equal outputs', 'edge', { x: ord('float16', [1000]), outputs: 1000, sizes: new Array(1000).fill(1) });
  dtypeSweep(f, ALL, (axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis }, outputs: sizes.length }));
  sliced(f, 'dtype bfloat16 in equal parts', 'edge', {
    x: special('bfloat16', [2, 4]),
    attrs: { axis: 1 },
    outputs: 2,
    sizes: [2, 2],
  });

  const x = IN2x6();
  err(f, 'equal parts that do not divide the axis', {
    inputs: [f32([7], [1, 2, 3, 4, 5, 6, 7])],
    outputs: 2,
    code: 'NOT_DIVISIBLE',
    includes: ['length 7', '2 equal parts', '2 does not divide 7'],
  });
  err(f, "no 'split' and no declared output count", {
    inputs: [x],
    attrs: { axis: 1 },
    code: 'OUTPUT_COUNT',
    includes: ['declares no output count'],
  });
  err(f, "'split' attribute at opset 13", {
    inputs: [x],
    attrs: { axis: 1, split: [2, 4] },
    outputs: 2,
    code: 'BAD_ATTRIBUTE',
    includes: ["'split'", 'opset 13'],
  });
  err(f, 'num_outputs before opset 18', {
    inputs: [x],
    attrs: { num_outputs: 2 },
    outputs: 2,
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'", 'Split-18'],
  });
  err(f, "'split' sums wrong", {
    inputs: [x, i64([3, 4])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'SIZE_SUM',
    includes: ['sum to 7', 'length 6'],
  });
  err(f, "uint64 'split'", {
    inputs: [x, ints('uint64', [2, 4])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'BAD_DTYPE',
    includes: ['uint64', 'allowed: int64'],
  });
  err(f, "empty 'split' (onnxruntime reads it as absent)", {
    inputs: [x, i64([])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'BAD_SIZE',
    includes: ["'split' is empty"],
  });
  err(f, "declared outputs disagree with 'split'", {
    inputs: [x, i64([6])],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'OUTPUT_COUNT',
    includes: ['declares 2', 'gives 1'],
  });
  err(f, 'rank-0 data', { inputs: [f32([], [1])], outputs: 1, code: 'RANK', includes: ['rank 0'] });
}

// ---------------------------------------------------------------------------------------------
// Split-11 and Split-2: the 'split' attribute

for (const [v, mapped] of [
  [11, 12],
  [2, 10],
]) {
  const f = file(
    `Split-${v}`,
    'Split',
    v,
    `ONNX Split-${v}: 'split' attribute; without it, equal parts by the declared outputs, which must divide the axis; no bfloat16; negative axes accepted`,
  );
  ok(f, `spec example adapted: equal parts 1d (opset ${v})`, 'spec', {
    inputs: [IN6()],
    attrs: { axis: 0 },
    outputs: 3,
    expect: literal(
      IN6(),
      0,
      [2, 2, 2],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ),
  });
  ok(f, `spec example adapted: variable parts 2d via the attribute (opset ${v})`, 'spec', {
    inputs: [IN2x6()],
    attrs: { axis: 1, split: [2, 4] },
    outputs: 2,
    expect: literal(
      IN2x6(),
      1,
      [2, 4],
      [
        [1, 2, 7, 8],
        [3, 4, 5, 6, 9, 10, 11, 12],
      ],
    ),
  });
  ok(f, `spec example adapted: zero-size splits (opset ${v})`, 'spec', {
    inputs: [f32([0], [])],
    attrs: { split: [0, 0, 0] },
    outputs: 3,
    expect: literal(f32([0], []), 0, [0, 0, 0], [[], [], []]),
  });
  sliced(f, `policy: opset ${mapped} selects Split-${v}`, 'policy', {
    x: ord('int16', [4, 2]),
    opset: mapped,
    attrs: { split: [1, 3] },
    outputs: 2,
    sizes: [1, 3],
  });
  sliced(f, 'policy: negative axis accepted', 'policy', {
    x: ord('float32', [2, 6]),
    attrs: { axis: -1 },
    outputs: 2,
    sizes: [3, 3],
  });
  sliced(f, "policy: 'split' attribute without a declared count", 'policy', {
    x: ord('float32', [5]),
    attrs: { split: [4, 1] },
    sizes: [4, 1],
  });
  structural(f, (axis, sizes) => ({ attrs: { axis, split: sizes }, outputs: sizes.length }));
  dtypeSweep(f, NO_BF16, (axis, sizes) => ({ attrs: { axis, split: sizes } }));
  sliced(f, '1000 outputs from the attribute', 'edge', {
    x: ord('bool', [1000]),
    attrs: { split: new Array(1000).fill(1) },
    sizes: new Array(1000).fill(1),
  });
  refusedDtypes(
    f,
    ['bfloat16'],
    (t) => [t],
    () => ['allowed from Split-13'],
  );

  const x = IN2x6();
  err(f, "a 'split' input (attribute only)", {
    inputs: [x, i64([2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['takes 1 input', "'input'", 'got 2'],
  });
  err(f, 'equal parts that do not divide the axis', {
    inputs: [x],
    attrs: { axis: 1 },
    outputs: 4,
    code: 'NOT_DIVISIBLE',
    includes: ['4 does not divide 6'],
  });
  err(f, 'num_outputs before opset 18', {
    inputs: [x],
    attrs: { num_outputs: 2 },
    outputs: 2,
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'", 'Split-18'],
  });
  err(f, "'split' attribute sums wrong", {
    inputs: [x],
    attrs: { axis: 1, split: [1, 1] },
    outputs: 2,
    code: 'SIZE_SUM',
    includes: ['sum to 2', 'length 6'],
  });
  err(f, "negative 'split' attribute value", {
    inputs: [x],
    attrs: { axis: 1, split: [7, -1] },
    code: 'BAD_SIZE',
    includes: ['split length 1', '-1'],
  });
  err(f, "'split' attribute not an array", {
    inputs: [x],
    attrs: { axis: 1, split: 6 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'split'", 'array of integers'],
  });
  err(f, "declared outputs disagree with 'split'", {
    inputs: [x],
    attrs: { axis: 1, split: [2, 4] },
    outputs: 3,
    code: 'OUTPUT_COUNT',
    includes: ['declares 3', 'gives 2'],
  });
  err(f, "empty 'split' attribute", {
    inputs: [x],
    attrs: { split: [] },
    code: 'BAD_SIZE',
    includes: ["'split' is empty"],
  });
  err(f, 'axis past the rank', {
    inputs: [x],
    attrs: { axis: 2 },
    outputs: 2,
    code: 'AXIS_RANGE',
    includes: ['axis 2'],
  });
}

// ---------------------------------------------------------------------------------------------
// Split-1

{
  const f = file(
    'Split-1',
    'Split',
    1,
    "ONNX Split-1: float16/float/double only; 'split' as attribute or as a second input typed like the data (integral values), not both; axis defaults to 0",
  );
  ok(f, 'spec example adapted: variable parts 1d via the attribute', 'spec', {
    inputs: [IN6()],
    attrs: { split: [2, 4] },
    outputs: 2,
    expect: literal(
      IN6(),
      0,
      [2, 4],
      [
        [1, 2],
        [3, 4, 5, 6],
      ],
    ),
  });
  ok(f, "spec example adapted: variable parts 2d via a float 'split' input", 'spec', {
    inputs: [IN2x6(), f32([2], [2, 4])],
    attrs: { axis: 1 },
    outputs: 2,
    expect: literal(
      IN2x6(),
      1,
      [2, 4],
      [
        [1, 2, 7, 8],
        [3, 4, 5, 6, 9, 10, 11, 12],
      ],
    ),
  });
  ok(f, 'spec example adapted: equal parts default axis', 'spec', {
    inputs: [IN6()],
    outputs: 3,
    expect: literal(
      IN6(),
      0,
      [2, 2, 2],
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ),
  });
  sliced(f, "policy: float16 'split' input (bits 0x4000 = 2, 0x0000 = 0, 0x3c00 = 1)", 'policy', {
    x: special('float16', [3, 2]),
    extra: [tensor('float16', [3], ['0x4000', '0x0000', '0x3c00'])],
    outputs: 3,
    sizes: [2, 0, 1],
  });
  sliced(f, "policy: float64 'split' input with -0 read as 0", 'policy', {
    x: special('float64', [2, 3]),
    extra: [tensor('float64', [2], ['-0', 3])],
    attrs: { axis: 1 },
    sizes: [0, 3],
  });
  sliced(f, 'policy: opset 1 with negative axis', 'policy', {
    x: ord('float32', [2, 4]),
    attrs: { axis: -1, split: [3, 1] },
    sizes: [3, 1],
  });
  structural(f, (axis, sizes) => ({ attrs: { axis, split: sizes } }));
  dtypeSweep(f, ['float16', 'float32', 'float64'], (axis, sizes) => ({ attrs: { axis, split: sizes } }));
  refusedDtypes(
    f,
    ALL.filter((d) => !['float16', 'float32', 'float64'].includes(d)),
    (t) => [t],
    (d) => [d === 'bfloat16' ? 'allowed from Split-13' : 'allowed from Split-2'],
  );

  const x = IN2x6();
  err(f, "'split' as both attribute and input", {
    inputs: [x, f32([2], [2, 4])],
    attrs: { axis: 1, split: [2, 4] },
    code: 'BAD_OPTIONS',
    includes: ['both as an attribute and as an input'],
  });
  err(f, "non-integral 'split' input", {
    inputs: [x, f32([2], [1.5, 4.5])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['1.5', 'not an integer'],
  });
  err(f, "NaN in the 'split' input", {
    inputs: [x, f32([2], ['NaN', 6])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['NaN', 'not an integer'],
  });
  err(f, "'split' input of another dtype than the data", {
    inputs: [x, tensor('float64', [2], [2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ["input 'split'", 'float64', "dtype of 'input', float32"],
  });
  err(f, "int64 'split' input", {
    inputs: [x, i64([2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ["input 'split'", 'int64'],
  });
  err(f, 'equal parts that do not divide the axis', {
    inputs: [x],
    attrs: { axis: 1 },
    outputs: 5,
    code: 'NOT_DIVISIBLE',
    includes: ['5 does not divide 6'],
  });
  err(f, "no 'split' and no declared output count", {
    inputs: [x],
    code: 'OUTPUT_COUNT',
    includes: ['declares no output count'],
  });
  err(f, 'num_outputs before opset 18', {
    inputs: [x],
    attrs: { num_outputs: 2 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'"],
  });
  err(f, "'split' input on the GPU", {
    inputs: [x, { ...f32([2], [2, 4]), gpu: true }],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['GPU tensor'],
  });
}

// ---------------------------------------------------------------------------------------------
// SplitToSequence-11 and -24

for (const v of [11, 24]) {
  const f = file(
    `SplitToSequence-${v}`,
    'SplitToSequence',
    v,
    `ONNX SplitToSequence-${v}: no 'split' = chunks of 1 (keepdims=0 drops the axis); scalar 'split' k = chunks of k, smaller last; 1-D 'split' = lengths; keepdims ignored when 'split' is given; ${v === 24 ? 'bfloat16 allowed' : 'no bfloat16'}`,
  );
  const data = f32(
    [3, 6],
    Array.from({ length: 18 }, (_, i) => i),
  );
  ok(f, 'onnx backend test: test_split_to_sequence_1 (scalar split 2, axis 1)', 'spec', {
    inputs: [data, i64([2], [])],
    attrs: { axis: 1 },
    expect: literal(
      data,
      1,
      [2, 2, 2],
      [
        [0, 1, 6, 7, 12, 13],
        [2, 3, 8, 9, 14, 15],
        [4, 5, 10, 11, 16, 17],
      ],
    ),
  });
  ok(f, 'onnx backend test: test_split_to_sequence_2 (split [1, 2], axis 0)', 'spec', {
    inputs: [data, i64([1, 2])],
    attrs: { axis: 0 },
    expect: literal(
      data,
      0,
      [1, 2],
      [
        [0, 1, 2, 3, 4, 5],
        [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
      ],
    ),
  });
  ok(f, 'onnx backend test: test_split_to_sequence_nokeepdims (axis 1, keepdims 0)', 'spec', {
    inputs: [data],
    attrs: { axis: 1, keepdims: 0 },
    expect: literal(
      data,
      1,
      [1, 1, 1, 1, 1, 1],
      [
        [0, 6, 12],
        [1, 7, 13],
        [2, 8, 14],
        [3, 9, 15],
        [4, 10, 16],
        [5, 11, 17],
      ],
      true,
    ),
  });
  const x = ord('float32', [10, 2]);
  sliced(f, "policy: no 'split', keepdims default 1: chunks of 1 keep the axis", 'policy', {
    x,
    sizes: new Array(10).fill(1),
  });
  sliced(f, "policy: no 'split', keepdims 0 drops the axis", 'policy', {
    x,
    attrs: { axis: -1, keepdims: 0 },
    sizes: [1, 1],
    dropAxis: true,
  });
  sliced(f, "policy: scalar 'split' 4 on length 10 = [4, 4, 2]", 'policy', {
    x,
    extra: [i64([4], [])],
    sizes: [4, 4, 2],
  });
  sliced(f, "policy: scalar 'split' longer than the axis = one chunk", 'policy', {
    x,
    extra: [i64([25], [])],
    sizes: [10],
  });
  sliced(f, "policy: scalar 'split' 1 with keepdims 0 keeps the axis ('split' given)", 'policy', {
    x,
    extra: [i64([1], [])],
    attrs: { keepdims: 0 },
    sizes: new Array(10).fill(1),
  });
  sliced(f, "policy: scalar 'split' 3 with keepdims 0 keeps the axis", 'policy', {
    x,
    extra: [i64([3], [])],
    attrs: { keepdims: 0 },
    sizes: [3, 3, 3, 1],
  });
  sliced(f, "policy: 1-D 'split' with zeros and keepdims 0 (ignored)", 'policy', {
    x,
    extra: [ints('int32', [0, 7, 0, 3, 0])],
    attrs: { keepdims: 0 },
    sizes: [0, 7, 0, 3, 0],
  });
  sliced(f, "policy: int32 scalar 'split'", 'policy', { x, extra: [ints('int32', [6], [])], sizes: [6, 4] });
  sliced(f, "policy: 1-D 'split' of one entry", 'policy', { x, extra: [i64([10])], sizes: [10] });
  for (const [name, extra, attrs] of [
    ["no 'split'", [], {}],
    ["no 'split', keepdims 0", [], { keepdims: 0 }],
    ["scalar 'split'", [i64([2], [])], {}],
    ["empty 1-D 'split'", [i64([])], {}],
  ]) {
    ok(f, `policy: zero-length axis, ${name} = empty sequence`, 'policy', {
      inputs: [ord('float32', [3, 0]), ...extra],
      attrs: { axis: 1, ...attrs },
      expect: [],
    });
  }
  sliced(f, 'policy: keepdims 0 on rank 1 gives scalars', 'policy', {
    x: special('int64', [4]),
    attrs: { keepdims: 0 },
    sizes: [1, 1, 1, 1],
    dropAxis: true,
  });
  sliced(f, 'policy: outputs may declare the sequence as 1 output', 'policy', {
    x: ord('float32', [3]),
    outputs: 1,
    sizes: [1, 1, 1],
  });
  sliced(f, 'policy: outputs may declare the sequence length', 'policy', {
    x: ord('float32', [3]),
    outputs: 3,
    sizes: [1, 1, 1],
  });
  if (v === 11)
    sliced(f, 'policy: opset 23 selects SplitToSequence-11', 'policy', {
      x: ord('float32', [4]),
      opset: 23,
      extra: [i64([3], [])],
      sizes: [3, 1],
    });
  else
    sliced(f, 'policy: opset 30 selects SplitToSequence-24', 'policy', {
      x: special('bfloat16', [4]),
      opset: 30,
      extra: [i64([3], [])],
      sizes: [3, 1],
    });
  structural(f, (axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis } }));
  sliced(f, '1000 tensors of rank 0 (keepdims 0)', 'edge', {
    x: ord('int32', [1000]),
    attrs: { keepdims: 0 },
    sizes: new Array(1000).fill(1),
    dropAxis: true,
  });
  sliced(f, 'rank 6 without split, keepdims 0', 'edge', {
    x: ord('uint16', [2, 1, 3, 1, 2, 3]),
    attrs: { axis: -4, keepdims: 0 },
    sizes: [1, 1, 1],
    dropAxis: true,
  });
  dtypeSweep(f, v === 24 ? ALL : NO_BF16, (axis, sizes) => ({ extra: [i64(sizes)], attrs: { axis } }));
  for (const d of v === 24 ? ALL : NO_BF16) {
    sliced(f, `dtype ${d}: no split, keepdims 0`, 'edge', {
      x: special(d, [2, 3]),
      attrs: { axis: 1, keepdims: 0 },
      sizes: [1, 1, 1],
      dropAxis: true,
    });
  }
  if (v === 11)
    refusedDtypes(
      f,
      ['bfloat16'],
      (t) => [t],
      () => ['allowed from SplitToSequence-24'],
    );

  const y = IN2x6();
  err(f, "float 'split'", {
    inputs: [y, f32([2], [2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ["input 'split'", 'float32', 'type I', 'int32, int64'],
  });
  err(f, "uint8 'split'", {
    inputs: [y, ints('uint8', [2, 4])],
    attrs: { axis: 1 },
    code: 'BAD_DTYPE',
    includes: ['uint8', 'type I'],
  });
  err(f, "2-D 'split'", {
    inputs: [y, i64([2, 4], [2, 1])],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['scalar', '1-D', 'shape [2, 1]'],
  });
  err(f, "scalar 'split' 0", {
    inputs: [y, i64([0], [])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['scalar', '>= 1', 'got 0'],
  });
  err(f, "negative scalar 'split'", {
    inputs: [y, ints('int32', [-2], [])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['>= 1', 'got -2'],
  });
  err(f, "negative value in a 1-D 'split'", {
    inputs: [y, i64([7, -1])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['-1'],
  });
  err(f, "1-D 'split' sums wrong", {
    inputs: [y, i64([2, 2])],
    attrs: { axis: 1 },
    code: 'SIZE_SUM',
    includes: ['sum to 4', 'length 6'],
  });
  err(f, "empty 1-D 'split' on a non-empty axis", {
    inputs: [y, i64([])],
    attrs: { axis: 1 },
    code: 'SIZE_SUM',
    includes: ["'split' is empty", 'length 6'],
  });
  err(f, "'split' beyond 2^53", {
    inputs: [y, i64(['-9223372036854775808'], [])],
    attrs: { axis: 1 },
    code: 'BAD_SIZE',
    includes: ['-9223372036854775808', '2^53'],
  });
  err(f, 'keepdims 2', {
    inputs: [y],
    attrs: { keepdims: 2 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'keepdims'", '0 or 1', 'got 2'],
  });
  err(f, 'num_outputs attribute', {
    inputs: [y],
    attrs: { num_outputs: 2 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'num_outputs'"],
  });
  err(f, "'split' attribute", {
    inputs: [y],
    attrs: { split: [2, 4] },
    code: 'BAD_ATTRIBUTE',
    includes: ["'split'", 'input'],
  });
  err(f, 'opset 10 (before the operator)', {
    inputs: [y],
    opset: 10,
    code: 'BAD_OPSET',
    prefix: 'SplitToSequence:',
    includes: ['opset 10', 'from opset 11'],
  });
  err(f, 'rank-0 data', { inputs: [f32([], [1])], code: 'RANK', includes: ['rank 0'] });
  err(f, 'axis past the rank', { inputs: [y], attrs: { axis: 2 }, code: 'AXIS_RANGE', includes: ['axis 2'] });
  err(f, 'declared outputs that are neither 1 nor the length', {
    inputs: [y],
    attrs: { axis: 1 },
    outputs: 2,
    code: 'OUTPUT_COUNT',
    includes: ['declares 2', 'gives 6'],
  });
  err(f, "'split' on the GPU", {
    inputs: [y, { ...i64([2], []), gpu: true }],
    attrs: { axis: 1 },
    code: 'BAD_INPUT',
    includes: ['GPU tensor'],
  });
  err(f, 'a third input', {
    inputs: [y, i64([2], []), i64([2], [])],
    code: 'BAD_INPUT',
    includes: ['at most 2 inputs'],
  });
}

// ---------------------------------------------------------------------------------------------
// VariadicSplit-1

{
  const f = file(
    'VariadicSplit-1',
    'VariadicSplit',
    1,
    'OpenVINO VariadicSplit-1: axis scalar or [1] of any integer type; split_lengths 1-D of any integer type, at most one -1, zeros allowed; any data type; opset ignored',
  );
  const big = tensor('uint8', [6, 12, 10, 24], {
    base64: Buffer.from(Uint8Array.from({ length: 17280 }, (_, i) => (i * 7) % 251)).toString('base64'),
  });
  const bigOuts = (sizes) => {
    const bytes = Buffer.from(big.data.base64, 'base64');
    const per = 12 * 10 * 24;
    let at = 0;
    return sizes.map((s) => {
      const o = {
        shape: [s, 12, 10, 24],
        data: { base64: bytes.subarray(at * per, (at + s) * per).toString('base64') },
      };
      at += s;
      return o;
    });
  };
  ok(f, 'spec example: [6, 12, 10, 24], axis 0, split_lengths [1, 2, 3]', 'spec', {
    inputs: [big, i64([0], []), i64([1, 2, 3])],
    expect: bigOuts([1, 2, 3]),
  });
  ok(f, 'spec example: [6, 12, 10, 24], axis 0, split_lengths [-1, 2]', 'spec', {
    inputs: [big, i64([0], []), i64([-1, 2])],
    expect: bigOuts([4, 2]),
  });
  // The same examples in the slicer's terms, on a small inner block, to cross-check the byte slices above.
  const small = ord('float32', [6, 2]);
  sliced(f, 'spec example shape check: [6, 2], split_lengths [-1, 2]', 'spec', {
    x: small,
    extra: [i64([0], []), i64([-1, 2])],
    sizes: [4, 2],
  });

  const x = ord('float32', [4, 5]);
  for (const [i, d] of INTS.entries()) {
    const axisV = d.startsWith('u') ? 1 : -1;
    sliced(
      f,
      `policy: axis ${d} ${i % 2 ? 'shape [1]' : 'scalar'} = ${axisV}, split_lengths ${INTS[(i + 3) % 8]}`,
      'policy',
      {
        x,
        axis: 1,
        extra: [
          ints(d, [axisV], i % 2 ? [1] : []),
          ints(INTS[(i + 3) % 8], INTS[(i + 3) % 8].startsWith('u') ? [2, 3, 0] : [2, -1, 0]),
        ],
        sizes: [2, 3, 0],
      },
    );
  }
  sliced(f, 'policy: -1 standing for 0', 'policy', {
    x,
    axis: 0,
    extra: [ints('int32', [0], []), ints('int8', [4, -1])],
    sizes: [4, 0],
  });
  sliced(f, 'policy: -1 alone', 'policy', {
    x,
    axis: 1,
    extra: [ints('int32', [1], []), ints('int16', [-1])],
    sizes: [5],
  });
  sliced(f, 'policy: the opset field is ignored', 'policy', {
    x,
    opset: 3,
    axis: 0,
    extra: [ints('int32', [0], []), i64([1, 3])],
    sizes: [1, 3],
  });
  sliced(f, 'policy: declared output count that agrees', 'policy', {
    x,
    outputs: 2,
    axis: 0,
    extra: [ints('int32', [0], []), i64([1, 3])],
    sizes: [1, 3],
  });
  structural(f, (axis, sizes) => ({ extra: [ints('int32', [axis], []), i64(sizes)] }));
  dtypeSweep(f, ALL, (axis, sizes) => ({
    extra: [
      ints('int64', [axis], [1]),
      ints(
        'int32',
        sizes.map((s, i) => (i === sizes.length - 1 ? -1 : s)),
      ),
    ],
  }));
  sliced(f, '1000 outputs', 'edge', {
    x: ord('complex64', [1000]),
    extra: [ints('uint8', [0], []), ints('int16', new Array(1000).fill(1))],
    sizes: new Array(1000).fill(1),
  });

  const y = IN2x6();
  const ax1 = ints('int32', [1], []);
  err(f, 'two -1 entries', {
    inputs: [y, ax1, i64([-1, 2, -1])],
    code: 'BAD_SIZE',
    includes: ['2 entries of -1', 'at most one'],
  });
  err(f, 'an entry below -1', {
    inputs: [y, ax1, i64([8, -2])],
    code: 'BAD_SIZE',
    includes: ['value -2', 'index 1', '-1 for the remainder'],
  });
  err(f, 'lengths that sum wrong', {
    inputs: [y, ax1, i64([2, 2])],
    code: 'SIZE_SUM',
    includes: ['sum to 4', 'length 6'],
  });
  err(f, 'lengths beyond the axis before the -1', {
    inputs: [y, ax1, i64([5, -1, 3])],
    code: 'SIZE_SUM',
    includes: ['without its -1', '8', 'length 6'],
  });
  err(f, 'axis of shape [2]', {
    inputs: [y, ints('int32', [1, 1], [2]), i64([6])],
    code: 'BAD_INPUT',
    includes: ["'axis'", 'shape [1]', 'got shape [2]'],
  });
  err(f, 'axis of shape [1, 1]', {
    inputs: [y, ints('int32', [1], [1, 1]), i64([6])],
    code: 'BAD_INPUT',
    includes: ["'axis'", 'shape [1, 1]'],
  });
  err(f, 'float axis', {
    inputs: [y, f32([], [1]), i64([6])],
    code: 'BAD_DTYPE',
    includes: ["input 'axis'", 'float32', 'integer'],
  });
  err(f, 'bool split_lengths', {
    inputs: [y, ax1, tensor('bool', [1], [1])],
    code: 'BAD_DTYPE',
    includes: ["input 'split_lengths'", 'bool'],
  });
  err(f, 'float split_lengths', {
    inputs: [y, ax1, f32([2], [2, 4])],
    code: 'BAD_DTYPE',
    includes: ["input 'split_lengths'", 'float32'],
  });
  err(f, '2-D split_lengths', {
    inputs: [y, ax1, i64([2, 4], [1, 2])],
    code: 'BAD_INPUT',
    includes: ["'split_lengths'", '1-D'],
  });
  err(f, 'empty split_lengths', {
    inputs: [y, ax1, i64([])],
    code: 'BAD_SIZE',
    includes: ["'split_lengths' is empty"],
  });
  err(f, 'uint64 split_lengths of 2^64-1 (not -1)', {
    inputs: [y, ax1, ints('uint64', ['18446744073709551615', '7'])],
    code: 'BAD_SIZE',
    includes: ['18446744073709551615', '2^53'],
  });
  err(f, 'axis past the rank', {
    inputs: [y, ints('int8', [-3], []), i64([1])],
    code: 'AXIS_RANGE',
    includes: ['axis -3', '[-2, 1]'],
  });
  err(f, 'axis beyond 2^53', {
    inputs: [y, ints('int64', ['9223372036854775807'], []), i64([1])],
    code: 'AXIS_RANGE',
    includes: ['9223372036854775807'],
  });
  err(f, 'missing split_lengths', {
    inputs: [y, ax1],
    code: 'BAD_INPUT',
    includes: ["input 'split_lengths' is required"],
  });
  err(f, 'missing axis', { inputs: [y, null, i64([6])], code: 'BAD_INPUT', includes: ["input 'axis' is required"] });
  err(f, 'a fourth input', {
    inputs: [y, ax1, i64([6]), i64([6])],
    code: 'BAD_INPUT',
    includes: ['takes 3 inputs', 'got 4'],
  });
  err(f, 'an axis attribute', {
    inputs: [y, ax1, i64([6])],
    attrs: { axis: 1 },
    code: 'BAD_ATTRIBUTE',
    includes: ["'axis'", 'second input'],
  });
  err(f, 'declared outputs disagree', {
    inputs: [y, ax1, i64([2, -1])],
    outputs: 3,
    code: 'OUTPUT_COUNT',
    includes: ['declares 3', 'gives 2'],
  });
  err(f, 'rank-0 data', {
    inputs: [f32([], [1]), ints('int32', [0], []), i64([1])],
    code: 'RANK',
    includes: ['rank 0'],
  });
  err(f, 'axis on the GPU', {
    inputs: [y, { ...ax1, gpu: true }, i64([6])],
    code: 'BAD_INPUT',
    includes: ["input 'axis' is a GPU tensor"],
  });
  err(f, 'split_lengths on the GPU', {
    inputs: [y, ax1, { ...i64([6]), gpu: true }],
    code: 'BAD_INPUT',
    includes: ["input 'split_lengths' is a GPU tensor"],
  });
}

// ---------------------------------------------------------------------------------------------
// Writing: arrays of plain values on one line, everything else indented.

function format(v, indent = '') {
  if (Array.isArray(v)) {
    if (v.every((e) => e === null || typeof e !== 'object')) return `[${v.map((e) => JSON.stringify(e)).join(', ')}]`;
    const inner = indent + '  ';
    return `[\n${v.map((e) => inner + format(e, inner)).join(',\n')}\n${indent}]`;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    const flat = entries.every(
      ([, e]) =>
        e === null ||
        typeof e !== 'object' ||
        (Array.isArray(e) && e.every((x) => x === null || typeof x !== 'object') && e.length <= 16),
    );
    if (flat && JSON.stringify(v).length <= 120)
      return `{ ${entries.map(([k, e]) => `${JSON.stringify(k)}: ${format(e)}`).join(', ')} }`;
    const inner = indent + '  ';
    return `{\n${entries.map(([k, e]) => `${inner}${JSON.stringify(k)}: ${format(e, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v);
}

let total = 0;
for (const [name, f] of files) {
  const names = new Set();
  for (const c of f.cases) {
    if (names.has(c.name)) throw new Error(`${name}: duplicate case name ${c.name}`);
    names.add(c.name);
  }
  writeFileSync(join(HERE, `${name}.json`), format(f) + '\n');
  total += f.cases.length;
  console.log(`${name}.json: ${f.cases.length} cases (${f.cases.filter((c) => c.error).length} errors)`);
}
console.log(`${total} golden cases`);
