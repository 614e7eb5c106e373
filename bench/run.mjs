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
import puppeteer from 'puppeteer';
import { buildModels, selectCases } from './lib/cases.mjs';
import { serve } from './lib/server.mjs';
import { evaluateTargets } from './lib/targets.mjs';
import { renderHtml, renderTable, renderTargets } from './lib/report.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run bench [-- options]
  --quick          shorter timing, and (without --cases) the cases marked quick: under a minute
  --cases REGEX    only the cases whose id matches REGEX (ids are in bench/cases.mjs)
  --budget MS      timing budget per system per case (default 1500, quick 250)
  --out DIR        where results go (default bench/results)
  --browser PATH   Chromium to run (default $PUPPETEER_EXECUTABLE_PATH or /usr/bin/chromium)
  --render FILE    no run: rewrite report.html (next to FILE) and print the tables from a saved results JSON`;

function parseArgs(argv) {
  const a = { quick: false, filter: undefined, out: join(ROOT, 'bench', 'results'), budget: undefined,
    browser: process.env.PUPPETEER_EXECUTABLE_PATH || '/usr/bin/chromium' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${k} needs a value`);
      return v;
    };
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

function fail(m) {
  console.error(`bench: ${m}\n${USAGE}`);
  process.exit(2);
}

/** Timing settings: how long to warm up, how big a batch per submit-and-wait, how many batches. */
function settingsFor(args) {
  return args.quick
    ? { budgetMs: args.budget ?? 150, minReps: 5, maxReps: 11, batchMs: 8, warmupMs: 20, warmupIters: 2, maxBatch: 200, maxLiveBytes: 256 << 20, coldReps: 2 }
    : { budgetMs: args.budget ?? 1500, minReps: 9, maxReps: 41, batchMs: 20, warmupMs: 150, warmupIters: 3, maxBatch: 400, maxLiveBytes: 256 << 20, coldReps: 5 };
}

const CHROME_FLAGS = [
  '--no-sandbox', '--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run',
  // Full-resolution timestamp queries (Chrome quantizes them otherwise).
  '--enable-webgpu-developer-features',
];

const isTTY = process.stdout.isTTY;
let statusShown = false;
function status(line) {
  if (isTTY) {
    process.stdout.write(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 120) - 1)}`);
    statusShown = true;
  } else {
    console.log(`  ${line}`);
  }
}
function log(line) {
  if (statusShown) { process.stdout.write('\r\x1b[2K'); statusShown = false; }
  console.log(line);
}

async function openPage(browser, url) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => log(`  [page error] ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') log(`  [page console] ${m.text().replace(/\x1b\[[0-9;]*m/g, '').slice(0, 300)}`); });
  await page.exposeFunction('__benchProgress', (t) => status(t));
  await page.goto(`${url}/bench/page/index.html`);
  await page.waitForFunction('window.benchReady === true || window.benchLoadError !== undefined', { timeout: 60_000 });
  const err = await page.evaluate(() => window.benchLoadError);
  if (err) throw new Error(`the bench page did not load: ${err}`);
  return page;
}

const fmt = (v) => (v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(2));

function oneLine(c, r) {
  const s = r.systems ?? {};
  const cell = (k) => (s[k]?.ok ? `${fmt(s[k].wall?.median)}` : s[k]?.skip ? 'skip' : 'ERR');
  const st = s['cleave-gpu']?.stats;
  return `${c.id.padEnd(30)} ${String(r.seconds?.toFixed(1) ?? '?').padStart(5)} s  Cleave ${cell('cleave-gpu')} / host ${cell('cleave-host')} ms` +
    `  ORT ${cell('ort-gpu')} / host ${cell('ort-host')} ms  copy ${cell('copy-limit')}  shader ${cell('shader-limit')} ms` +
    (st ? `  [${st.strategy}${st.strategy === 'gather' ? ` ${st.unitBytes}B` : ''}, ${st.commands} cmd]` : '');
}

async function render(file) {
  const report = JSON.parse(await readFile(file, 'utf8'));
  const htmlPath = join(dirname(file), 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  log(renderTable(report));
  log('');
  log(renderTargets(report));
  log(`\nwrote ${htmlPath}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) return render(args.render);
  const cases = selectCases({ quick: args.quick, filter: args.filter });
  if (cases.length === 0) fail('no case matches');
  if (!existsSync(join(ROOT, 'dist', 'cleave.js'))) fail('dist/cleave.js is missing: run `npm run build` (npm run bench does)');
  const settings = settingsFor(args);
  const started = new Date();
  const t0 = Date.now();

  const server = await serve(ROOT, buildModels(cases));
  const browser = await puppeteer.launch({
    executablePath: args.browser, headless: true, args: CHROME_FLAGS, protocolTimeout: 30 * 60_000,
  });
  const results = [];
  let env;
  let final;
  try {
    log(`cleave bench: ${cases.length} case(s)${args.quick ? ' (quick)' : ''}, ${await browser.version()}, serving ${server.url}`);
    let page = await openPage(browser, server.url);
    env = await page.evaluate((o) => window.bench.init(o), { ortThreads: 1 });
    log(`adapter: ${env.adapter.vendor}/${env.adapter.architecture} (${env.adapter.description ?? ''}); ORT ${env.ort.web}; ` +
      `timestamp-query ${env.timestampQuery ? `yes (empty command buffer ${fmt(env.timestampFloorUs)} µs)` : 'no'}; cross-origin isolated ${env.crossOriginIsolated}`);
    for (const [i, c] of cases.entries()) {
      status(`[${i + 1}/${cases.length}] ${c.id}: starting`);
      let r;
      try {
        r = await page.evaluate((spec, s) => window.bench.runCase(spec, s), c, settings);
      } catch (e) {
        r = { id: c.id, systems: {}, notes: [], crashed: String(e.message ?? e) };
        log(`  ${c.id}: the page failed (${r.crashed}); reloading it for the next case`);
        try { await page.close(); } catch { /* already gone */ }
        page = await openPage(browser, server.url);
        env = await page.evaluate((o) => window.bench.init(o), { ortThreads: 1 });
      }
      results.push({ case: c, ...r });
      log(`[${String(i + 1).padStart(2)}/${cases.length}] ${oneLine(c, r)}`);
      for (const [k, s] of Object.entries(r.systems ?? {})) {
        if (s.error) log(`        ${k}: ${s.error.slice(0, 400)}`);
        else if (s.webgpuError) log(`        ${k}: ran on ORT's CPU EP, WebGPU EP refused: ${s.webgpuError.slice(0, 300)}`);
      }
      for (const e of r.gpuErrors ?? []) log(`        GPU error: ${e.slice(0, 300)}`);
    }
    final = await page.evaluate(() => window.bench.finish());
  } finally {
    await browser.close();
    await server.close();
  }

  const finished = new Date();
  const targets = evaluateTargets(results, final);
  const report = {
    startedAt: started.toISOString(), finishedAt: finished.toISOString(), seconds: (Date.now() - t0) / 1000,
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    quick: args.quick, filter: args.filter?.source, settings,
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavg: os.loadavg() },
    env, final, targets, results,
  };
  await mkdir(args.out, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const jsonPath = join(args.out, `${stamp}.json`);
  await writeFile(jsonPath, JSON.stringify(report, null, 1));
  const htmlPath = join(args.out, 'report.html');
  await writeFile(htmlPath, renderHtml(report));
  log('');
  log(renderTable(report));
  log('');
  log(renderTargets(report));
  log('');
  log(`wrote ${jsonPath}`);
  log(`wrote ${htmlPath}`);
  log(`bench took ${report.seconds.toFixed(0)} s`);
}

main().catch((e) => {
  console.error(`bench: ${e.stack ?? e}`);
  process.exit(1);
});
