// bench:node's decisions and words in plain Node (no GPU, no peer): which decode step, cases, pipelines and decode
// loops a run takes (the campaign's steps take each item once), which systems a case too large for the device cannot
// run (the limit named), a peer that failed or could not run reported with its reason and never as a time, the
// summary lines of device-run.sh, the campaign's one results file (bench/node/merge.mjs) rendering as a page, and the
// decode step's record in words (its counts against the expectations, its host ratios).

import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { CASES, DECODES, DECODE_STEPS, PIPELINES } from '../../bench/cases.mjs';
import { renderHtml } from '../../bench/lib/report/html.mjs';
import { chartLibrary } from '../../bench/lib/report/html/document.mjs';
import { modelCountRows } from '../../bench/lib/report/text.mjs';
import { decodeStepFailures, offExpected, renderDecodeStep } from '../../bench/lib/report/decode-step.mjs';
import { mergeReports } from '../../bench/node/merge.mjs';
import { ratiosOf, renderCase, renderSummary } from '../../bench/node/report.mjs';
import { idsOf, overLimits, selectWork } from '../../bench/node/select.mjs';
import { runLines } from '../../bench/node/summary-lines.mjs';
import type {
  CallCounts,
  DecodeStepRecord,
  DecodeStepRun,
  DeviceTally,
  NodeCaseRecord,
  NodeReport,
  Report,
  SystemResult,
} from '../../bench/types.js';

const MiB = 1 << 20;

describe('what a run takes', () => {
  const ids = (o: Parameters<typeof selectWork>[0]) => idsOf(selectWork(o));

  test('--quick: the cases marked nodeQuick, no decode step, pipeline or decode loop; a full run: all but cold', () => {
    const quick = selectWork({ quick: true });
    expect(quick.cases.map((c) => c.id)).toEqual(CASES.filter((c) => c.nodeQuick).map((c) => c.id));
    expect(quick.steps).toEqual([]);
    expect(quick.pipelines).toEqual([]);
    expect(quick.decodes).toEqual([]);
    const full = ids({ quick: false });
    expect(full[0], 'the decode step first').toBe('decode-step');
    const all = [...DECODE_STEPS, ...CASES.filter((c) => !c.cold), ...PIPELINES, ...DECODES];
    expect(full).toEqual(all.map((c) => c.id));
    expect(full.some((id) => id.startsWith('cold-'))).toBe(false);
  });

  test('--cases matches cases, pipelines and decode loops alike; --exclude drops what it matches', () => {
    expect(ids({ quick: false, filter: /128MiB/ })).toEqual([
      'f32-4096x8192-a1-2-128MiB',
      'u8-8192x16384-a1-5461-5462-5461-128MiB',
    ]);
    expect(ids({ quick: false, filter: /^(pipe|decode)-/ })).toEqual(
      [...DECODE_STEPS, ...PIPELINES, ...DECODES].map((x) => x.id),
    );
    expect(ids({ quick: false, filter: /^decode-step$/ })).toEqual(['decode-step']);
    expect(ids({ quick: true, filter: /^decode-step$/ }), '--quick with --cases: the timing only').toEqual([
      'decode-step',
    ]);
    expect(ids({ quick: false, exclude: /^decode-step$/ })).not.toContain('decode-step');
    expect(ids({ quick: false, filter: /^(pipe|decode)-/, exclude: /^decode/ })).toEqual(PIPELINES.map((x) => x.id));
    expect(ids({ quick: false, filter: /^cold-/ })).toEqual([]);
  });

  test("device-run.sh's steps take every item once: decode, quick, large, models and the rest (spread)", () => {
    const decode = ids({ quick: false, filter: /^decode-step$/ });
    expect(decode).toEqual(['decode-step']);
    const quick = ids({ quick: true });
    const large = ids({ quick: false, filter: /128MiB/ });
    const models = ids({ quick: false, filter: /^(pipe|decode)-/, exclude: /^decode-step$/ });
    const rest = new RegExp(['128MiB', '^(pipe|decode)-', ...quick.map((id) => `^${id}$`)].join('|'));
    // As device-run.sh asks for it: --quick --cases . --exclude REST (--quick with --cases: the timing only).
    const spread = ids({ quick: true, filter: /./, exclude: rest });
    const all = [...decode, ...quick, ...large, ...models, ...spread];
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...ids({ quick: false })].sort());
    expect(spread.length).toBeGreaterThan(10);
  });
});

describe("bench:node's command line (no GPU: it stops before Dawn loads)", () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['bench/node/run.mjs', ...args], { encoding: 'utf8' });

  test('--list prints the ids a run would take, one a line, as device-run.sh reads them', () => {
    const r = run('--quick', '--list');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(idsOf(selectWork({ quick: true })));
    const some = run('--cases', '^(pipe|decode)-', '--exclude', '^decode', '--list');
    expect(some.stdout.trim().split('\n')).toEqual(PIPELINES.map((p) => p.id));
    const step = run('--cases', '^decode-step', '--list');
    expect(step.status, step.stderr).toBe(0);
    expect(step.stdout).toBe('decode-step\n');
    expect(run('--list').stdout.split('\n')[0], 'a full run lists the decode step first').toBe('decode-step');
    expect(run('--quick', '--list').stdout).not.toMatch(/decode-step/);
  });

  test('--help names the decode step', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/'\^decode-step\$': the decode step on the runtime's own device/);
  });

  test('refuses what cannot go together, and a selection of nothing', () => {
    expect(run('--calls', '--no-peers').stderr).toMatch(/--calls runs the per-call section alone: no --no-peers/);
    const none = run('--cases', '^no-such-case$', '--list');
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^bench:node: no case matches/);
  });
});

describe('a case too large for the device', () => {
  test('over maxBufferSize: no system runs it, and the limit is named', () => {
    const o = overLimits(128 * MiB, { maxBufferSize: 64 * MiB, maxStorageBufferBindingSize: 64 * MiB });
    expect(o.all).toBe(`n/a: the input's ${128 * MiB} bytes exceed maxBufferSize (${64 * MiB})`);
  });
  test('over maxStorageBufferBindingSize only: the systems binding the whole input are n/a, with the limit', () => {
    const o = overLimits(128 * MiB, { maxBufferSize: 256 * MiB, maxStorageBufferBindingSize: 128 * MiB - 4 });
    expect(o.all).toBeUndefined();
    expect(o.oneBinding).toMatch(/^n\/a: the input's 134217728 bytes exceed maxStorageBufferBindingSize \(134217724\)/);
  });
  test('within both (the control): nothing said', () => {
    expect(overLimits(128 * MiB, { maxBufferSize: 128 * MiB, maxStorageBufferBindingSize: 128 * MiB })).toEqual({
      all: undefined,
      oneBinding: undefined,
    });
  });
});

/** A system that ran and verified: median ms on each clock. */
const ran = (wall: number, gpu?: number, extra: Partial<SystemResult> = {}): SystemResult => ({
  ok: true,
  verified: true,
  wall: { median: wall, min: wall, max: wall, n: 5 },
  ...(gpu === undefined ? {} : { gpu: { median: gpu, min: gpu, max: gpu, n: 3 } }),
  ...extra,
});
const failed = (error: string): SystemResult => ({ ok: false, verified: false, error });
const na = (skip: string): SystemResult => ({ ok: false, verified: false, skip });

function caseRecord(id: string, bytes: number, systems: NodeCaseRecord['systems']): NodeCaseRecord {
  const c: NodeCaseRecord['case'] = {
    id,
    dtype: 'float32',
    shape: [bytes / 4],
    axis: 0,
    sizes: [bytes / 8, bytes / 8],
    bytes,
  };
  return { case: c, systems, gpuErrors: [], seconds: 1, ratios: ratiosOf({ case: c, systems }) };
}

const STATS = { strategy: 'copy', unitBits: 32, dispatches: 0, copies: 2, commands: 2, pipelines: 0 };
const placed = 'All nodes placed on [WebGpuExecutionProvider]. Number of nodes: 1';
const CASE_A = caseRecord('a', 8 * MiB, {
  cleave: ran(2, 1, { stats: STATS }),
  'forced-copy': ran(2.2, 1.1, { stats: STATS }),
  ort: ran(6, 3, { placement: placed }),
  tfjs: ran(8, undefined, { placement: "WebGPU backend on the bench's device: 2 dispatches, 1 submit per split" }),
  'copy-limit': ran(1, 0.5),
  'shader-limit': ran(1.5, 1),
});
const CASE_B = caseRecord('b-128MiB', 128 * MiB, {
  cleave: ran(40, 20, { stats: STATS }),
  ort: failed('verify failed: Program Split requires f16'),
  tfjs: na('TF.js keeps float32, int32 and bool (as 32-bit words) on the GPU, not float16'),
  'copy-limit': ran(20, 10),
  'shader-limit': ran(100, 90),
});
const CASE_C = caseRecord('c', 1 * MiB, {
  cleave: ran(1, 0.5, { stats: STATS }),
  ort: ran(3, 0.2, { fallback: 'cpu-ep', webgpuError: 'nodes on the CPU EP' }),
  tfjs: na('n/a: --no-peers'),
});

describe('the peers in the report', () => {
  test("a peer's time over Cleave's, on each clock, where both ran on WebGPU", () => {
    expect(CASE_A.ratios.wall).toMatchObject({ ort: 3, tfjs: 4, copyLimit: 2 });
    expect(CASE_A.ratios.gpu).toMatchObject({ ort: 3, tfjs: undefined });
    expect(CASE_B.ratios.wall.ort).toBeUndefined();
  });

  test('a peer that failed or could not run is ERR or n/a with its reason, never a time', () => {
    const text = renderCase(CASE_B);
    expect(text).toMatch(/^ {2}ort +FAILED: verify failed: Program Split requires f16$/m);
    expect(text).toMatch(/^ {2}tfjs +TF\.js keeps float32/m);
    expect(text).not.toMatch(/over the default: ORT/);
    const summary = renderSummary([CASE_A, CASE_B, CASE_C]);
    const row = (id: string) => summary.split('\n').find((l) => l.startsWith(`${id} `)) ?? '';
    expect(row('b-128MiB')).toMatch(/ ERR +- \(-\) +n\/a +- \(-\) /);
    expect(row('c')).toMatch(/ 3\.00 \(0\.200\) cpu /);
    expect(row('a')).toMatch(/ 6\.00 \(3\.00\) +3\.00x \(3\.00x\) +8\.00 \(-\) +4\.00x \(-\) /);
    expect(summary).toMatch(/ORT on its CPU EP \(its WebGPU EP refused\): c 3\.00x\./);
  });

  test('where a peer ran is printed beside its times', () => {
    expect(renderCase(CASE_A)).toContain(`ort           6.00      3.00      2.80 / 5.59     ${placed}`);
  });
});

const REPORT: NodeReport = {
  format: 2,
  started: '2026-11-28T00:00:00.000Z',
  finished: '2026-11-28T00:01:00.000Z',
  node: 'v20',
  args: ['--quick'],
  adapter: { vendor: 'nvidia', architecture: 'hopper', device: '', description: 'NVIDIA H200' },
  icd: '/tmp/nvidia_egl_icd.json',
  features: ['timestamp-query'],
  limits: { maxBufferSize: 1 << 30 },
  timestamps: true,
  settings: {} as NodeReport['settings'],
  peers: { ort: { version: '1.30.0', warmUpS: 9 }, tfjs: { version: '4.22.0', warmUpS: 0.3 } },
  cases: [CASE_A, CASE_B, CASE_C],
};

describe("device-run.sh's summary lines", () => {
  test('each peer: where it ran verified on WebGPU, on a CPU path, ERR and n/a, and its geometric mean', () => {
    const lines = runLines('quick', REPORT);
    expect(lines[0]).toMatch(/^quick: nvidia\/hopper\/NVIDIA H200 \(ICD \/tmp\/nvidia_egl_icd\.json\); 3 cases;/);
    expect(lines[0]).toMatch(/failed: none$/);
    expect(runLines('quick', { ...REPORT, timestamps: false })[0]).toMatch(
      /failed: none; no GPU time \(no 'timestamp-query'\): wall only$/,
    );
    expect(lines[1]).toBe(
      "quick: ORT Web verified on WebGPU in 1 of 3 cases (a); its time over Cleave's, geometric mean where Cleave " +
        "does GPU work: wall 3.00x over 1, GPU 3.00x over 1; where Cleave's outputs are views: wall -; on its CPU " +
        'EP 1, ERR 1, n/a 0',
    );
    expect(lines[2]).toMatch(
      /^quick: TF\.js verified on WebGPU in 1 of 3 cases \(a\);.* on its CPU path 0, ERR 0, n\/a 2$/,
    );
  });

  test('a large split in GB/s (read plus written) beside the limits, a failed peer as ERR', () => {
    const line = runLines('large', REPORT).find((l) => l.includes('b-128MiB'));
    expect(line).toBe(
      'large: b-128MiB: GB/s read + written, wall (GPU): cleave 6.71 (GPU 13.4), copy-limit 13.4 (GPU 26.8), ' +
        "shader-limit 2.68 (GPU 2.98), ort ERR, tfjs n/a; Cleave at 50% of the copy limit's wall GB/s (GPU 50%)",
    );
  });

  test('a failure of Cleave or a limit is named; a peer failing fails nothing', () => {
    const broken = caseRecord('d', MiB, { cleave: failed('differs at byte 3'), ort: failed('refused') });
    expect(runLines('x', { ...REPORT, cases: [CASE_B, broken] })[0]).toMatch(/failed: d$/);
  });
});

describe("the campaign's one results file", () => {
  const part = (args: string[], cases: NodeCaseRecord[], started: string): NodeReport => ({
    ...REPORT,
    args,
    cases,
    started,
    finished: started,
  });

  test('merges the runs in order, keeps an id met twice the first time and says so, and names each run', () => {
    const merged = mergeReports([
      { name: 'quick', report: part(['--quick'], [CASE_A, CASE_C], '2026-11-28T00:00:00.000Z') },
      { name: 'large', report: part(['--cases', '128MiB'], [CASE_B, CASE_A], '2026-11-28T00:05:00.000Z') },
    ]);
    expect(merged.cases.map((c) => c.case.id)).toEqual(['a', 'c', 'b-128MiB']);
    expect(merged.cases[0]).toBe(CASE_A);
    expect(merged.notes).toEqual(["a: run again in large; the first run's figures are kept"]);
    expect(merged.parts?.map((p) => [p.name, p.cases])).toEqual([
      ['quick', 2],
      ['large', 2],
    ]);
    expect([merged.started, merged.finished]).toEqual(['2026-11-28T00:00:00.000Z', '2026-11-28T00:05:00.000Z']);
  });

  test('renders as one page: the peers, where they ran, the runs it holds, a failed peer with its reason', async () => {
    const merged = mergeReports([
      { name: 'quick', report: part(['--quick'], [CASE_A, CASE_C], REPORT.started) },
      { name: 'large', report: part(['--cases', '128MiB'], [CASE_B], REPORT.started) },
    ]);
    const page = renderHtml({ kind: 'node', report: merged }, await chartLibrary());
    const html = page.slice(0, page.indexOf('<!--'));
    expect(html).toContain('<code>2 runs merged</code>');
    expect(html).toContain('<dt>Run &#34;large&#34;</dt><dd>--cases 128MiB;');
    expect(html).toContain('ONNX Runtime Web (WebGPU EP) 1.30.0, loaded and run once off the clock in 9.00 s');
    expect(html).toMatch(
      /Cleave vs ORT Web, GPU-resident: ORT Web&#39;s time over Cleave&#39;s, geometric mean 3\.00x/,
    );
    expect(html).toContain(`<li>a, ORT: ${placed}</li>`);
    expect(html).toContain('ORT Web (WebGPU EP): failed: verify failed: Program Split requires f16');
  });
});

test("a decode loop's calls are given per step: session.run, submits, dispatches over the sequence's steps", () => {
  const calls = (sessionRuns: number, submits: number, dispatches: number) =>
    ({
      sessionRuns,
      submits,
      dispatches,
      passes: 0,
      copies: 0,
      bytesCopied: 0,
      buffersCreated: 0,
      writeBuffers: 0,
    }) as unknown as CallCounts;
  const decode = {
    id: 'decode-x',
    decode: { steps: [4, 1, 1, 1] },
    systems: {
      'ort-whole': ran(10, 9, { calls: calls(4, 4, 44) }),
      'cleave-pipeline': ran(8, 7, { calls: calls(8, 13, 32) }),
    },
  };
  const rows = modelCountRows({ pipelines: [], decodes: [decode] as unknown as Report['decodes'] });
  expect(rows).toEqual([
    ['decode-x', 'ort-whole', '1', '1', '0', '11', '0', '0', '0', '0'],
    ['decode-x', 'cleave-pipeline', '2', '3.25', '0', '8', '0', '0', '0', '0'],
  ]);
});

describe("the decode step's record in words", () => {
  const none = (): DeviceTally => ({
    compiles: 0,
    compilesAsync: 0,
    encoders: 0,
    passes: 0,
    copies: 0,
    submits: 0,
    commandBuffers: 0,
    buffers: 0,
    bindGroups: 0,
    writeBuffers: 0,
  });
  const sum = (v: number) => ({ median: v, min: v, max: v, n: 6 });
  /** A run of the host timing: fastest µs of Cleave with release, without, and of the replay. */
  const host = (release: number, noRelease: number, bare: number) => ({
    rounds: 6,
    us: { release: sum(release), noRelease: sum(noRelease), bare: sum(bare) },
    fastest: { release: release / bare, noRelease: noRelease / bare },
    ratios: { release: sum(release / bare), noRelease: sum(noRelease / bare) },
  });
  const zero = { sync: 0, async: 0 };
  /** An engine's run as the issue expects it of 0.7 with the gather. */
  const asExpected = (strategy: 'gather' | 'auto'): DecodeStepRun => ({
    strategy,
    plan: { strategy: 'gather', unitBits: 128, dispatches: 1, copies: 0 },
    compiles: { creation: zero, ready: { sync: 0, async: 1 }, firstCall: zero, steps: zero },
    unrecorded: {
      outside: none(),
      inSteps: { encoders: 0, passes: 0, copies: 0, submits: 0, commandBuffers: 0 },
    },
    perStep: {
      steps: 32,
      passes: 1,
      dispatches: 1,
      setPipeline: 1,
      setBindGroup: 3,
      copies: 0,
      calls: 7,
      buffers: 0,
      bindGroups: 0,
      writeBuffers: 0,
    },
    host: {
      stepsPerRound: 64,
      runs: [host(12, 11, 10), host(13, 12, 10)],
      fastest: { release: 1.25, noRelease: 1.15 },
      roundMedian: { release: 1.25, noRelease: 1.15 },
    },
    exact: 'exact',
    exactAfterTiming: 'exact',
    gpuErrors: [],
  });
  const record = (runs: DecodeStepRun[]): DecodeStepRecord => ({
    id: 'decode-step',
    spec: DECODE_STEPS[0]!,
    settings: { counted: 32, runs: 2, rounds: 6, stepsPerRound: 64 },
    runs,
    seconds: 3,
  });
  const good = record([asExpected('gather'), asExpected('auto')]);

  test('the counts per engine, and that every one is as the issue expects', () => {
    const text = renderDecodeStep(good);
    expect(text).toMatch(/^plan \(engine\.stats\) +gather 128-bit x1 +gather 128-bit x1$/m);
    expect(text).toMatch(/^ {2}in prepare, until ready +1 async +1 async$/m);
    expect(text).toMatch(/^GPU work no call recorded +none +none$/m);
    expect(text).toMatch(/^per step \(32 after 8\): passes +1 +1$/m);
    expect(text).toMatch(/^ {2}setBindGroup +3 +3$/m);
    expect(text).toContain('Every count as the issue expects.');
    expect(offExpected(asExpected('gather'))).toEqual([]);
    expect(decodeStepFailures(good)).toEqual([]);
  });

  test('the host ratios per run and over the runs, with and without the release, against the target', () => {
    const text = renderDecodeStep(good);
    expect(text).toMatch(/^gather forced +1 +12\.0 +11\.0 +10\.0 +1\.20x +1\.10x +1\.20x +1\.10x$/m);
    expect(text).toMatch(/^gather forced +median +1\.25x +1\.15x +1\.25x +1\.15x$/m);
    expect(text).toContain('releases its 3 outputs with engine.release inside its timing');
    expect(text).toContain('gather forced: 1.250x the bare calls');
    expect(text).toMatch(/1\.150x without the release\): within the target of 1\.25x\./);
    const over = asExpected('auto');
    over.host = { ...over.host!, fastest: { release: 1.2504, noRelease: 1.2 } };
    expect(renderDecodeStep(record([over]))).toMatch(/1\.250x the bare calls.*: over the target of 1\.25x\./);
  });

  test('a count off the expectation is named; caches that differ and a GPU error fail the run', () => {
    const off = asExpected('auto');
    off.compiles = { ...off.compiles!, steps: { sync: 1, async: 0 } };
    off.perStep = { ...off.perStep!, setBindGroup: 4, bindGroups: 0.5 };
    off.unrecorded = { ...off.unrecorded!, outside: { ...none(), submits: 2, commandBuffers: 2 } };
    expect(offExpected(off)).toEqual([
      'compiles at steps 1 sync (expected 0)',
      'GPU work no call recorded: outside a step: 2 submits, 2 commandBuffers',
      'per step bindGroups 0.50 (expected 0)',
      'per step setBindGroup 4 (expected 3)',
    ]);
    expect(decodeStepFailures(record([asExpected('gather'), off])), 'counts fail nothing').toEqual([]);
    const bad = { ...asExpected('gather'), exact: 'K cache differs at byte 128 (head 0, slot 1): 3, expected 4' };
    bad.gpuErrors = ['validation'];
    expect(decodeStepFailures(record([bad]))).toEqual([
      'decode-step (gather forced): K cache differs at byte 128 (head 0, slot 1): 3, expected 4',
      'decode-step (gather forced): GPU error: validation',
    ]);
  });

  test("device-run.sh's lines, the campaign's file and its page carry it", async () => {
    const report = { ...REPORT, cases: [], decodeSteps: [good] };
    const lines = runLines('decode', report);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      'decode: decode-step, gather forced: gather 128-bit x1; host, fastest Cleave / fastest bare, median over 2 ' +
        'runs: 1.25x with release (runs 1.20x 1.30x), 1.15x without (runs 1.10x 1.20x); median round ratio 1.25x / ' +
        '1.15x; target 1.25x; per step 1 pass, 1 dispatch, 3 setBindGroup, 0 copies, 0 objects, 0 writeBuffer; ' +
        'compiles creation/ready/first/steps 0/1 async/0/0; unrecorded GPU work none; exact',
    );
    const merged = mergeReports([
      { name: 'decode', report },
      { name: 'quick', report: { ...REPORT, decodeSteps: [good] } },
    ]);
    expect(merged.decodeSteps).toEqual([good]);
    expect(merged.notes).toEqual(["decode-step: run again in quick; the first run's figures are kept"]);
    expect(merged.parts?.map((p) => [p.name, p.decodeSteps])).toEqual([
      ['decode', 1],
      ['quick', 1],
    ]);
    const page = renderHtml({ kind: 'node', report: merged }, await chartLibrary());
    const html = page.slice(0, page.indexOf('<!--'));
    expect(html).toContain('<h2>The decode step on the runtime&#39;s device</h2>');
    expect(html).toContain('<td class="id">  setBindGroup</td><td class="num">3</td><td class="num">3</td>');
  });
});
