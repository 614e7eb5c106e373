// The bench's HTML report in plain Node (no GPU): `npm run bench:report` refuses what is not a results file of
// the current format with one line naming the file and what is wrong, exit code 1 and no page; a system that
// failed, could not run or ran on ORT's CPU EP renders as such with its reason, never as a time; the per-call
// fields of newer runs (the bare calls, each variant over them both ways, the bare calls inside error scopes, a
// variant that cannot run here, bytes copied) render where a file has them.
// The results file is test/browser/fixtures/bench-results.json (the browser tier draws it).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { renderHtml } from '../../bench/lib/report/html.mjs';
import { chartLibrary } from '../../bench/lib/report/html/document.mjs';
import { bytesText, signed, times } from '../../bench/lib/report/format.mjs';
import { renderReport } from '../../bench/lib/report/text.mjs';
import type { ChartSpec } from '../../bench/lib/report/html/charts.mjs';
import type { Report } from '../../bench/types.js';

const FIXTURE = 'test/browser/fixtures/bench-results.json';
const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (): Report => JSON.parse(readFileSync(FIXTURE, 'utf8')) as Report;

/** bench:report on `file`, its page to a fresh path: exit code, stderr's lines, and whether a page was written. */
function report(file: string) {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.html`);
  const r = spawnSync(process.execPath, ['bench/report.mjs', file, '--out', out], { encoding: 'utf8' });
  return { status: r.status, lines: r.stderr.trim().split('\n'), stdout: r.stdout, wrote: existsSync(out) };
}

/** A file of the temporary folder. */
function file(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('bench:report refuses what it cannot read: one line, exit 1, no page', () => {
  const bad: [string, () => string, RegExp][] = [
    ['a missing file', () => join(dir, 'missing.json'), /missing\.json: no such file$/],
    ['a directory', () => dir, /: a directory, not a file$/],
    ['a file that is not JSON', () => file('text.json', 'hello\n'), /text\.json: not JSON \(.+\)$/],
    [
      'JSON that is not a results file',
      () => file('other.json', '{"name": "x"}'),
      /other\.json: not a bench results file/,
    ],
    ['a JSON array', () => file('array.json', '[1, 2]'), /array\.json: not a bench results file/],
    [
      'a run of the older format (no format field)',
      () => file('old.json', JSON.stringify({ ...fixture(), format: undefined })),
      /old\.json: an older results format \(no "format" field\); this report reads format 2/,
    ],
    [
      'a node run of another format',
      () => file('node3.json', JSON.stringify({ format: 3, adapter: {}, cases: [] })),
      /node3\.json: results format 3; this report reads format 2$/,
    ],
    [
      'a results file it cannot render',
      () => file('broken.json', JSON.stringify({ ...fixture(), results: [{ id: 'x' }] })),
      /broken\.json: cannot render it: /,
    ],
  ];
  test.each(bad)('%s', (_, make, line) => {
    const r = report(make());
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^bench:report: /);
    expect(r.lines[0]).toMatch(line);
    expect(r.wrote).toBe(false);
  });

  test('no file named: the usage, exit 2', () => {
    const r = spawnSync(process.execPath, ['bench/report.mjs'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^bench:report: which results file\?\nusage: npm run bench:report/);
  });

  test('the checked-in results file renders (the control)', () => {
    const r = report(FIXTURE);
    expect(r.status, r.lines.join('\n')).toBe(0);
    expect(r.wrote).toBe(true);
  });
});

/** The page's own markup (up to the charting library's notices and code), its chart specs, and the whole page. */
async function render(r: Report) {
  const page = renderHtml({ kind: 'page', report: r }, await chartLibrary());
  const json = /<script type="application\/json" id="chart-specs">(.*?)<\/script>/s.exec(page)?.[1] ?? '[]';
  return { html: page.slice(0, page.indexOf('<!--')), page, specs: JSON.parse(json) as ChartSpec[] };
}

/** The first case's chart of every system over the copy limit: its bars (wall, GPU) by label. */
function firstCaseBars(specs: ChartSpec[]) {
  const spec = specs.find((s) => s.series[0]?.label === 'wall');
  expect(spec, 'a chart per case').toBeDefined();
  return new Map(spec!.labels.map((l, i) => [l, spec!.series.map((s) => s.data[i])]));
}

test('a failed, n/a or CPU-EP system renders with its reason, never as a time', async () => {
  const r = fixture();
  const tiny = r.results.find((x) => x.id === 'tiny-f32-6-a0-3')!;
  tiny.systems['tfjs-gpu'] = { ok: false, verified: false, error: 'planted: the page threw' };
  r.results = [tiny, ...r.results.filter((x) => x !== tiny)];
  const { html, specs } = await render(r);
  // The first case's chart: the failed system has a label saying so and no bar on either clock.
  const first = firstCaseBars(specs);
  expect(first.get('TF.js GPU (failed)')).toEqual([null, null]);
  expect(first.get('Cleave GPU')?.[0]).toBeGreaterThan(0);
  expect(html).toContain('<li class="err">TF.js GPU: failed: planted: the page threw</li>');
  expect(html).toMatch(/<td class="id">TF.js GPU<\/td><td class="num err">failed<\/td>/);
  // The fixture's own: ORT refused 16 outputs, had no type for uint4, ran u8 on its CPU EP.
  expect(html).toMatch(/ORT GPU: failed: verify failed: .*Too many storage buffers in shader/);
  expect(html).toContain('<li class="muted">ORT GPU: n/a: no ONNX Split or SplitToSequence lists uint4');
  expect(html).not.toContain('n/a: n/a:');
  expect(html).toContain('ORT GPU: ran on ORT&#39;s CPU EP; its WebGPU EP refused: Can&#39;t create a session');
  for (const spec of specs) for (const s of spec.series) expect(s.data.every((v) => v === null || v > 0)).toBe(true);
});

test('the page names the adapter and the browser, says what SwiftShader is, and keeps views apart', async () => {
  const r = fixture();
  const { html, page } = await render({ ...r, env: { ...r.env, browser: { name: 'firefox', version: '153.0' } } });
  expect(html).toContain('<dt>Adapter</dt><dd>google/swiftshader (SwiftShader Device (Subzero))</dd>');
  expect(html).toContain('<dt>Browser</dt><dd>Firefox 153.0</dd>');
  expect(html).toContain('SwiftShader is a CPU driver');
  expect(html).toMatch(/<meta name="viewport" content="width=device-width, initial-scale=1">/);
  const views = html.indexOf("<h2>Where Cleave's outputs are views</h2>");
  expect(html.indexOf('<h2>Where Cleave does GPU work</h2>')).toBeLessThan(views);
  expect(html.indexOf('<h4>f32-1024x1024-a0-2:')).toBeGreaterThan(views);
  expect(html).not.toMatch(/target/i);
  expect(page.match(/<(script|link)[^>]+(src|href)="(?!data:)/)).toBeNull();
});

test('the per-call fields render: the bare calls, each variant over them both ways, bytes copied', async () => {
  const r = fixture();
  const calls = r.callCosts[0]!;
  const { html, specs } = await render(r);
  const variants = calls.rows.filter((x) => !['bare', 'scoped'].includes(x.fn) && x.overBare && !x.error && !x.skip);
  expect(variants.length, 'the fixture times variants against the bare calls').toBeGreaterThan(0);
  const over = specs.find((s) => s.series[0]?.label === 'per round, median');
  expect(over?.labels).toHaveLength(variants.length);
  expect(over?.series[0]?.data[0]).toBe(variants[0]!.overBare!.median);
  expect(over?.series[1]?.label).toBe('fastest round over fastest');
  expect(variants[0]!.fastestOverBare, 'the fixture has the fastest-round ratio').toBeGreaterThan(0);
  expect(over?.series[1]?.data[0]).toBe(variants[0]!.fastestOverBare);
  expect(html).toContain(`<td class="num">${times(variants[0]!.fastestOverBare)}</td>`);
  const bare = calls.rows.find((x) => x.fn === 'bare');
  expect(bare, 'the fixture has the bare calls').toBeDefined();
  const time = specs.find((s) => s.labels.includes(bare!.label));
  expect(time?.series.map((x) => x.label)).toEqual(['median over rounds', 'fastest round']);
  expect(time?.series[1]?.data[0]).toBe(bare!.us!.min);
  expect(html).toContain('<h4>Bytes copied per split</h4>');
  const copied = r.results.flatMap((c) => Object.values(c.systems)).find((x) => x?.calls?.bytesCopied)?.calls;
  expect(copied?.bytesCopied, 'a probe in the fixture copied bytes').toBeGreaterThan(0);
  expect(html).toContain(`<td class="num">${bytesText(copied!.bytesCopied)}</td>`);
});

test('what keeping blame costs: the bare calls inside each error scope, and what each adds, fastest rounds', async () => {
  const r = fixture();
  const rows = r.callCosts[0]!.rows;
  const bare = rows.find((x) => x.fn === 'bare')!;
  const scoped = rows.filter((x) => x.fn === 'scoped');
  expect(scoped.map((x) => x.scope)).toEqual(['call', 'batch', 'call-awaited']);
  const { html, specs } = await render(r);
  const spec = specs.find((s) => s.labels[0] === 'no error scope');
  expect(spec?.labels).toEqual([
    'no error scope',
    'a validation scope per call, its pop not awaited',
    'one validation scope per batch of 100 calls',
    'a validation scope per call, its pop awaited',
  ]);
  expect(spec?.series[1]?.data).toEqual([bare, ...scoped].map((x) => x.us!.min));
  const awaited = scoped[2]!;
  expect(html).toContain(`<td class="num">${signed(awaited.us!.min - bare.us!.min)}</td>`);
  // Not among the variants' own figures: they have a figure of their own.
  const time = specs.find((s) => s.labels.includes(bare.label) && s.series[0]?.label === 'median over rounds');
  expect(time?.labels.includes(awaited.label)).toBe(false);
  const text = renderReport(r).join('\n');
  expect(text).toMatch(/What blame costs \(calls-decode-f32-1x1x12288, fastest rounds\): the bare calls take /);
  expect(text).toMatch(/^a validation scope per call, its pop awaited +bare-scope-awaited +[\d.]+ +[\d.]+ +\+[\d.]+ /m);
});

test('a variant that cannot run here is n/a with its reason, never a time; one that ran is charted', async () => {
  const r = fixture();
  const rows = r.callCosts[0]!.rows;
  const copies = rows.find((x) => x.variant === 'split-upload-copies')!;
  const prepared = rows.filter((x) => x.fn.startsWith('prepared.'));
  expect(prepared.map((x) => x.variant)).toEqual([
    'prepared-encode-into',
    'prepared-split-copies',
    'prepared-split-caller-seen',
  ]);
  // One n/a as in a build without engine.prepare, one timed as in a build with it.
  const [na, ran] = [prepared[0]!, prepared[1]!];
  Object.assign(na, { skip: 'planted: engine.prepare is not a function', us: undefined, overBare: undefined });
  Object.assign(ran, { ...copies, fn: 'prepared.split', variant: ran.variant, label: ran.label, skip: undefined });
  const { html, specs } = await render(r);
  expect(specs.some((s) => s.labels.includes(na.label))).toBe(false);
  expect(html).toContain(
    `<ul class="notes muted"><li>${na.label.replace(/'/g, '&#39;')}: n/a: planted: engine.prepare`,
  );
  expect(html).toMatch(/<td class="num muted">n\/a<\/td><\/tr>/);
  const over = specs.find((s) => s.series[0]?.label === 'per round, median');
  expect(over?.labels).toContain(ran.label);
  expect(over?.series[1]?.data[over.labels.indexOf(ran.label)]).toBe(copies.fastestOverBare);
  const text = renderReport(r).join('\n');
  expect(text).toContain('n/a: prepared-encode-into: planted: engine.prepare is not a function.');
  expect(text).not.toMatch(/prepared encode into the caller's three buffers.*\d+\.\d+x/);
});
