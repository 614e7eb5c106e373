// Fault injection: plants one known fault at a time (planner, shader, executor, CPU path, ops
// front-ends, dtype table) in a temporary copy of the repository and runs the test files that
// should catch it, then prints a table: fault, failing tests per file, time. Every fault must be
// caught by at least two files, one of them with an independent reference (marked *); the script
// exits 1 when one is not. Not part of `npm test` (it runs each tier again per fault);
// `node scripts/mutants.mjs [id ...]` runs some faults only. The faults are listed in test/README.md; the record
// of past runs is in bench/RESULTS.md.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** Test files whose oracle is independent of Cleave: the tests' own reference, golden data, or ORT. */
const INDEPENDENT = new Set([
  'test/gpu/differential.test.ts',
  'test/gpu/generated.test.ts',
  'test/gpu/large.test.ts',
  'test/gpu/packed.test.ts',
  'test/gpu/outputs.test.ts',
  'test/ops/golden.test.ts',
  'test/ops/ort-diff.test.ts',
  'test/planner/dtypes.test.ts',
  'test/gpu/kernels.test.ts',
  'test/gpu/into.test.ts',
]);

const DIFF = 'test/gpu/differential.test.ts';
const GEN = 'test/gpu/generated.test.ts';
const PACKED = 'test/gpu/packed.test.ts';
const GOLDEN = 'test/ops/golden.test.ts';
const ORT = 'test/ops/ort-diff.test.ts';
const PLANNER = 'test/planner/planner.test.ts';
const OUTPUTS = 'test/gpu/outputs.test.ts';
const KERNELS = 'test/gpu/kernels.test.ts';
const INTO = 'test/gpu/into.test.ts';
const LARGE = 'test/gpu/large.test.ts';

/** Each fault: where, what it breaks, the exact text replaced (it must occur once), and the files to run. */
const FAULTS = [
  {
    id: 'planner-last-start',
    what: 'the last output starts one element early',
    file: 'src/planner/split.ts',
    find: 'starts.push(sum);',
    replace: 'starts.push(i === n - 1 && sum > 0 ? sum - 1 : sum);',
    tests: [DIFF, GEN, GOLDEN],
  },
  {
    id: 'planner-tile-short',
    what: "a bit geometry's last tile ends one word early: its last word is never written",
    file: 'src/planner/tiles.ts',
    find: 'last: Math.min(last, p + span)',
    replace: 'last: Math.min(last - 1, p + span)',
    tests: [DIFF, GEN, KERNELS],
  },
  {
    id: 'planner-into-stride',
    what: "a destination's rows are written back to back, its strides ignored",
    file: 'src/planner/regions.ts',
    find: 'dst_stride: rd * bits,',
    replace: 'dst_stride: rowLen * bits,',
    tests: [INTO, 'test/planner/into.test.ts'],
  },
  {
    id: 'planner-alias-align',
    what: 'outputs alias the input at byte (not storage-aligned) offsets',
    file: 'src/planner/gpu.ts',
    find: 'r.src % (alignment * 8) === 0',
    replace: 'r.src % 8 === 0',
    tests: [DIFF, GEN, OUTPUTS],
  },
  {
    id: 'planner-equal-floor',
    what: "equal parts of floor(dim / n), not ceil (Split-18 num_outputs, 'parts')",
    file: 'src/planner/split.ts',
    find: 'const chunk = Math.ceil(dim / parts);',
    replace: 'const chunk = Math.max(1, Math.floor(dim / parts));',
    tests: [GOLDEN, ORT, PLANNER],
  },
  {
    id: 'planner-word-tile-short',
    what: "a word geometry's last tile ends one row early: its last row is never written",
    file: 'src/planner/tiles.ts',
    find: 'last: Math.min(g.rows, r + rows), dst_binding })',
    replace: 'last: Math.min(g.rows, r + rows) - (r + rows >= g.rows ? 1 : 0), dst_binding })',
    tests: [DIFF, GEN, KERNELS],
  },
  {
    id: 'planner-word-columns',
    what: "a long row's column tiles all read the row's first 256 words",
    file: 'src/planner/tiles.ts',
    find: 'const cols = { ...g, src: g.src + c, dst: g.dst + c, row_len: rowLen };',
    replace: 'const cols = { ...g, src: g.src, dst: g.dst + c, row_len: rowLen };',
    tests: [DIFF, GEN, KERNELS, LARGE],
  },
  {
    id: 'planner-window-edge',
    what: "a tile cut at binding windows gets a source window that starts at the next aligned offset, past the tile's start",
    file: 'src/planner/dispatch.ts',
    find: 'const [sb, db] = [Math.floor(p.src / 8 / a) * a, Math.floor(p.dst / 8 / a) * a];',
    replace: 'const [sb, db] = [Math.ceil(p.src / 8 / a) * a, Math.floor(p.dst / 8 / a) * a];',
    tests: [KERNELS, LARGE],
  },
  {
    id: 'planner-dispatch-group',
    what: 'a dispatch that groups several target buffers drops the last of them: that target is never written',
    file: 'src/planner/dispatch.ts',
    find: 'const bound = written.slice(first, first + limits.targetsPerDispatch);',
    replace:
      'const bound = written.slice(first, first + limits.targetsPerDispatch);\n    if (bound.length > 1) bound.pop();',
    tests: [INTO, OUTPUTS, PACKED, PLANNER],
  },
  {
    id: 'shader-words-pass',
    what: 'gather_words steps the source one row per pass of several rows: rows after the first pass read early',
    file: 'shaders/split-gather.wgsl',
    find: 'let ss = pass_rows * t.src_stride;',
    replace: 'let ss = t.src_stride;',
    tests: [DIFF, GEN, KERNELS],
  },
  {
    id: 'shader-binding-swap',
    what: "gather_words' loop for target binding 1 writes binding 2's buffer",
    file: 'shaders/split-gather.wgsl',
    find: 'case 1u: { for (var i = 0u; i < n; i++) { dst1[d] = src[s]; s += ss; d += ds; } }',
    replace: 'case 1u: { for (var i = 0u; i < n; i++) { dst2[d] = src[s]; s += ss; d += ds; } }',
    tests: [INTO, OUTPUTS],
  },
  {
    id: 'shader-bits-mask',
    what: "gather_bits leaves a piece's bits past its length unmasked (tails not zeroed, rows bleed)",
    file: 'shaders/split-gather.wgsl',
    find: 'value |= (read32(s) & low_bits(n)) << (p - base);',
    replace: 'value |= read32(s) << (p - base);',
    tests: [DIFF, GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-funnel-shift',
    what: "gather_bits' funnel shifts the upper source word one bit short (2^(31 - sh), not 2^(32 - sh))",
    file: 'shaders/split-gather.wgsl',
    find: 'return (lo >> vec4<u32>(sh)) | (hi * ((1u << (31u - sh)) << 1u));',
    replace: 'return (lo >> vec4<u32>(sh)) | (hi * (1u << (31u - sh)));',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-seam-mask',
    what: "gather_bits' seams leave a row's tail unmasked: the bits after its end bleed into the next row's",
    file: 'shaders/split-gather.wgsl',
    find: 'store4(t.dst_binding, t.first + k * GROUP, (tail & m) | (head & ~m));',
    replace: 'store4(t.dst_binding, t.first + k * GROUP, tail | (head & ~m));',
    tests: [DIFF, GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-seam-head',
    what: "gather_bits' seams read the next row's head unshifted (from its start, not `left` bits before)",
    file: 'shaders/split-gather.wgsl',
    find: 'let head = funnel4(t.src + (r + 1u) * t.src_stride - left);',
    replace: 'let head = funnel4(t.src + (r + 1u) * t.src_stride);',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-bulk-cross',
    what: 'gather_bits takes into the bulk groups that run up to a word past a row end',
    file: 'shaders/split-gather.wgsl',
    find: 'return at.y + GROUP * 32u <= t.row_len;',
    replace: 'return at.y + GROUP * 32u <= t.row_len + 32u;',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-step',
    what: "gather_bits' mixed-radix step forgets the column's wrap: after a lane's first row end its groups drift",
    file: 'shaders/split-gather.wgsl',
    find: 'return select(a, a + vec2<u32>(1u, 0u - t.row_len), a.y >= t.row_len);',
    replace: 'return select(a, a + vec2<u32>(1u, 0u), a.y >= t.row_len);',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-edge-last',
    what: "gather_bits' edge pass skips a tile's last group: its words are never written",
    file: 'shaders/split-gather.wgsl',
    find: 'let w = t.first + select(k * (groups - 1u), k, short) * GROUP;',
    replace: 'let w = t.first + select(k * groups, k, short) * GROUP;',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-bits-tail-zero',
    what: "gather_bits fills the bits after an output's end from the source instead of zeroing them",
    file: 'shaders/split-gather.wgsl',
    find: 'let hi = min(base + 32u, end);',
    replace: 'let hi = base + 32u;',
    tests: [GEN, PACKED, KERNELS],
  },
  {
    id: 'shader-keep-tail',
    what: "gather_bits zeroes the bits after a caller's destination (its neighbours' bytes)",
    file: 'shaders/split-gather.wgsl',
    find: 'if (hi < base + 32u && keeps_tail(t)) {',
    replace: 'if (false) {',
    tests: [INTO, 'test/hostile/into.test.ts'],
  },
  {
    id: 'shader-msb-order',
    what: 'gather_bits ignores the MSB-first order of uint1',
    file: 'shaders/split-gather.wgsl',
    find: 'if (MSB_FIRST) { return flip_bytes(x); }',
    replace: '',
    tests: [DIFF, GEN, PACKED],
  },
  {
    id: 'executor-host-on-cpu',
    what: 'host tensors on a WebGPU engine silently split on the CPU',
    file: 'src/engine/program.ts',
    find: "if (x.kind === 'host') return this.host(gpu, x, what);",
    replace:
      "if (x.kind === 'host') return { outputs: splitOnCpu(this.spec.plan, x as HostView, this.spec.shapes), gp: undefined };",
    tests: [DIFF, GEN, GOLDEN],
  },
  {
    id: 'executor-readback-shift',
    what: 'readback of outputs after the first starts 4 bytes late',
    file: 'src/gpu/executor.ts',
    find: 'all.subarray(p.byteOffset, p.byteOffset + p.byteLength)',
    replace: 'all.subarray(p.byteOffset + (i > 0 ? 4 : 0), p.byteOffset + p.byteLength + (i > 0 ? 4 : 0))',
    tests: [DIFF, GEN, GOLDEN],
  },
  {
    id: 'cpu-row-stride',
    what: 'the CPU path steps rows by one element too few',
    file: 'src/cpu/split.ts',
    find: 'const srcBit = (o: number) => (o * plan.axisLen + plan.starts[i]!) * plan.inner * bits;',
    replace: 'const srcBit = (o: number) => (o * (plan.axisLen - 1) + plan.starts[i]!) * plan.inner * bits;',
    tests: [DIFF, GEN, GOLDEN],
  },
  {
    id: 'ops-seq-keepdims',
    what: "SplitToSequence drops the axis for keepdims=0 even when 'split' is given",
    file: 'src/ops/split-to-sequence.ts',
    find: '!split && keepdims === 0 ?',
    replace: 'keepdims === 0 ?',
    tests: [GOLDEN, ORT],
  },
  {
    id: 'ops-variadic-rest',
    what: 'VariadicSplit gives -1 one element less than the rest',
    file: 'src/ops/variadic-split.ts',
    find: '(v === -1 ? rest : v)',
    replace: '(v === -1 ? Math.max(0, rest - 1) : v)',
    tests: [GOLDEN, PACKED],
  },
  {
    id: 'dtype-uint3-width',
    what: 'uint3 is 4 bits wide in the dtype table',
    file: 'src/dtype.ts',
    find: 'uint3: packed(3),',
    replace: 'uint3: packed(4),',
    tests: ['test/planner/dtypes.test.ts', PACKED, DIFF],
  },
];

/** A copy of the working tree (tracked and untracked, not ignored files), with node_modules linked. */
function copyTree() {
  const dir = mkdtempSync(join(tmpdir(), 'cleave-mutants-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    // node_modules is linked below, also where the checkout links it (untracked, and not a folder).
    .filter((f) => f && f !== 'node_modules');
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    try {
      cpSync(join(ROOT, f), join(dir, f));
    } catch {
      /* a file deleted in the working tree but still tracked */
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs vitest on `tests` in `dir`; returns failing tests per file (-1: the file failed to run) and seconds. */
function runTests(dir, tests) {
  const out = join(dir, 'vitest.json');
  const t0 = Date.now();
  spawnSync('npx', ['vitest', 'run', ...tests, '--reporter=json', `--outputFile=${out}`], {
    cwd: dir,
    stdio: 'ignore',
    timeout: 900_000,
  });
  const seconds = (Date.now() - t0) / 1000;
  const failing = Object.fromEntries(tests.map((t) => [t, -1]));
  let report;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    return { failing, seconds };
  }
  for (const r of report.testResults) {
    const file = r.name.slice(dir.length + 1);
    const failed = r.assertionResults.filter((a) => a.status === 'failed').length;
    // A file that failed outside its tests (setup, load) counts as caught, with its tests all not run.
    failing[file] = failed > 0 || r.status !== 'failed' ? failed : Math.max(1, r.assertionResults.length);
  }
  rmSync(out, { force: true });
  return { failing, seconds };
}

const only = process.argv.slice(2);
const faults = only.length ? FAULTS.filter((f) => only.includes(f.id)) : FAULTS;
const dir = copyTree();
const rows = [];
let uncaught = 0;
try {
  for (const f of faults) {
    const path = join(dir, f.file);
    const original = readFileSync(path, 'utf8');
    const count = original.split(f.find).length - 1;
    if (count !== 1) throw new Error(`${f.id}: '${f.find}' occurs ${count} times in ${f.file}, not once`);
    writeFileSync(path, original.replace(f.find, f.replace));
    const { failing, seconds } = runTests(dir, f.tests);
    writeFileSync(path, original);
    const caughtBy = Object.entries(failing).filter(([, n]) => n > 0);
    const ok = caughtBy.length >= 2 && caughtBy.some(([t]) => INDEPENDENT.has(t));
    if (!ok) uncaught++;
    const cells = Object.entries(failing).map(
      ([t, n]) => `${t.replace(/^test\//, '')}${INDEPENDENT.has(t) ? '*' : ''}: ${n < 0 ? 'did not run' : n}`,
    );
    rows.push(
      `| ${f.id} | ${f.file} | ${f.what} | ${cells.join(', ')} | ${seconds.toFixed(0)} s | ${ok ? 'yes' : 'NO'} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('| fault | where | what | failing tests per file (* independent reference) | time | caught by 2+ |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
if (uncaught) {
  console.log(`\n${uncaught} fault(s) not caught by two files, one of them with an independent reference`);
  process.exitCode = 1;
}
