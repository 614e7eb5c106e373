// The bundle's size, measured one way: small applications built by Vite (the repository's, the version the lockfile
// pins) against the built dist/, each entry resolved through package.json's `exports` as an application's bundler
// resolves it, and minified by Vite's default minifier; gzip is summed file by file (what a browser fetches).
// It writes docs/size.json and the table in docs/size.md, the one place the docs give a size; the package tier
// (test/package/size.test.ts) measures again and fails while they are stale.
//   npm run build && node scripts/size.mjs
//
// The minified bytes are deterministic, and must match exactly. The gzip bytes may move by a few bytes with the
// zlib that Node is built with (it differs between builds and CPUs), so they match within GZIP_SLACK.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { format, resolveConfig } from 'prettier';
import { build } from 'vite';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const JSON_FILE = join(ROOT, 'docs/size.json');
const PAGE = join(ROOT, 'docs/size.md');
const BEGIN = '<!-- The table is written by the size script of the source repository: edit it, not the table. -->';
const END = '<!-- end of the table -->';

/** How far a gzip figure may be from docs/size.json's (see the header). */
export const GZIP_SLACK = 0.005;

/** @typedef {{ minified: number, gzip: number }} Size */
/** @typedef {{ vite: string, apps: Record<string, Size> }} Sizes */

const pkg = /** @type {{ name: string, exports: Record<string, string | { import?: string }> }} */ (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
);
/** The package's entries, as applications import them: 'cleave-gpu', 'cleave-gpu/core', ... */
const ENTRIES = Object.entries(pkg.exports)
  .filter(([, to]) => typeof to === 'object' && to.import)
  .map(([sub]) => pkg.name + sub.slice(1));

// An application that only splits a tensor on the GPU, importing createSplitEngine from `entry`.
const splitOnly = (/** @type {string} */ entry) => `import { createSplitEngine } from '${entry}';
const engine = await createSplitEngine();
const x = engine.upload({ dtype: 'float32', shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6]) });
const outs = await engine.split(x, { axis: 1, sizes: [2, 1] });
for (const t of outs) console.log(t.shape, (await engine.download(t)).data);
`;
// Every export of every entry, kept: nothing can be tree-shaken.
const whole = `${ENTRIES.map((e, i) => `import * as e${i} from '${e}';`).join('\n')}
window.api = [${ENTRIES.map((_, i) => `e${i}`).join(', ')}];
`;

/** The applications measured, in the table's order. `strip`: every message removed (it does not run). */
export const APPS = Object.freeze([
  { id: 'whole', label: 'the whole API: every export of every entry', code: whole, strip: false },
  {
    id: 'split',
    label: '`createSplitEngine` of `cleave-gpu` alone: upload, split, download',
    code: splitOnly(pkg.name),
    strip: false,
  },
  {
    id: 'core',
    label: '`createSplitEngine` of `cleave-gpu/core`: the same application',
    code: splitOnly(`${pkg.name}/core`),
    strip: false,
  },
  {
    id: 'floor',
    label: 'the whole API without any message (does not run: what the messages weigh)',
    code: whole,
    strip: true,
  },
]);

/**
 * Resolves the package's entries to dist/ through package.json's `exports`, as an application's bundler does.
 * @returns {import('vite').Plugin}
 */
function fromDist() {
  return {
    name: 'cleave:size-from-dist',
    enforce: 'pre',
    resolveId(id) {
      if (id !== pkg.name && !id.startsWith(`${pkg.name}/`)) return null;
      const to = pkg.exports[`.${id.slice(pkg.name.length)}`];
      if (typeof to !== 'object' || !to.import) throw new Error(`${id} is not an entry of package.json's exports`);
      return join(ROOT, to.import);
    },
  };
}

/**
 * Replaces the texts of dist/'s modules with "": each template literal and each string literal holding a space
 * (messages, hints, labels; dtype and option names stay), but not the shader.
 * @returns {import('vite').Plugin}
 */
function stripTexts() {
  return {
    name: 'cleave:size-strip-texts',
    transform(code, id) {
      if (!id.startsWith(join(ROOT, 'dist'))) return null;
      /** @type {[number, number][]} */
      const spans = [];
      /** @param {any} node */
      const visit = (node) => {
        if (!node || typeof node.type !== 'string') return;
        const text =
          (node.type === 'TemplateLiteral' && !code.slice(node.start, node.end).includes('@compute')) ||
          (node.type === 'Literal' &&
            typeof node.value === 'string' &&
            / /.test(node.value) &&
            !/@compute/.test(node.value));
        if (text) spans.push([node.start, node.end]);
        else
          for (const v of Object.values(node)) {
            if (Array.isArray(v)) v.forEach(visit);
            else if (v && typeof v === 'object') visit(v);
          }
      };
      visit(this.parse(code));
      let out = code;
      for (const [a, b] of spans.sort((x, y) => y[0] - x[0])) out = `${out.slice(0, a)}""${out.slice(b)}`;
      return { code: out, map: null };
    },
  };
}

/**
 * One application's JS files, built as an application's page is.
 * @param {(typeof APPS)[number]} app
 * @returns {Promise<string[]>}
 */
export async function buildApp(app) {
  const dir = mkdtempSync(join(tmpdir(), 'cleave-size-'));
  try {
    writeFileSync(join(dir, 'index.html'), '<!doctype html>\n<script type="module" src="./main.js"></script>\n');
    writeFileSync(join(dir, 'main.js'), app.code);
    const result = /** @type {import('rolldown').RolldownOutput} */ (
      await build({
        configFile: false,
        root: dir,
        logLevel: 'silent',
        plugins: [fromDist(), ...(app.strip ? [stripTexts()] : [])],
        // Vite's module-preload polyfill is the application's, not Cleave's.
        build: { write: false, modulePreload: { polyfill: false } },
      })
    );
    return result.output.filter((f) => f.type === 'chunk').map((f) => f.code);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One application's minified bytes, and its gzip bytes summed file by file.
 * @param {(typeof APPS)[number]} app
 * @returns {Promise<Size>}
 */
async function measureApp(app) {
  const files = (await buildApp(app)).map((code) => Buffer.from(code));
  return {
    minified: files.reduce((s, b) => s + b.length, 0),
    gzip: files.reduce((s, b) => s + gzipSync(b).length, 0),
  };
}

/** @returns {Promise<Sizes>} every application's size, built from dist/ as it is now */
export async function measure() {
  /** @type {Record<string, Size>} */
  const apps = {};
  for (const app of APPS) apps[app.id] = await measureApp(app);
  const vite = /** @type {{ version: string }} */ (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/vite/package.json'), 'utf8'))
  ).version;
  return { vite, apps };
}

const kB = (/** @type {number} */ bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * docs/size.md's table, with what it was measured with.
 * @param {Sizes} sizes
 */
export function render(sizes) {
  const all = sizes.apps.whole;
  if (!all) throw new Error('no figure for the whole API');
  const rows = APPS.map(({ id, label }) => {
    const s = sizes.apps[id];
    if (!s) throw new Error(`no figure for ${id}`);
    return `| ${label} | ${kB(s.minified)} | ${kB(s.gzip)} | ${Math.round((100 * s.gzip) / all.gzip)}% |`;
  });
  return [
    BEGIN,
    '',
    '| application | minified | gzip | of the whole API (gzip) |',
    '| --- | --: | --: | --: |',
    ...rows,
    '',
    `Measured with Vite ${sizes.vite}; 1 kB is 1,000 bytes.`,
    '',
    END,
  ].join('\n');
}

/** A file's text as Prettier (the repository's configuration) writes it. */
async function pretty(/** @type {string} */ file, /** @type {string} */ text) {
  return format(text, { ...(await resolveConfig(file)), filepath: file });
}

/** docs/size.md with `table` in place of its table, formatted. */
function withTable(/** @type {string} */ md, /** @type {string} */ table) {
  const [a, b] = [md.indexOf(BEGIN), md.indexOf(END)];
  if (a < 0 || b < a) throw new Error(`docs/size.md has no table between "${BEGIN}" and "${END}"`);
  return pretty(PAGE, md.slice(0, a) + table + md.slice(b + END.length));
}

/**
 * Why docs/size.json or docs/size.md does not hold `fresh` (a measurement of the build), in one line; '' if they do.
 * @param {Sizes} fresh
 */
export async function staleness(fresh) {
  const rerun = 'run `npm run build && node scripts/size.mjs` and commit docs/size.json and docs/size.md';
  const kept = /** @type {Sizes} */ (JSON.parse(readFileSync(JSON_FILE, 'utf8')));
  if (kept.vite !== fresh.vite)
    return `docs/size.json was measured with Vite ${kept.vite}, this is ${fresh.vite}: ${rerun}`;
  for (const { id } of APPS) {
    const [k, f] = [kept.apps[id], fresh.apps[id]];
    if (!k || !f) return `docs/size.json has no figure for ${id}: ${rerun}`;
    if (k.minified !== f.minified || Math.abs(k.gzip - f.gzip) > GZIP_SLACK * k.gzip)
      return (
        `docs/size.json is stale: ${id} measures ${f.minified} B minified, ${f.gzip} B gzip; ` +
        `it says ${k.minified} B, ${k.gzip} B: ${rerun}`
      );
  }
  const md = readFileSync(PAGE, 'utf8');
  return (await withTable(md, render(kept))) === md ? '' : `docs/size.md's table is not docs/size.json's: ${rerun}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await measure();
  writeFileSync(JSON_FILE, await pretty(JSON_FILE, JSON.stringify(sizes)));
  writeFileSync(PAGE, await withTable(readFileSync(PAGE, 'utf8'), render(sizes)));
  for (const { id } of APPS)
    console.log(`${id.padEnd(6)} ${sizes.apps[id]?.minified} B minified, ${sizes.apps[id]?.gzip} B gzip`);
}
