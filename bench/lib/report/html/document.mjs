// The report as one self-contained HTML file: the stylesheet (a desktop and a 390 px phone: tables scroll inside
// their own box, their first column wrapped and held in place on a phone; long texts wrap; charts take the width they
// are given), the body, and at its end Chart.js's built file from node_modules with its licence, the chart specs as
// JSON and the call that draws them. No network.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PAGE_FUNCTIONS } from './charts.mjs';
import { esc } from './markup.mjs';

/** @import { ChartSpec } from './charts.mjs' */

const CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:8px 14px 40px;color:#1b1f23;
  overflow-wrap:anywhere}
h1{font-size:22px;margin:12px 0 4px}h2{font-size:19px;margin:36px 0 6px;border-bottom:1px solid #d0d7de}
h3{font-size:16px;margin:26px 0 4px}h4{font-size:15px;margin:18px 0 4px}
code{font:13px ui-monospace,monospace}
.meta{color:#57606a;font-size:14px}
dl.env{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.env dt{font-weight:600}
dl.env dd{margin:0}
@media (max-width:560px){dl.env{grid-template-columns:1fr}dl.env dd{margin-bottom:6px}}
.caveat{border-left:4px solid #d29922;background:#fff8e5;padding:8px 12px}
.muted,figcaption{color:#57606a;font-size:14px}
figure{margin:10px 0 28px}
.chart{position:relative;width:100%;min-width:0}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:6px 0;border:1px solid #d0d7de;max-width:100%}
table{border-collapse:collapse;min-width:100%;font-size:13px}
th,td{border-bottom:1px solid #eaeef2;padding:4px 8px;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.id{font-family:ui-monospace,monospace;font-size:12px}
@media (max-width:560px){td.id{white-space:normal;overflow-wrap:break-word;min-width:10em;max-width:12em}
  td.id,th:first-child{position:sticky;left:0;z-index:1;box-shadow:1px 0 0 #d0d7de}td.id{background:#fff}}
.err{color:#cf222e}.warn{color:#9a6700}
ul.notes{font-size:13px;padding-left:18px}ul.notes li{margin:2px 0}
ul.findings li{margin:4px 0}
details{margin:8px 0}summary{cursor:pointer}
`;

/**
 * Chart.js's built file and the licences of what it bundles (Chart.js, @kurkle/color), from node_modules.
 * @returns {Promise<{ code: string, version: string, licences: string }>}
 * @throws {Error} Chart.js is not installed
 */
export async function chartLibrary() {
  const require = createRequire(import.meta.url);
  let main;
  try {
    main = require.resolve('chart.js');
  } catch {
    throw new Error('Chart.js is not installed (a devDependency: npm install)');
  }
  const dir = join(dirname(main), '..');
  const color = join(dirname(createRequire(main).resolve('@kurkle/color')), '..');
  const [code, pkg, own, colors] = await Promise.all([
    readFile(join(dir, 'dist', 'chart.umd.min.js'), 'utf8'),
    readFile(join(dir, 'package.json'), 'utf8'),
    readFile(join(dir, 'LICENSE.md'), 'utf8'),
    readFile(join(color, 'LICENSE.md'), 'utf8'),
  ]);
  const licences = `Chart.js, and @kurkle/color inside its built file:\n\n${own}\n\n@kurkle/color:\n\n${colors}`;
  return { code, version: JSON.parse(pkg).version, licences };
}

/** JSON safe inside a script element. @param {unknown} x */
const scriptJson = (x) => JSON.stringify(x).replace(/</g, '\\u003c');

/**
 * The whole page.
 * @param {{ title: string, body: string, charts: readonly ChartSpec[] }} page
 * @param {Awaited<ReturnType<typeof chartLibrary>>} lib
 */
export function renderDocument(page, lib) {
  const code = lib.code.replace(/<\/(script)/gi, '<\\/$1');
  const credit = `Charts drawn with Chart.js ${lib.version} (MIT licence; the notices are in this file's source).`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${esc(page.title)}</title>
<style>${CSS}</style></head>
<body>
${page.body}
<p class="muted">${esc(credit)} Every chart has a table under it with the same figures.</p>
<!--
${lib.licences.replace(/--/g, '- -')}
-->
<script>${code}</script>
<script type="application/json" id="chart-specs">${scriptJson(page.charts)}</script>
<script>
${PAGE_FUNCTIONS.map(String).join('\n')}
drawCharts(window.Chart, JSON.parse(document.getElementById('chart-specs').textContent));
</script>
</body></html>
`;
}
