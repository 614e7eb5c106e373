// `npm run bench`: serves the bench page on 127.0.0.1, runs it in headless Chromium (puppeteer,
// /usr/bin/chromium, WebGPU on whatever adapter the browser gives), case by case, and writes
// bench/results/<timestamp>.json and bench/results/report.html. `npm run bench` builds dist/ first.
//
//   node bench/run.mjs [--quick] [--cases REGEX] [--out DIR] [--budget MS] [--render FILE] [--help]

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { CHROMIUM, WEBGPU_DEVELOPER_ARGS, launchBrowser } from '../scripts/lib/browser.mjs';
import { ISOLATED, serve } from '../scripts/lib/serve.mjs';
import { evaluateTargets } from './lib/targets.mjs';
import { renderHtml } from './lib/report/html.mjs';
import {
  callCostLine,
  pipelineLine,
  progressLine,
  renderCallCosts,
  renderFindings,
  renderPipelines,
  renderPlanChoice,
  renderTable,
  renderTargets,
  renderThroughput,
} from './lib/report/text.mjs';
import { decodeFailures, decodeLine, renderDecodes } from './lib/report/decode.mjs';
import { resolveDecode, selectDecodes } from './lib/decode.mjs';

/** @import { BenchCase, BenchDecode, BenchPipeline, CallCostRecord, CallCostSpec, CaseRecord, DecodeRecord, PageEnv, PipelineRecord, Report, Settings, SystemResult } from './types.js' */
/** @typedef {{ cases: readonly BenchCase[], pipelines: readonly BenchPipeline[], callCosts: readonly CallCostSpec[], decodes: readonly BenchDecode[] }} Selected */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench [-- options]
  --quick          shorter timing, and (without --cases) the cases marked quick: under a minute
  --cases REGEX    only the cases whose id matches REGEX (ids are in bench/cases.mjs; '^decode': the decode loops)
  --budget MS      timing budget per system per case (default 1500, quick 150)
  --out DIR        where results go (default bench/results)
  --browser PATH   Chromium to run (default $PUPPETEER_EXECUTABLE_PATH or /usr/bin/chromium)
  --render FILE    no run: rewrite report.html (next to FILE) and print the tables from a saved results JSON`;

/**
 * @typedef {object} Args
 * @property {boolean} quick
 * @property {RegExp | undefined} filter
 * @property {string} out
 * @property {number | undefined} budget
 * @property {string} browser
 * @property {string | undefined} render
 */

/** @param {readonly string[]} argv @returns {Args} */
function parseArgs(argv) {
  /** @type {Args} */
  const a = {
    quick: false,
    filter: undefined,
    out: join(ROOT, 'bench', 'results'),
    budget: undefined,
    browser: CHROMIUM,
    render: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = /** @type {string} */ (argv[i]);
    const value = () => argv[++i] ?? fail(`${k} needs a value`);
    if (k === '--quick') a.quick = true;
    else if (k === '--cases') a.filter = new RegExp(value());
    else if (k.startsWith('--cases=')) a.filter = new RegExp(k.slice(8));
    else if (k === '--out') a.out = resolve(value());
    else if (k === '--budget') a.budget = Number(value());
    else if (k === '--browser') a.browser = value();
    else if (k === '--render') a.render = resolve(value());
    else if (k === '--help' || k === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else fail(`unknown option ${k}`);
  }
  return a;
}

/** @param {string} m @returns {never} */
function fail(m) {
  console.error(`bench: ${m}\n${USAGE}`);
  process.exit(2);
}

/**
 * Timing settings: warm-up, batch size per submit-and-wait, batches, cold reps, error-scope loops,
 * per-call cost calls (quick: 1,000 per variant; else each case's own count), pipeline reps.
 * @param {Args} args @returns {Settings}
 */
function settingsFor(args) {
  const common = { maxLiveBytes: 256 << 20 };
  return args.quick
    ? {
        ...common,
        budgetMs: args.budget ?? 150,
        minReps: 5,
        maxReps: 11,
        batchMs: 8,
        warmupMs: 20,
        warmupIters: 2,
        maxBatch: 200,
        coldReps: 2,
        scopeLoops: 100,
        scopeReps: 5,
        calls: 1000,
        callRounds: 5,
        pipelineMinReps: 5,
      }
    : {
        ...common,
        budgetMs: args.budget ?? 1500,
        minReps: 9,
        maxReps: 41,
        batchMs: 20,
        warmupMs: 150,
        warmupIters: 3,
        maxBatch: 400,
        coldReps: 5,
        scopeLoops: 400,
        scopeReps: 11,
        calls: undefined,
        callRounds: 10,
        pipelineMinReps: 21,
      };
}

// ---- output ------------------------------------------------------------------------------------

const isTTY = process.stdout.isTTY;
let statusShown = false;
/** A status line, overwritten in place on a terminal. @param {string} line */
function status(line) {
  if (!isTTY) return;
  process.stdout.write(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 120) - 1)}`);
  statusShown = true;
}
/** @param {string} line */
function log(line) {
  if (statusShown) {
    process.stdout.write('\r\x1b[2K');
    statusShown = false;
  }
  console.log(line);
}

/**
 * Errors of a finished case or pipeline, in full.
 * @param {{ cpuPathError?: string | undefined, systems: Partial<Record<string, SystemResult>>, gpuErrors?: string[] | undefined }} r
 */
function errorsOf(r) {
  const out = r.cpuPathError ? [`CPU path: ${r.cpuPathError}`] : [];
  for (const [k, s] of Object.entries(r.systems)) {
    if (s?.error) out.push(`${k}: ${s.error.trimEnd()}`);
    else if (s?.webgpuError) out.push(`${k}: ran on ORT's CPU EP, WebGPU EP refused: ${s.webgpuError.trimEnd()}`);
  }
  return [...out, ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`)];
}

/** @param {Report} report */
function printReport(report) {
  for (const part of [
    renderFindings(report),
    renderTable(report),
    renderPlanChoice(report),
    renderThroughput(report),
    renderPipelines(report),
    renderDecodes(report),
    renderCallCosts(report),
    renderTargets(report),
  ])
    if (part) log(`\n${part}`);
}

// ---- the run -----------------------------------------------------------------------------------

/** @param {import('puppeteer').Browser} browser @param {string} url */
async function openPage(browser, url) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`  [page error] ${e instanceof Error ? e.message : String(e)}`));
  // ORT colours its log lines: the escapes go, every word of the text stays.
  page.on('console', (m) => {
    if (m.type() === 'error') log(`  [page console] ${stripVTControlCharacters(m.text())}`);
  });
  await page.exposeFunction('__benchProgress', (/** @type {string} */ t) => status(t));
  await page.goto(`${url}bench/page/index.html`);
  await page.waitForFunction('window.benchReady === true || window.benchLoadError !== undefined', { timeout: 60_000 });
  const err = await page.evaluate(() => window.benchLoadError);
  if (err) throw new Error(`the bench page did not load: ${err}`);
  const env = await page.evaluate((o) => window.bench.init(o), { ortThreads: 1 });
  return { page, env };
}

/**
 * The page the run drives, reopened when an item kills it, and a count of the items done.
 * @typedef {{ browser: import('puppeteer').Browser, url: string, page: import('puppeteer').Page, env: PageEnv, done: number, total: number }} Session
 */

/**
 * A kind of item the page runs: its method on `window.bench`, its record (from the page's result,
 * or from the error when the item killed the page), its progress line and the errors to print.
 * @template T, R
 * @typedef {object} Kind
 * @property {'runCase' | 'runPipeline' | 'runCallCost' | 'runDecode'} method
 * @property {(item: T, result: any) => R} record
 * @property {(item: T, crashed: string) => R} crashed
 * @property {(r: R) => string} line
 * @property {(r: R) => string[]} errors
 */

/** @type {Kind<BenchCase, CaseRecord>} */
const CASE_KIND = {
  method: 'runCase',
  record: (c, r) => ({ case: c, ...r }),
  crashed: (c, crashed) => ({ case: c, id: c.id, systems: {}, notes: [], crashed }),
  line: (r) => progressLine(r.case, r),
  errors: errorsOf,
};
/** @type {Kind<BenchPipeline, PipelineRecord>} */
const PIPELINE_KIND = {
  method: 'runPipeline',
  record: (p, r) => ({ pipeline: p, ...r }),
  crashed: (p, crashed) => ({ pipeline: p, id: p.id, systems: {}, bitExact: {}, notes: [], crashed }),
  line: pipelineLine,
  errors: errorsOf,
};
/** @type {Kind<CallCostSpec, CallCostRecord>} */
const CALL_COST_KIND = {
  method: 'runCallCost',
  record: (c, r) => ({ spec: c, ...r }),
  crashed: (c, crashed) => ({ spec: c, id: c.id, rows: [], crashed }),
  line: callCostLine,
  errors: (r) => [
    ...r.rows.flatMap((x) => (x.error ? [x.error] : [])),
    ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`),
  ],
};

/** @type {Kind<BenchDecode, DecodeRecord>} */
const DECODE_KIND = {
  method: 'runDecode',
  record: (p, r) => ({ decode: p, ...r }),
  crashed: (p, crashed) => ({
    decode: p,
    id: p.id,
    systems: {},
    afterTiming: {},
    pairedRatio: {},
    jsCost: {},
    notes: [],
    crashed,
  }),
  line: decodeLine,
  errors: (r) => [...decodeFailures(r), ...errorsOf(r)],
};

/**
 * Runs each item in the page, in order, and logs it. One that kills the page is recorded as
 * crashed and the page is reloaded for the next.
 * @template {{ id: string }} T, R
 * @param {Session} s @param {readonly T[]} items @param {Kind<T, R>} kind @param {Settings} settings
 */
async function runEach(s, items, kind, settings) {
  /** @type {R[]} */
  const out = [];
  for (const item of items) {
    const prefix = `[${String(++s.done).padStart(2)}/${s.total}]`;
    status(`${prefix} ${item.id}: starting`);
    let r;
    try {
      r = kind.record(
        item,
        await s.page.evaluate(
          (m, x, o) => /** @type {(x: unknown, o: Settings) => Promise<unknown>} */ (window.bench[m])(x, o),
          kind.method,
          /** @type {any} */ (item),
          settings,
        ),
      );
    } catch (e) {
      r = kind.crashed(item, e instanceof Error ? e.message : String(e));
      log(
        `  ${item.id}: the page failed (${e instanceof Error ? e.message : String(e)}); reloading it for the next item`,
      );
      try {
        await s.page.close();
      } catch {
        /* already gone */
      }
      Object.assign(s, await openPage(s.browser, s.url));
    }
    out.push(r);
    log(`${prefix} ${kind.line(r)}`);
    for (const e of kind.errors(r)) log(`        ${e}`);
  }
  return out;
}

/**
 * Runs every case, pipeline and per-call cost case in one page.
 * @param {import('puppeteer').Browser} browser @param {string} url @param {Selected} work @param {Settings} settings
 */
async function runAll(browser, url, work, settings) {
  const s = /** @type {Session} */ ({
    browser,
    url,
    ...(await openPage(browser, url)),
    done: 0,
    total: work.cases.length + work.pipelines.length + work.callCosts.length + work.decodes.length,
  });
  const a = s.env.adapter;
  log(
    `adapter: ${a.vendor}/${a.architecture} (${a.description ?? ''}); ORT ${s.env.ort['web']}; timestamp-query ${s.env.timestampQuery ? 'yes' : 'no'}; cross-origin isolated ${s.env.crossOriginIsolated}`,
  );
  const results = await runEach(s, work.cases, CASE_KIND, settings);
  const pipelines = await runEach(s, work.pipelines, PIPELINE_KIND, settings);
  const decodes = await runEach(s, work.decodes, DECODE_KIND, settings);
  const callCosts = await runEach(s, work.callCosts, CALL_COST_KIND, settings);
  const final = await s.page.evaluate(() => window.bench.finish());
  return { results, pipelines, callCosts, decodes, env: s.env, final };
}

/** @param {Args} args */
async function run(args) {
  if (!existsSync(join(ROOT, 'dist', 'cleave.js')))
    fail('dist/cleave.js is missing: run `npm run build` (npm run bench does)');
  // After the check: resolving cases reads the library's dtype table from dist/.
  const { buildModels, selectCases } = await import('./lib/resolve-cases.mjs');
  const selected = selectCases({ quick: args.quick, filter: args.filter });
  const { cases, callCosts } = selected;
  const decodeSpecs = selectDecodes({ quick: args.quick, filter: args.filter });
  if (cases.length + selected.pipelines.length + callCosts.length + decodeSpecs.length === 0) fail('no case matches');
  const settings = settingsFor(args);
  const started = new Date();
  const { models, pipelines } = await buildModels(cases, selected.pipelines);
  const decodes = decodeSpecs.map((p) => resolveDecode(p, models));
  const server = await serve({
    root: ROOT,
    headers: ISOLATED,
    only: [
      '/dist/',
      '/bench/page/',
      '/node_modules/onnxruntime-web/dist/',
      '/node_modules/@tensorflow/tfjs-core/dist/',
      '/node_modules/@tensorflow/tfjs-backend-cpu/dist/',
      '/node_modules/@tensorflow/tfjs-backend-webgpu/dist/',
    ],
    memory: (path) => (path.startsWith('/model/') ? models.get(path.slice('/model/'.length)) : undefined),
  });
  const browser = await launchBrowser({
    executablePath: args.browser,
    extraArgs: WEBGPU_DEVELOPER_ARGS,
    protocolTimeout: 30 * 60_000,
  });
  let measured;
  try {
    log(
      `cleave bench: ${cases.length} case(s), ${pipelines.length} pipeline(s), ${decodes.length} decode loop(s), ${callCosts.length} per-call cost case(s)${args.quick ? ' (quick)' : ''}, ` +
        `${await browser.version()}, serving ${server.url}`,
    );
    measured = await runAll(browser, server.url, { cases, pipelines, callCosts, decodes }, settings);
  } finally {
    await browser.close();
    await server.close();
  }
  return { started, settings, ...measured };
}

/** @param {string} file */
async function render(file) {
  const report = /** @type {Report} */ (JSON.parse(await readFile(file, 'utf8')));
  // Judged again with today's code: a target added or reworded since the run shows as it reads now.
  report.targets = evaluateTargets(report.results, report.final, report.pipelines, report.decodes);
  const htmlPath = join(dirname(file), 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  printReport(report);
  log(`\nwrote ${htmlPath}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) return render(args.render);
  const { started, settings, results, pipelines, callCosts, decodes, env, final } = await run(args);
  /** @type {Report} */
  const report = {
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    seconds: (Date.now() - started.getTime()) / 1000,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    quick: args.quick,
    filter: args.filter?.source,
    settings,
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      loadavg: os.loadavg(),
    },
    env: /** @type {PageEnv} */ (env),
    final,
    targets: evaluateTargets(results, final, pipelines, decodes),
    results,
    pipelines,
    callCosts,
    decodes,
  };
  await mkdir(args.out, { recursive: true });
  const jsonPath = join(args.out, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(jsonPath, JSON.stringify(report, null, 1));
  const htmlPath = join(args.out, 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  printReport(report);
  log(`\nwrote ${jsonPath}\nwrote ${htmlPath}\nbench took ${report.seconds.toFixed(0)} s`);
  // A decode loop that does not match the reference bit for bit (or does not run) fails the run.
  const decodeFailed = decodes.flatMap(decodeFailures);
  if (decodeFailed.length) {
    console.error(
      `\nbench: DECODE LOOP FAILED (${decodeFailed.length}):\n${decodeFailed.map((f) => `  ${f}`).join('\n')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(`bench: ${e instanceof Error ? e.stack : e}`);
  process.exit(1);
});
