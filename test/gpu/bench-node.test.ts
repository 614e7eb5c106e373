// The Node bench (bench/node) end to end on one tiny case, wall time only (the path of an adapter
// without timestamp queries) and without its peers (--no-peers: loading ONNX Runtime Web costs tens of seconds of
// CPU, and no test depends on a peer): it exits 0, its JSON (results format 2) holds verified outputs and figures
// for every system that applies, the peers n/a with the reason, and it renders its HTML report beside it. Then
// its per-call section (--calls), two rounds: every variant verified and timed in each. Then the decode step on the
// runtime's own device (--cases '^decode-step$', shortened by --quick): for the gather forced and the planner's
// choice, nothing compiled but `ready`'s one asynchronous compile, no GPU work that no call recorded, 1 pass, 1
// dispatch, 3 setBindGroup and no object or writeBuffer per step with the gather, the caches exact, and host times
// present. Runs the built dist/ in a child process, as `npm run bench:node` does. Figures are read for presence,
// never compared with a time.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';

interface Summary {
  readonly median: number;
  readonly n: number;
}
interface SystemRecord {
  readonly verified: boolean;
  readonly skip?: string;
  readonly error?: string;
  readonly stats?: { readonly strategy: string };
  readonly wall?: Summary;
  readonly gpu?: Summary;
}

test('bench:node runs a tiny case in wall time only, every output verified', () => {
  expect(existsSync('dist/cleave.js'), 'dist/ is built (npm run build)').toBe(true);
  const out = mkdtempSync(join(tmpdir(), 'bench-node-'));
  try {
    const args = ['bench/node/run.mjs', '--quick', '--cases', '^tiny-f32-6-a0-3$', '--wall-only', '--no-peers'];
    args.push('--out', out);
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 90_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/GPU time: none \(--wall-only\): wall time only/);
    const files = readdirSync(out).filter((f) => /^node-.*\.json$/.test(f));
    expect(files).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(out, files[0]!), 'utf8'));
    expect(report.format).toBe(2);
    expect(readFileSync(join(out, 'node-report.html'), 'utf8')).toContain('<h4>tiny-f32-6-a0-3: float32 [6] a0');
    expect(report.timestamps).toBe(false);
    expect(report.adapter.vendor).toBeTypeOf('string');
    expect(Object.keys(report.costs)).toEqual(['copyCommandNs', 'dispatchNs', 'copyByteNs', 'gatherByteNs']);
    expect(report.cases).toHaveLength(1);
    const systems: Record<string, SystemRecord> = report.cases[0].systems;
    expect(Object.keys(systems)).toEqual([
      'cleave',
      'forced-alias',
      'forced-copy',
      'forced-gather',
      'separate',
      'ort',
      'tfjs',
      'copy-limit',
      'shader-limit',
    ]);
    expect(systems['ort']).toMatchObject({ skip: 'n/a: --no-peers', verified: false });
    expect(systems['tfjs']).toMatchObject({ skip: 'n/a: --no-peers', verified: false });
    expect(systems['ort']!.wall, 'a peer that did not run has no time').toBeUndefined();
    expect(report.peers).toEqual({});
    const ran = Object.entries(systems).filter(([, s]) => !s.skip);
    // [6] into 3 cannot be views (outputs start at 256-byte offsets): alias is the one that does not apply.
    expect(ran.map(([k]) => k)).toEqual([
      'cleave',
      'forced-copy',
      'forced-gather',
      'separate',
      'copy-limit',
      'shader-limit',
    ]);
    for (const [key, s] of ran) {
      expect(s.error, key).toBeUndefined();
      expect(s.verified, key).toBe(true);
      expect(s.wall?.n, key).toBeGreaterThan(0);
      expect(Number.isFinite(s.wall?.median), key).toBe(true);
      expect(s.gpu, `${key}: no GPU time without timestamps`).toBeUndefined();
    }
    expect(systems['forced-copy']!.stats!.strategy).toBe('copy');
    expect(systems['forced-gather']!.stats!.strategy).toBe('gather');
    expect(report.cases[0].gpuErrors).toEqual([]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

interface CallRow {
  readonly fn: string;
  readonly variant: string;
  readonly calls: number;
  readonly skip?: string;
  readonly error?: string;
  readonly us?: Summary & { readonly min: number };
  readonly overBare?: Summary;
  readonly fastestOverBare?: number;
  readonly gpuCalls?: { readonly submits: number; readonly copies: number; readonly errorScopes: number };
}

test('bench:node --calls runs the per-call section, every variant verified and timed in each round', () => {
  expect(existsSync('dist/cleave.js'), 'dist/ is built (npm run build)').toBe(true);
  const out = mkdtempSync(join(tmpdir(), 'bench-node-calls-'));
  try {
    const args = ['bench/node/run.mjs', '--calls', '--call-rounds', '2', '--probes', '--out', out];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 90_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^adapter: \S+ \/ \S* \/ .+ \(VK_ICD_FILENAMES .+\)$/m);
    expect(r.stdout).toMatch(/Per-call cost of calls-decode-f32-1x1x12288: µs per call over 2 rounds/);
    expect(r.stdout).toMatch(/What keeping blame costs/);
    const files = readdirSync(out).filter((f) => /^node-calls-.*\.json$/.test(f));
    expect(files).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(out, files[0]!), 'utf8'));
    expect(report.format).toBe(2);
    expect(report.cases).toEqual([]);
    expect(report.settings).toEqual({ callRounds: 2, probes: true });
    expect(readFileSync(join(out, 'node-calls-report.html'), 'utf8')).toContain('<h2>Per-call cost</h2>');
    expect(report.callCosts).toHaveLength(1);
    const record = report.callCosts[0];
    expect(record.spec).toMatchObject({ id: 'calls-decode-f32-1x1x12288', dtype: 'float32', shape: [1, 1, 12288] });
    expect(record.gpuErrors).toEqual([]);
    const rows: CallRow[] = record.rows;
    expect(rows.map((x) => x.variant)).toEqual([
      'bare',
      'bare-scope-call',
      'bare-scope-batch',
      'bare-scope-awaited',
      'split-upload-copies',
      'split-caller-seen',
      'encode-upload',
      'split-upload-views',
      'split-upload-at4',
      'split-caller-at4',
      'encode-caller-at4',
      'prepared-encode-into',
      'prepared-encode-moving',
      'prepared-split-copies',
      'prepared-split-into',
      'prepared-split-moving',
      'prepared-split-caller-seen',
    ]);
    for (const x of rows) {
      expect(x.error, x.variant).toBeUndefined();
      expect(x.skip, x.variant).toBeUndefined();
      expect(x.calls, x.variant).toBe(200);
      expect(x.us?.n, x.variant).toBe(2);
      expect(x.us!.min, x.variant).toBeGreaterThan(0);
      if (x.fn === 'bare') continue;
      expect(x.overBare?.n, x.variant).toBe(2);
      expect(x.fastestOverBare, x.variant).toBeGreaterThan(0);
    }
    const bare = rows[0]!;
    expect(bare.gpuCalls).toMatchObject({ submits: 1, copies: 3, errorScopes: 0 });
    for (const x of rows.filter((y) => y.fn === 'scoped')) expect(x.gpuCalls?.errorScopes, x.variant).toBe(1);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('bench:node --calls refuses the options of the cases, and --call-rounds without --calls', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['bench/node/run.mjs', ...args], { encoding: 'utf8' });
  const both = run('--calls', '--cases', 'tiny');
  expect(both.status).toBe(2);
  expect(both.stderr).toMatch(/--calls runs the per-call section alone: no --cases/);
  const alone = run('--call-rounds', '3');
  expect(alone.status).toBe(2);
  expect(alone.stderr).toMatch(/--call-rounds only with --calls/);
  expect(run('--calls', '--call-rounds', '0').stderr).toMatch(/--call-rounds needs a whole number above 0/);
});

interface DecodeStepRun {
  readonly strategy: string;
  readonly error?: string;
  readonly gpuErrors: string[];
  readonly plan: { readonly strategy: string; readonly dispatches: number };
  readonly compiles: Record<string, { readonly sync: number; readonly async: number }>;
  readonly unrecorded: { readonly outside: Record<string, number>; readonly inSteps: Record<string, number> };
  readonly perStep: Record<string, number>;
  readonly exact: string;
  readonly exactAfterTiming: string;
  readonly host: {
    readonly stepsPerRound: number;
    readonly runs: {
      readonly rounds: number;
      readonly us: Record<'release' | 'noRelease' | 'bare', Summary & { readonly min: number }>;
      readonly fastest: Record<'release' | 'noRelease', number>;
      readonly ratios: Record<'release' | 'noRelease', Summary>;
    }[];
    readonly fastest: Record<'release' | 'noRelease', number>;
    readonly roundMedian: Record<'release' | 'noRelease', number>;
  };
}

test("bench:node runs the decode step on the runtime's own device: counts as 0.7 has them, caches exact", () => {
  expect(existsSync('dist/cleave.js'), 'dist/ is built (npm run build)').toBe(true);
  const out = mkdtempSync(join(tmpdir(), 'bench-node-decode-'));
  try {
    const args = ['bench/node/run.mjs', '--quick', '--cases', '^decode-step$', '--out', out];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 90_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout, 'a run of the decode step alone calibrates nothing').toMatch(/cost model \(the adapter's table/);
    expect(r.stdout).toMatch(/^decode-step \([\d.]+ s\): float16 QKV \[1, 36, 1, 64\]/m);
    const files = readdirSync(out).filter((f) => /^node-.*\.json$/.test(f));
    expect(files).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(out, files[0]!), 'utf8'));
    expect(report.format).toBe(2);
    expect(report.cases).toEqual([]);
    expect(report.peers, 'no peer loaded').toEqual({});
    expect(readFileSync(join(out, 'node-report.html'), 'utf8')).toContain('<h3>decode-step</h3>');
    expect(report.decodeSteps).toHaveLength(1);
    const record = report.decodeSteps[0];
    expect(record.spec).toMatchObject({ id: 'decode-step', heads: 12, tokens: 64, headDim: 64, warmup: 8 });
    expect(record.settings).toEqual({ counted: 16, runs: 2, rounds: 6, stepsPerRound: 64 });
    const runs: DecodeStepRun[] = record.runs;
    expect(runs.map((x) => x.strategy)).toEqual(['gather', 'auto']);
    const nothing = { sync: 0, async: 0 };
    for (const run of runs) {
      const what = `${run.strategy} (plan ${run.plan?.strategy})`;
      expect(run.error, what).toBeUndefined();
      expect(run.gpuErrors, what).toEqual([]);
      const gather = run.plan.strategy === 'gather';
      if (run.strategy === 'gather') expect(run.plan).toMatchObject({ strategy: 'gather', dispatches: 1 });
      // The runtime's device: nothing at creation; ready compiles the gather's variant asynchronously, once.
      expect(run.compiles, what).toEqual({
        creation: nothing,
        ready: gather ? { sync: 0, async: 1 } : nothing,
        firstCall: nothing,
        steps: nothing,
      });
      // Whatever Cleave did outside its calls, and encoders, passes, copies or submits of its own inside a step.
      for (const [k, v] of Object.entries(run.unrecorded.outside)) expect(v, `${what}: ${k} outside a step`).toBe(0);
      for (const [k, v] of Object.entries(run.unrecorded.inSteps)) expect(v, `${what}: ${k} of its own`).toBe(0);
      expect(run.perStep.steps).toBe(16);
      expect(run.perStep, `${what}: per step after 8`).toMatchObject({ buffers: 0, bindGroups: 0, writeBuffers: 0 });
      if (gather)
        expect(run.perStep, what).toMatchObject({
          passes: 1,
          dispatches: 1,
          setPipeline: 1,
          setBindGroup: 3,
          copies: 0,
        });
      expect(run.exact, what).toBe('exact');
      expect(run.exactAfterTiming, what).toBe('exact');
      expect(run.host.runs, what).toHaveLength(2);
      for (const h of run.host.runs) {
        expect(h.rounds).toBe(6);
        for (const k of ['release', 'noRelease', 'bare'] as const) {
          expect(h.us[k].n, `${what}: ${k}`).toBe(6);
          expect(h.us[k].min, `${what}: ${k}`).toBeGreaterThan(0);
        }
        for (const k of ['release', 'noRelease'] as const) {
          expect(h.fastest[k], `${what}: ${k}`).toBeGreaterThan(0);
          expect(h.ratios[k].n, `${what}: ${k}`).toBe(6);
        }
      }
      expect(run.host.fastest.release).toBeGreaterThan(0);
      expect(run.host.roundMedian.noRelease).toBeGreaterThan(0);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
