// `npm run bench:node`: Cleave's kernels in Node, through Dawn on whatever adapter it finds (no
// browser): per case, the default plan and each strategy forced against one copyBufferToBuffer and
// a vec4 copy kernel of the same bytes on the same device, every output verified first. Prints the
// tables, writes bench/results/node-<timestamp>.json and renders it as bench/results/node-report.html
// (where Chart.js is installed; else it says how to render it later). Imports only dist/, `webgpu` and
// bench modules that run in Node and the browser alike (Chart.js's file is read, not imported). With --calls, the
// page bench's per-call section instead (calls.mjs): node-calls-<timestamp>.json and node-calls-report.html.
//
//   node bench/node/run.mjs [--quick] [--cases REGEX] [--wall-only] [--budget MS] [--out DIR]
//   node bench/node/run.mjs --calls [--quick] [--call-rounds N] [--probes] [--out DIR]

import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES } from '../cases.mjs';
import { log, parseOptions, status, timingFor } from '../lib/cli.mjs';
import { writeHtml } from '../lib/report/html.mjs';
import { RESULTS_FORMAT } from '../lib/results-file.mjs';
import { callRoundsFor, runCalls } from './calls.mjs';
import { openDevice } from './device.mjs';

const ROOT = new URL('../../', import.meta.url);

const USAGE = `usage: node bench/node/run.mjs [options]   (npm run bench:node -- [options])
  --quick          the cases marked nodeQuick, shorter timing: under a minute
  --cases REGEX    only the cases whose id matches REGEX (ids in bench/cases.mjs; cold cases never run here)
  --wall-only      no timestamp queries: wall time only, as on an adapter without 'timestamp-query'
  --budget MS      timing per system per case (default 1500, quick 150)
  --calls          the per-call section instead of the cases: a decode step's split per call against the bare
                   WebGPU calls its copies need (as the page bench's); JSON node-calls-<timestamp>.json
  --call-rounds N  rounds of the per-call section (default 21, quick 7)
  --probes         per-call section: GPU calls counted in one call of each variant (its error scopes too)
  --out DIR        where the JSON and its HTML page go (default bench/results)`;

/** @param {string} m @returns {never} */
function fail(m) {
  console.error(`bench:node: ${m}\n${USAGE}`);
  process.exit(2);
}

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  const o = parseOptions(
    argv,
    {
      '--quick': 'flag',
      '--cases': (v) => new RegExp(v),
      '--wall-only': 'flag',
      '--budget': Number,
      '--calls': 'flag',
      '--call-rounds': Number,
      '--probes': 'flag',
      '--out': resolve,
    },
    USAGE,
    'bench:node',
  );
  const a = {
    quick: !!o['quick'],
    filter: /** @type {RegExp | undefined} */ (o['cases']),
    wallOnly: !!o['wall-only'],
    budget: /** @type {number | undefined} */ (o['budget']),
    calls: !!o['calls'],
    callRounds: /** @type {number | undefined} */ (o['call-rounds']),
    probes: !!o['probes'],
    out: /** @type {string | undefined} */ (o['out']) ?? fileURLToPath(new URL('bench/results', ROOT)),
  };
  if (a.callRounds !== undefined && !(Number.isInteger(a.callRounds) && a.callRounds > 0))
    fail('--call-rounds needs a whole number above 0');
  const casesOnly = ['cases', 'wall-only', 'budget'].filter((k) => k in o);
  if (a.calls && casesOnly.length) fail(`--calls runs the per-call section alone: no --${casesOnly.join(', --')}`);
  const callsOnly = ['call-rounds', 'probes'].filter((k) => k in o);
  if (!a.calls && callsOnly.length) fail(`--${callsOnly.join(', --')} only with --calls`);
  return a;
}

/** @typedef {ReturnType<typeof parseArgs>} Args */

/** @param {Args} a */
function selectCases(a) {
  if (a.calls) return [];
  const cases = CASES.filter((c) => !c.cold && (a.filter ? a.filter.test(c.id) : !a.quick || c.nodeQuick));
  if (cases.length === 0) fail('no case matches');
  return cases;
}

// The page modules import the library as '/dist/cleave.js' (the page's server path): here, the repository's dist/.
const hook = `export async function resolve(s, c, next) {
  return next(s.startsWith('/dist/') ? ${JSON.stringify(ROOT.href)} + s.slice(1) : s, c);
}`;

/**
 * The device and what runs on it: Cleave's engine, calibrated as a long-lived application has it,
 * the copy kernel and the GPU timer. The page modules load here, once the WebGPU globals exist.
 * @param {Args} args
 */
async function setup(args) {
  const opened = await openDevice({ timestamps: !args.wallOnly && !args.calls });
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  Object.assign(globalThis, { __benchProgress: status });
  const { createSplitEngine } = await import('cleave-gpu');
  const { GpuTimer } = await import('../page/gpu-probe.mjs');
  const { makeCopyPipeline } = await import('../page/systems/limits.mjs');
  const { fmt, size } = await import('./report.mjs');
  const { device, adapter: a, limits } = opened;
  log(`adapter: ${a.vendor} / ${a.architecture} / ${a.description || a.device} (VK_ICD_FILENAMES ${opened.icd})`);
  const [buf, bind] = [limits.maxBufferSize ?? 0, limits.maxStorageBufferBindingSize ?? 0];
  log(`limits: maxBufferSize ${size(buf)}, maxStorageBufferBindingSize ${size(bind)}`);
  const why = args.wallOnly ? '--wall-only' : "the adapter has no 'timestamp-query'";
  if (args.calls) log('GPU time: not measured (per-call section: the calls on the clock, the GPU drained off it)');
  else log(opened.timestamps ? 'GPU time: timestamp queries' : `GPU time: none (${why}): wall time only`);
  const engine = await createSplitEngine({ device, backend: 'webgpu' });
  status('calibrating the planner');
  await engine.calibrate();
  const costs = engine.stats.costs;
  log(
    `cost model (calibrated): ${Object.entries(costs ?? {})
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ')}`,
  );
  const shared = { device, engine, copyPipeline: makeCopyPipeline(device), timer: new GpuTimer(device) };
  return { opened, costs, shared: { ...shared, errors: opened.errors } };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(new URL('dist/cleave.js', ROOT))) fail('dist/cleave.js is missing: run `npm run build`');
  const cases = selectCases(args);
  const callRounds = callRoundsFor(args.quick, args.callRounds);
  // The per-call section's rounds are its own: the cases' timing settings play no part in it.
  const settings = /** @type {import('../types.js').Settings} */ (
    args.calls ? { callRounds, probes: args.probes } : timingFor(args.quick, args.budget)
  );
  const { opened, costs, shared } = await setup(args);
  const started = new Date();
  const { records, failed } = await runCases(cases, settings, shared);
  const calls = args.calls ? await runCalls(shared, settings, args.quick) : undefined;
  const { adapter, icd, features, limits, timestamps } = opened;
  const run = { started: started.toISOString(), finished: new Date().toISOString(), node: process.version };
  const device = { adapter, icd, features, limits, timestamps, costs };
  /** @type {import('../types.js').NodeReport} */
  const report = { format: RESULTS_FORMAT, ...run, args: process.argv.slice(2), ...device, settings, cases: records };
  if (calls) report.callCosts = calls.records;
  const name = args.calls ? 'node-calls' : 'node';
  const file = join(args.out, `${name}-${run.started.replace(/[:.]/g, '-')}.json`);
  await mkdir(args.out, { recursive: true });
  await writeFile(file, JSON.stringify(report, null, 1));
  log(`\nwrote ${file}`);
  const html = join(args.out, `${name}-report.html`);
  await writeHtml({ kind: 'node', report }, html).then(
    () => log(`wrote ${html}`),
    (e) => log(`no HTML report (${e instanceof Error ? e.message : e}): npm run bench:report -- ${file}`),
  );
  shared.engine.destroy();
  const all = [...failed, ...(calls?.failed ?? [])];
  if (all.length) {
    log(`FAILED: ${all.join(', ')}`);
    process.exitCode = 1;
  }
}

/**
 * Each case in turn, its table printed, then the summary; `failed`: the cases with an output that differs, a
 * system that failed or a GPU error. None (the per-call section's run): nothing printed.
 * @param {import('../types.js').CaseSpec[]} cases @param {import('../types.js').Settings} settings
 * @param {Awaited<ReturnType<typeof setup>>['shared']} shared
 */
async function runCases(cases, settings, shared) {
  if (cases.length === 0) return { records: [], failed: [] };
  const { runCase } = await import('./case.mjs');
  const { fmt, ratiosOf, renderCase, renderSummary, size } = await import('./report.mjs');
  const records = [];
  for (const spec of cases) {
    const r = await runCase(spec, settings, shared);
    log(`\n${r.case.id} (${spec.dtype} [${spec.shape}], ${size(r.case.bytes)}, ${fmt(r.seconds)} s)`);
    log(renderCase(r));
    for (const e of r.gpuErrors) log(`  GPU error: ${e}`);
    records.push({ ...r, ratios: ratiosOf(r) });
  }
  log(`\nmedian ms per split, wall (GPU); ratios of the default plan, wall (GPU)\n${renderSummary(records)}`);
  const failed = records.filter((r) => r.gpuErrors.length || Object.values(r.systems).some((s) => s.error));
  return { records, failed: failed.map((r) => r.case.id) };
}

await main();
