// `npm run bench`: serves the bench page on 127.0.0.1 and runs it in headless Chromium (Dawn) or Firefox ESR
// (wgpu) through puppeteer, WebGPU on whatever adapter the browser gives, item by item: split cases, pipelines,
// decode loops, per-call cost cases. Prints the report, writes bench/results/<timestamp>.json and renders it as
// bench/results/report.html. A decode loop through Cleave that does not match its reference, or does not run,
// fails the run (exit code 1), and so does a report that cannot be rendered.
//
//   node bench/run.mjs [--quick] [--cases REGEX] [--budget MS] [--call-rounds N] [--probes] [--out DIR]
//                      [--browser chromium|firefox] [--browser-path PATH]

import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { BROWSER_NAMES, CHROMIUM, FIREFOX, WEBGPU_DEVELOPER_ARGS, launchBrowser } from '../scripts/lib/browser.mjs';
import { ISOLATED, serve } from '../scripts/lib/serve.mjs';
import { SWIFTSHADER, log, parseOptions, status, timingFor } from './lib/cli.mjs';
import { adapterOf } from './lib/findings.mjs';
import { decodeFailures, decodeLine } from './lib/report/decode.mjs';
import { writeHtml } from './lib/report/html.mjs';
import { callCostLine, pipelineLine, progressLine, renderReport } from './lib/report/text.mjs';
import { RESULTS_FORMAT } from './lib/results-file.mjs';

/** @import { Browser, Page } from 'puppeteer' */
/** @import { BenchApi, BrowserInfo, PageEnv, Report, Settings, SystemResult } from './types.js' */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench [-- options]
  --quick          shorter timing, and (without --cases) the items marked quick: under a minute
  --cases REGEX    only the items whose id matches REGEX (ids in bench/cases.mjs; '^decode': the decode loops)
  --budget MS      timing budget per system per case (default 1500, quick 150)
  --call-rounds N  rounds of the per-call section (default 21, quick 7)
  --probes         diagnosis too: GPU calls and bytes copied per split, what the error scopes cost
  --out DIR        where the JSON and report.html go (default bench/results)
  --browser NAME   chromium (default: Dawn) or firefox (Firefox ESR: wgpu)
  --browser-path PATH  that browser's executable (default: chromium ${CHROMIUM}, firefox ${FIREFOX})`;

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  /** @type {import('./lib/cli.mjs').OptionSpec} */
  const spec = { '--quick': 'flag', '--cases': (v) => new RegExp(v), '--budget': Number, '--probes': 'flag' };
  const rounds = (/** @type {string} */ v) => {
    if (/^[1-9]\d*$/.test(v)) return Number(v);
    console.error(`bench: --call-rounds takes a whole number of rounds, 1 or more, not ${v}\n${USAGE}`);
    return process.exit(2);
  };
  const where = { '--out': resolve, '--browser': String, '--browser-path': String };
  const o = parseOptions(argv, { ...spec, '--call-rounds': rounds, ...where }, USAGE, 'bench');
  const browser = /** @type {string | undefined} */ (o['browser']) ?? 'chromium';
  if (!(/** @type {readonly string[]} */ (BROWSER_NAMES).includes(browser))) {
    console.error(`bench: --browser takes ${BROWSER_NAMES.join(' or ')}, not ${browser} (a path: --browser-path)`);
    process.exit(2);
  }
  return {
    quick: !!o['quick'],
    filter: /** @type {RegExp | undefined} */ (o['cases']),
    budget: /** @type {number | undefined} */ (o['budget']),
    callRounds: /** @type {number | undefined} */ (o['call-rounds']),
    probes: !!o['probes'],
    out: /** @type {string | undefined} */ (o['out']) ?? join(ROOT, 'bench', 'results'),
    browser: /** @type {import('../scripts/lib/browser.mjs').BrowserName} */ (browser),
    browserPath: /** @type {string | undefined} */ (o['browser-path']),
  };
}

/**
 * The timing (lib/cli.mjs) and the page's own settings: cold reps, error-scope loops (--probes), per-call
 * rounds (--call-rounds).
 * @param {ReturnType<typeof parseArgs>} a @returns {Settings}
 */
function settingsFor(a) {
  const own = a.quick
    ? { coldReps: 2, scopeLoops: 100, scopeReps: 5, callRounds: 7 }
    : { coldReps: 5, scopeLoops: 400, scopeReps: 11, callRounds: 21 };
  return { ...timingFor(a.quick, a.budget), ...own, callRounds: a.callRounds ?? own.callRounds, probes: a.probes };
}

/**
 * An item's errors, in full.
 * @param {{ cpuPathError?: string, systems: Partial<Record<string, SystemResult>>, gpuErrors?: string[] }} r
 */
function errorsOf(r) {
  const out = r.cpuPathError ? [`CPU path: ${r.cpuPathError}`] : [];
  for (const [k, s] of Object.entries(r.systems)) {
    if (s?.error) out.push(`${k}: ${s.error.trimEnd()}`);
    else if (s?.webgpuError) out.push(`${k}: ran on ORT's CPU EP, its WebGPU EP refused: ${s.webgpuError.trimEnd()}`);
  }
  return [...out, ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`)];
}

/**
 * A kind of item the page runs: its method on `window.bench`, the record it adds to the JSON (`as`: the
 * field holding the item itself), its progress line and its errors.
 * @typedef {object} Kind
 * @property {Exclude<keyof BenchApi, 'init' | 'finish'>} method
 * @property {string} as
 * @property {(r: any) => string} line
 * @property {(r: any) => string[]} errors
 */

/** @type {Record<'results' | 'pipelines' | 'decodes' | 'callCosts', Kind>} */
const KINDS = {
  results: { method: 'runCase', as: 'case', line: progressLine, errors: errorsOf },
  pipelines: { method: 'runPipeline', as: 'pipeline', line: pipelineLine, errors: errorsOf },
  decodes: {
    method: 'runDecode',
    as: 'decode',
    line: decodeLine,
    errors: (r) => [...decodeFailures(r), ...errorsOf(r)],
  },
  callCosts: {
    method: 'runCallCost',
    as: 'spec',
    line: callCostLine,
    errors: (r) => [...r.rows.flatMap((/** @type {{ error?: string }} */ x) => x.error ?? []), ...(r.gpuErrors ?? [])],
  },
};

/**
 * Calls `window.bench[method](...args)` in the page. Both ways through JSON: WebDriver BiDi (Firefox) hands
 * back an object met twice in a result as undefined the second time; CDP (Chromium) copies it.
 * @param {Page} page @param {keyof BenchApi} method @param {readonly unknown[]} args @returns {Promise<any>}
 */
async function inPage(page, method, ...args) {
  const call = async (/** @type {string} */ m, /** @type {string} */ json) =>
    JSON.stringify(await /** @type {any} */ (window.bench)[m](...JSON.parse(json)));
  return JSON.parse(await page.evaluate(call, method, JSON.stringify(args)));
}

/** @param {Browser} browser @param {string} url @returns {Promise<{ page: Page, env: PageEnv }>} */
async function openPage(browser, url) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`  [page error] ${e instanceof Error ? e.message : String(e)}`));
  // ORT colours its log lines: the escapes go, every word of the text stays.
  page.on('console', (m) => m.type() === 'error' && log(`  [page console] ${stripVTControlCharacters(m.text())}`));
  await page.exposeFunction('__benchProgress', (/** @type {string} */ t) => status(t));
  await page.goto(`${url}bench/page/index.html`);
  await page.waitForFunction('window.benchReady === true || window.benchLoadError !== undefined', { timeout: 60_000 });
  const err = await page.evaluate(() => window.benchLoadError);
  if (err) throw new Error(`the bench page did not load: ${err}`);
  return { page, env: await inPage(page, 'init', { ortThreads: 1 }) };
}

/**
 * Runs every item of every kind in the page, in order, and logs it. An item that kills the page is
 * recorded as crashed and the page is reloaded for the next.
 * @param {Browser} browser @param {string} url @param {Record<keyof typeof KINDS, readonly { id: string }[]>} work
 * @param {Settings} settings @param {BrowserInfo} info
 */
async function runAll(browser, url, work, settings, info) {
  let s = await openPage(browser, url);
  const env = { ...s.env, browser: info };
  log(`adapter: ${adapterOf(env).text}; ORT ${s.env.ort['web']}; timestamp-query ${s.env.timestampQuery}`);
  const total = Object.values(work).reduce((n, xs) => n + xs.length, 0);
  let done = 0;
  /** @type {Record<string, unknown[]>} */
  const out = {};
  for (const [name, kind] of Object.entries(KINDS)) {
    out[name] = [];
    for (const item of work[/** @type {keyof typeof KINDS} */ (name)]) {
      const prefix = `[${String(++done).padStart(2)}/${total}]`;
      status(`${prefix} ${item.id}: starting`);
      let r;
      try {
        r = { [kind.as]: item, ...(await inPage(s.page, kind.method, item, settings)) };
      } catch (e) {
        const crashed = e instanceof Error ? e.message : String(e);
        r = { [kind.as]: item, id: item.id, systems: {}, rows: [], pairedRatio: {}, jsCost: {}, crashed };
        log(`  ${item.id}: the page failed (${crashed}); reloading it for the next item`);
        await s.page.close().catch(() => {});
        s = await openPage(browser, url);
      }
      out[name].push(r);
      log(`${prefix} ${kind.line(r)}`);
      for (const e of kind.errors(r)) log(`        ${e}`);
    }
  }
  const final = await inPage(s.page, 'finish');
  return { env, final, ...out };
}

/** @param {ReturnType<typeof parseArgs>} args */
async function run(args) {
  if (!existsSync(join(ROOT, 'dist', 'cleave.js'))) throw new Error('dist/cleave.js is missing: run `npm run build`');
  // After the check: resolving cases reads the library's dtype table from dist/.
  const { buildModels, selectCases } = await import('./lib/resolve-cases.mjs');
  const selected = selectCases({ quick: args.quick, filter: args.filter });
  if (Object.values(selected).every((xs) => xs.length === 0)) throw new Error('no case matches');
  const { models, pipelines, decodes } = await buildModels(selected.cases, selected.pipelines, selected.decodes);
  const work = { results: selected.cases, pipelines, decodes, callCosts: selected.callCosts };
  const node = '/node_modules/';
  const only = ['/dist/', '/bench/page/', '/examples/kv-cache-decode/', `${node}onnxruntime-web/dist/`];
  only.push(...['core', 'backend-cpu', 'backend-webgpu'].map((x) => `${node}@tensorflow/tfjs-${x}/dist/`));
  const memory = (/** @type {string} */ path) => (path.startsWith('/model/') ? models.get(path.slice(7)) : undefined);
  const server = await serve({ root: ROOT, headers: ISOLATED, only, memory });
  // Firefox has no software adapter of its own: where no driver is named, SwiftShader's (Chromium's fallback).
  const firefox = args.browser === 'firefox';
  if (firefox && !process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;
  const browser = await launchBrowser({
    browser: args.browser,
    ...(args.browserPath ? { executablePath: args.browserPath } : {}),
    extraArgs: firefox ? [] : WEBGPU_DEVELOPER_ARGS,
    protocolTimeout: 30 * 60_000,
  });
  try {
    const counts = Object.entries(work).map(([k, xs]) => `${xs.length} ${k === 'results' ? 'cases' : k}`);
    const quick = args.quick ? ' (quick)' : '';
    const product = await browser.version();
    const icd = firefox ? `; VK_ICD_FILENAMES ${process.env.VK_ICD_FILENAMES ?? 'unset'}` : '';
    log(`cleave bench: ${counts.join(', ')}${quick}; ${product}${icd}; serving ${server.url}`);
    /** @type {BrowserInfo} */
    const info = { name: args.browser, version: product.slice(product.lastIndexOf('/') + 1) };
    if (firefox) info.vkIcd = process.env.VK_ICD_FILENAMES ?? 'unset';
    return await runAll(browser, server.url, work, settingsFor(args), info);
  } finally {
    await browser.close();
    await server.close();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const started = new Date();
  const measured = await run(args);
  const { loadavg, platform, release, cpus } = os;
  const machine = {
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadavg: loadavg(),
  };
  const report = /** @type {Report} */ ({
    format: RESULTS_FORMAT,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    seconds: (Date.now() - started.getTime()) / 1000,
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    settings: settingsFor(args),
    machine,
    ...measured,
  });
  await mkdir(args.out, { recursive: true });
  const jsonPath = join(args.out, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(jsonPath, JSON.stringify(report, null, 1));
  for (const part of renderReport(report)) log(`\n${part}`);
  log(`\nwrote ${jsonPath}`);
  const htmlPath = join(args.out, 'report.html');
  try {
    await writeHtml({ kind: 'page', report }, htmlPath);
    log(`wrote ${htmlPath}`);
  } catch (e) {
    console.error(`bench: no HTML report: ${e instanceof Error ? e.message : e}`);
    process.exitCode = 1;
  }
  log(`bench took ${report.seconds.toFixed(0)} s`);
  const failed = report.decodes.flatMap(decodeFailures);
  if (failed.length) {
    console.error(`\nbench: DECODE LOOP FAILED (${failed.length}):\n${failed.map((f) => `  ${f}`).join('\n')}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(`bench: ${e instanceof Error ? e.stack : e}`);
  process.exit(1);
});
