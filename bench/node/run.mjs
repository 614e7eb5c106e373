// `npm run bench:node`: Cleave in Node, through Dawn on whatever adapter it finds (no browser), beside its peers
// on the same device: per case, the default plan and each strategy forced, ONNX Runtime Web's WebGPU EP and
// TF.js's tf.split GPU-resident (bench/node/peers.mjs loads them; --no-peers leaves them out), one
// copyBufferToBuffer and a vec4 copy kernel of the same bytes, every output verified first; then the page
// bench's pipelines and decode loops (models.mjs). First of all, where the run takes it, the decode step of a browser
// inference runtime on its own device (decode-step.mjs: its compiles, GPU work no call recorded, calls per step, and
// host time against the same WebGPU calls replayed bare). Prints the tables, writes bench/results/node-<timestamp>.json
// and renders it as bench/results/node-report.html (where Chart.js is installed; else it says how to render it
// later). Imports only dist/, `webgpu`, the peers' packages and bench modules that run in Node and the browser
// alike (Chart.js's file is read, not imported). With --calls, the page bench's per-call section instead
// (calls.mjs): node-calls-<timestamp>.json and node-calls-report.html.
//
//   node bench/node/run.mjs [--quick] [--cases REGEX] [--exclude REGEX] [--no-peers] [--wall-only] [--budget MS]
//                           [--probes] [--list] [--out DIR]
//   node bench/node/run.mjs --calls [--quick] [--call-rounds N] [--probes] [--out DIR]

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, parseOptions, status, timingFor } from '../lib/cli.mjs';
import { writeHtml } from '../lib/report/html.mjs';
import { RESULTS_FORMAT } from '../lib/results-file.mjs';
import { callRoundsFor, runCalls } from './calls.mjs';
import { idsOf, selectWork } from './select.mjs';

const ROOT = new URL('../../', import.meta.url);

const USAGE = `usage: node bench/node/run.mjs [options]   (npm run bench:node -- [options])
  --quick          the cases marked nodeQuick (no decode step, pipeline or decode loop), shorter timing; with
                   --cases, the shorter timing only (the decode step: 16 steps counted, 2 runs of 6 rounds)
  --cases REGEX    only the decode step, cases, pipelines and decode loops whose id matches REGEX (ids in
                   bench/cases.mjs; cold cases never run here; '128MiB': the large splits; '^(pipe|decode)-': the
                   models; '^decode-step$': the decode step on the runtime's own device)
  --exclude REGEX  leave out the ids that match REGEX
  --no-peers       without ONNX Runtime Web and TF.js (and so without pipelines and decode loops); a run of the
                   decode step alone loads no peer anyway
  --wall-only      no timestamp queries: wall time only, as on an adapter without 'timestamp-query'
  --budget MS      timing per system per case (default 1500, quick 150)
  --list           print the ids the run would take, one a line, and exit (no GPU)
  --calls          the per-call section instead of the cases: a decode step's split per call against the bare
                   WebGPU calls its copies need (as the page bench's); JSON node-calls-<timestamp>.json
  --call-rounds N  rounds of the per-call section (default 21, quick 7)
  --probes         GPU calls counted in one split of every system (of each variant, with --calls)
  --out DIR        where the JSON and its HTML page go (default bench/results)`;

/** @param {string} m @returns {never} */
function fail(m) {
  console.error(`bench:node: ${m}\n${USAGE}`);
  process.exit(2);
}

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  const regex = (/** @type {string} */ v) => new RegExp(v);
  const o = parseOptions(
    argv,
    {
      '--quick': 'flag',
      '--cases': regex,
      '--exclude': regex,
      '--no-peers': 'flag',
      '--wall-only': 'flag',
      '--budget': Number,
      '--list': 'flag',
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
    exclude: /** @type {RegExp | undefined} */ (o['exclude']),
    peers: !o['no-peers'],
    wallOnly: !!o['wall-only'],
    budget: /** @type {number | undefined} */ (o['budget']),
    list: !!o['list'],
    calls: !!o['calls'],
    callRounds: /** @type {number | undefined} */ (o['call-rounds']),
    probes: !!o['probes'],
    out: /** @type {string | undefined} */ (o['out']) ?? fileURLToPath(new URL('bench/results', ROOT)),
  };
  if (a.callRounds !== undefined && !(Number.isInteger(a.callRounds) && a.callRounds > 0))
    fail('--call-rounds needs a whole number above 0');
  const casesOnly = ['cases', 'exclude', 'no-peers', 'wall-only', 'budget', 'list'].filter((k) => k in o);
  if (a.calls && casesOnly.length) fail(`--calls runs the per-call section alone: no --${casesOnly.join(', --')}`);
  if (!a.calls && 'call-rounds' in o) fail('--call-rounds only with --calls');
  return a;
}

/** @typedef {ReturnType<typeof parseArgs>} Args */

/** @param {Args} a */
function selected(a) {
  if (a.calls) return { steps: [], cases: [], pipelines: [], decodes: [] };
  const work = selectWork(a);
  if (idsOf(work).length === 0) fail('no case matches');
  return work;
}

// The page modules import the library as '/dist/…' (the page's server path) and ONNX Runtime Web from its file
// under /node_modules/: here, the repository's dist/ and ORT's WebGPU entry (what the example's bare import gets).
const hook = `export async function resolve(s, c, next) {
  if (s === '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs') return next('onnxruntime-web/webgpu', c);
  return next(s.startsWith('/dist/') ? ${JSON.stringify(ROOT.href)} + s.slice(1) : s, c);
}`;

/**
 * The device and what runs on it: the peers (loaded and run once first: ORT's first run waits for V8 to compile
 * its wasm, and Dawn resolves no pipeline until then), Cleave's engine, calibrated as a long-lived application
 * has it, the copy kernel and the GPU timer. The page modules load here, once the WebGPU globals exist. A run of the
 * decode step alone (on devices of its own) needs no peer and no calibration: neither is done.
 * @param {Args} args @param {ReturnType<typeof selected>} work
 */
async function setup(args, work) {
  // Dawn loads here, not before: --list and a wrong option need no GPU.
  const { openDevice } = await import('./device.mjs');
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
  const { loadPeers } = await import('./peers.mjs');
  // What plans on the shared engine or runs beside it: the cases, pipelines and decode loops (the peers with them),
  // and the per-call section.
  const planning = work.cases.length + work.pipelines.length + work.decodes.length > 0;
  const want = /** @type {('ort' | 'tfjs')[]} */ (args.peers && planning ? ['ort', 'tfjs'] : []);
  const peers = await loadPeers(device, want, log);
  const engine = await createSplitEngine({ device, backend: 'webgpu' });
  const calibrated = planning || args.calls;
  if (calibrated) {
    status('calibrating the planner');
    await engine.calibrate();
  }
  const costs = engine.stats.costs;
  const costsText = Object.entries(costs ?? {})
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
  const how = calibrated ? 'calibrated' : "the adapter's table: nothing in this run plans with it";
  log(`cost model (${how}): ${costsText}`);
  const shared = { device, engine, copyPipeline: makeCopyPipeline(device), timer: new GpuTimer(device), peers };
  return { opened, costs, shared: { ...shared, errors: opened.errors, lost: opened.lost } };
}

/**
 * The ONNX models the run needs (each case's, each pipeline's and decode loop's), in memory; none without ORT,
 * and none, with the reason, where they cannot be built (no onnx-proto).
 * @param {ReturnType<typeof selected>} work @param {boolean} ort
 */
async function modelsFor(work, ort) {
  const empty = { models: new Map(), pipelines: [], decodes: [], note: undefined };
  if (!ort) return empty;
  try {
    const { buildModels, resolveCase } = await import('../lib/resolve-cases.mjs');
    return { ...(await buildModels(work.cases.map(resolveCase), work.pipelines, work.decodes)), note: undefined };
  } catch (e) {
    return {
      ...empty,
      note: `no ONNX models (${e instanceof Error ? e.message : e}): ORT, pipelines and decode loops n/a`,
    };
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const work = selected(args);
  if (args.list) {
    for (const id of idsOf(work)) console.log(id);
    return;
  }
  if (!existsSync(new URL('dist/cleave.js', ROOT))) fail('dist/cleave.js is missing: run `npm run build`');
  const callRounds = callRoundsFor(args.quick, args.callRounds);
  // The per-call section's rounds are its own: the cases' timing settings play no part in it.
  const settings = /** @type {import('../types.js').Settings} */ (
    args.calls ? { callRounds, probes: args.probes } : { ...timingFor(args.quick, args.budget), probes: args.probes }
  );
  const { opened, costs, shared } = await setup(args, work);
  const built = await modelsFor(work, !!shared.peers.ort);
  const notes = [...(built.note ? [built.note] : [])];
  if (!shared.peers.ort && work.pipelines.length + work.decodes.length)
    notes.push('pipelines and decode loops: not run, they need ONNX Runtime Web (not loaded)');
  for (const n of notes) log(n);
  const peers = built.note
    ? { ...shared.peers, ort: undefined, info: { ...shared.peers.info, ort: { error: built.note } } }
    : shared.peers;
  const s = { ...shared, peers, models: built.models };
  const { adapter, icd, features, limits, timestamps } = opened;
  /** @type {import('../types.js').NodeReport} */
  const report = {
    format: RESULTS_FORMAT,
    started: new Date().toISOString(),
    finished: '',
    node: process.version,
    args: process.argv.slice(2),
    ...{ adapter, icd, features, limits, timestamps, costs, peers: peers.info },
    settings,
    cases: [],
    ...(notes.length ? { notes } : {}),
  };
  const file = join(args.out, `${args.calls ? 'node-calls' : 'node'}-${report.started.replace(/[:.]/g, '-')}.json`);
  // The file is written after each item too: a run cut short by its timeout keeps what it measured.
  const save = () => saveJson(file, { ...report, finished: new Date().toISOString() });
  const stepsFailed = await runSteps(work.steps, args.quick, (r) => ((report.decodeSteps ??= []).push(r), save()));
  const failed = await runCases(work.cases, settings, s, (r) => (report.cases.push(r), save()));
  const { runModels } = await import('./models.mjs');
  await runModels(built.pipelines, built.decodes, settings, s, (r) => {
    if ('pipeline' in r) (report.pipelines ??= []).push(r);
    else (report.decodes ??= []).push(r);
    return save();
  });
  const calls = args.calls ? await runCalls(shared, settings, args.quick) : undefined;
  if (calls) report.callCosts = calls.records;
  report.finished = new Date().toISOString();
  const all = [...stepsFailed, ...failed, ...(await modelsReport(report)), ...(calls?.failed ?? [])];
  await finish(report, file, all);
  shared.engine.destroy();
}

/** Writes `report` to `file` whole (through a file beside it, renamed). @param {string} file @param {object} report */
async function saveJson(file, report) {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(`${file}.part`, JSON.stringify(report, null, 1));
  await rename(`${file}.part`, file);
}

/**
 * Writes the JSON and its HTML page, and says what failed (exit code 1).
 * @param {import('../types.js').NodeReport} report @param {string} file @param {string[]} failed
 */
async function finish(report, file, failed) {
  await saveJson(file, report);
  log(`\nwrote ${file}`);
  const html = join(dirname(file), `${basename(file).replace(/-\d{4}-.*$/, '')}-report.html`);
  await writeHtml({ kind: 'node', report }, html).then(
    () => log(`wrote ${html}`),
    (e) => log(`no HTML report (${e instanceof Error ? e.message : e}): npm run bench:report -- ${file}`),
  );
  if (failed.length) {
    log(`FAILED: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

/**
 * The decode step (decode-step.mjs), each of its engines on a device of its own opened as the run's was; its text
 * printed and its record handed to `done`. Returns the ids that failed: an engine that failed, caches that differ
 * from the reference, a GPU error (a count off the issue's expectation is reported, and fails nothing).
 * @param {import('../types.js').DecodeStepSpec[]} specs @param {boolean} quick
 * @param {(r: import('../types.js').DecodeStepRecord) => Promise<void>} done
 */
async function runSteps(specs, quick, done) {
  if (specs.length === 0) return [];
  const { openAnother } = await import('./device.mjs');
  const { decodeStepSettings, runDecodeStep } = await import('./decode-step.mjs');
  const { decodeStepFailures, renderDecodeStep } = await import('../lib/report/decode-step.mjs');
  const { fmt } = await import('./report.mjs');
  const failed = [];
  for (const spec of specs) {
    const r = await runDecodeStep(spec, decodeStepSettings(quick), openAnother);
    log(`\n${renderDecodeStep(r).replace(/^(\S+): /, `$1 (${fmt(r.seconds)} s): `)}`);
    await done(r);
    if (decodeStepFailures(r).length) failed.push(r.id);
  }
  return failed;
}

/**
 * Each case in turn, its table printed and its record handed to `done`, then the summary; returns the cases with an
 * output that differs, a system of Cleave's or a limit that failed, or a GPU error. None (the per-call section's
 * run): nothing printed.
 * @param {import('../types.js').CaseSpec[]} cases @param {import('../types.js').Settings} settings
 * @param {import('./case.mjs').Shared} shared
 * @param {(r: import('../types.js').NodeCaseRecord) => Promise<void>} done
 */
async function runCases(cases, settings, shared, done) {
  if (cases.length === 0) return [];
  const { runCase } = await import('./case.mjs');
  const { fmt, ratiosOf, renderCase, renderSummary, size } = await import('./report.mjs');
  const records = [];
  for (const spec of cases) {
    const r = await runCase(spec, settings, shared);
    log(`\n${r.case.id} (${spec.dtype} [${spec.shape}], ${size(r.case.bytes)}, ${fmt(r.seconds)} s)`);
    log(r.skipped ? `  skipped: ${r.skipped}` : renderCase(r));
    for (const e of r.gpuErrors) log(`  GPU error: ${e}`);
    const record = { ...r, ratios: ratiosOf(r) };
    records.push(record);
    await done(record);
  }
  log(`\n${renderSummary(records)}`);
  // A peer that refuses a case is reported with its reason, and fails nothing: Cleave, the limits and the device do.
  const own = (/** @type {string} */ k) => k !== 'ort' && k !== 'tfjs';
  const failed = records.filter(
    (r) => r.gpuErrors.length || Object.entries(r.systems).some(([k, s]) => own(k) && s?.error),
  );
  return failed.map((r) => r.case.id);
}

/**
 * The pipelines' and decode loops' tables and findings, printed; returns the ids that failed (a decode loop
 * through Cleave that does not match its reference, a pipeline through Cleave that failed, a GPU error).
 * @param {import('../types.js').NodeReport} report
 */
async function modelsReport(report) {
  if (!report.pipelines?.length && !report.decodes?.length) return [];
  const { renderModels, modelFailures } = await import('./report.mjs');
  log(`\n${renderModels(report)}`);
  return modelFailures(report);
}

await main();
