// `npm run bench`: serves the bench page on 127.0.0.1, runs it in headless Chromium (puppeteer,
// /usr/bin/chromium, WebGPU on whatever adapter the browser gives), case by case, and writes
// bench/results/<timestamp>.json and bench/results/report.html. `npm run bench` builds dist/ first.
//
//   node bench/run.mjs [--quick] [--cases REGEX] [--out DIR] [--budget MS] [--render FILE] [--help]

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { CHROMIUM, WEBGPU_DEVELOPER_ARGS, launchBrowser } from '../scripts/lib/browser.mjs';
import { ISOLATED, serve } from '../scripts/lib/serve.mjs';
import { evaluateTargets } from './lib/targets.mjs';
import { renderHtml } from './lib/report/html.mjs';
import { progressLine, renderFindings, renderTable, renderTargets, renderThroughput } from './lib/report/text.mjs';

/** @import { BenchCase, CaseRecord, CaseResult, PageEnv, Report, Settings } from './types.js' */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench [-- options]
  --quick          shorter timing, and (without --cases) the cases marked quick: under a minute
  --cases REGEX    only the cases whose id matches REGEX (ids are in bench/cases.mjs)
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
  const a = { quick: false, filter: undefined, out: join(ROOT, 'bench', 'results'), budget: undefined, browser: CHROMIUM, render: undefined };
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
    else if (k === '--help' || k === '-h') { console.log(USAGE); process.exit(0); }
    else fail(`unknown option ${k}`);
  }
  return a;
}

/** @param {string} m @returns {never} */
function fail(m) {
  console.error(`bench: ${m}\n${USAGE}`);
  process.exit(2);
}

/**
 * Timing settings: warm-up, batch size per submit-and-wait, batches, cold reps, error-scope loops.
 * @param {Args} args @returns {Settings}
 */
function settingsFor(args) {
  const common = { maxLiveBytes: 256 << 20 };
  return args.quick
    ? { ...common, budgetMs: args.budget ?? 150, minReps: 5, maxReps: 11, batchMs: 8, warmupMs: 20, warmupIters: 2, maxBatch: 200, coldReps: 2, scopeLoops: 100, scopeReps: 5 }
    : { ...common, budgetMs: args.budget ?? 1500, minReps: 9, maxReps: 41, batchMs: 20, warmupMs: 150, warmupIters: 3, maxBatch: 400, coldReps: 5, scopeLoops: 400, scopeReps: 11 };
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
  if (statusShown) { process.stdout.write('\r\x1b[2K'); statusShown = false; }
  console.log(line);
}

/** Errors of a finished case, in full. @param {CaseResult} r */
function logErrors(r) {
  if (r.cpuPathError) log(`        CPU path: ${r.cpuPathError}`);
  for (const [k, s] of Object.entries(r.systems)) {
    if (s?.error) log(`        ${k}: ${s.error.trimEnd()}`);
    else if (s?.webgpuError) log(`        ${k}: ran on ORT's CPU EP, WebGPU EP refused: ${s.webgpuError.trimEnd()}`);
  }
  for (const e of r.gpuErrors ?? []) log(`        GPU error: ${e}`);
}

/** @param {Report} report */
function printReport(report) {
  for (const part of [renderFindings(report), renderTable(report), renderThroughput(report), renderTargets(report)]) log(`\n${part}`);
}

// ---- the run -----------------------------------------------------------------------------------

/** @param {import('puppeteer').Browser} browser @param {string} url */
async function openPage(browser, url) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`  [page error] ${e instanceof Error ? e.message : String(e)}`));
  // ORT colours its log lines: the escapes go, every word of the text stays.
  page.on('console', (m) => { if (m.type() === 'error') log(`  [page console] ${m.text().replace(/\x1b\[[0-9;]*m/g, '')}`); });
  await page.exposeFunction('__benchProgress', (/** @type {string} */ t) => status(t));
  await page.goto(`${url}bench/page/index.html`);
  await page.waitForFunction('window.benchReady === true || window.benchLoadError !== undefined', { timeout: 60_000 });
  const err = await page.evaluate(() => window.benchLoadError);
  if (err) throw new Error(`the bench page did not load: ${err}`);
  const env = await page.evaluate((o) => window.bench.init(o), { ortThreads: 1 });
  return { page, env };
}

/**
 * Runs every case in one page; a case that kills the page is recorded and the page reloaded.
 * @param {import('puppeteer').Browser} browser @param {string} url @param {readonly BenchCase[]} cases @param {Settings} settings
 */
async function runCases(browser, url, cases, settings) {
  let { page, env } = await openPage(browser, url);
  const a = env.adapter;
  log(`adapter: ${a.vendor}/${a.architecture} (${a.description ?? ''}); ORT ${env.ort['web']}; timestamp-query ${env.timestampQuery ? 'yes' : 'no'}; cross-origin isolated ${env.crossOriginIsolated}`);
  /** @type {CaseRecord[]} */
  const results = [];
  for (const [i, c] of cases.entries()) {
    status(`[${i + 1}/${cases.length}] ${c.id}: starting`);
    /** @type {CaseResult} */
    let r;
    try {
      r = await page.evaluate((spec, s) => window.bench.runCase(spec, s), c, settings);
    } catch (e) {
      r = { id: c.id, systems: {}, notes: [], crashed: e instanceof Error ? e.message : String(e) };
      log(`  ${c.id}: the page failed (${r.crashed}); reloading it for the next case`);
      try { await page.close(); } catch { /* already gone */ }
      ({ page, env } = await openPage(browser, url));
    }
    results.push({ case: c, ...r });
    log(`[${String(i + 1).padStart(2)}/${cases.length}] ${progressLine(c, r)}`);
    logErrors(r);
  }
  const final = await page.evaluate(() => window.bench.finish());
  return { results, env, final };
}

/** @param {Args} args */
async function run(args) {
  if (!existsSync(join(ROOT, 'dist', 'cleave.js'))) fail('dist/cleave.js is missing: run `npm run build` (npm run bench does)');
  // After the check: resolving cases reads the library's dtype table from dist/.
  const { buildModels, selectCases } = await import('./lib/cases.mjs');
  const cases = selectCases({ quick: args.quick, filter: args.filter });
  if (cases.length === 0) fail('no case matches');
  const settings = settingsFor(args);
  const started = new Date();
  const models = buildModels(cases);
  const server = await serve({ root: ROOT, headers: ISOLATED, only: ['/dist/', '/bench/page/', '/node_modules/onnxruntime-web/dist/'],
    memory: (path) => (path.startsWith('/model/') ? models.get(path.slice('/model/'.length)) : undefined) });
  const browser = await launchBrowser({ executablePath: args.browser, extraArgs: WEBGPU_DEVELOPER_ARGS, protocolTimeout: 30 * 60_000 });
  let measured;
  try {
    log(`cleave bench: ${cases.length} case(s)${args.quick ? ' (quick)' : ''}, ${await browser.version()}, serving ${server.url}`);
    measured = await runCases(browser, server.url, cases, settings);
  } finally {
    await browser.close();
    await server.close();
  }
  return { started, settings, ...measured };
}

/** @param {string} file */
async function render(file) {
  const report = /** @type {Report} */ (JSON.parse(await readFile(file, 'utf8')));
  const htmlPath = join(dirname(file), 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  printReport(report);
  log(`\nwrote ${htmlPath}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) return render(args.render);
  const { started, settings, results, env, final } = await run(args);
  /** @type {Report} */
  const report = {
    startedAt: started.toISOString(), finishedAt: new Date().toISOString(), seconds: (Date.now() - started.getTime()) / 1000,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(), quick: args.quick, filter: args.filter?.source, settings,
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavg: os.loadavg() },
    env: /** @type {PageEnv} */ (env), final, targets: evaluateTargets(results, final), results,
  };
  await mkdir(args.out, { recursive: true });
  const jsonPath = join(args.out, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(jsonPath, JSON.stringify(report, null, 1));
  const htmlPath = join(args.out, 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  printReport(report);
  log(`\nwrote ${jsonPath}\nwrote ${htmlPath}\nbench took ${report.seconds.toFixed(0)} s`);
}

main().catch((e) => {
  console.error(`bench: ${e instanceof Error ? e.stack : e}`);
  process.exit(1);
});
