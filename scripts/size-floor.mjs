// How small could the whole API get? Builds the package tier's consumer page
// (test/package/fixtures: both entries imported, nothing tree-shaken) from source with the repo's
// Vite, three ways, and prints minified and gzip bytes of its JS:
// - as shipped;
// - with every message removed: each template literal and each string literal holding a space
//   becomes "" (error texts, hints, labels; dtype and option names stay);
// - with the shader text removed as well.
// The last two do not run; they measure the floor under the project's 40 kB / 12 kB gzip budget (README,
// "Limits"). Usage: node scripts/size-floor.mjs

import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { compactWgsl } from './lib/compact-wgsl.mjs';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');

/** @typedef {'shipped' | 'no-messages' | 'no-messages-no-shader'} Variant */

/**
 * Replaces texts in Cleave's own modules (after TypeScript is stripped) with "".
 * @param {Variant} variant
 * @returns {import('vite').Plugin}
 */
function stripTexts(variant) {
  return {
    name: 'cleave:strip-texts',
    enforce: 'post',
    transform(code, id) {
      if (variant === 'shipped' || !id.startsWith(ROOT) || id.includes('/node_modules/')) return null;
      if (id.includes('.wgsl') && variant !== 'no-messages-no-shader') return null;
      /** @type {[number, number][]} */
      const spans = [];
      /** @param {any} node */
      const visit = (node) => {
        if (!node || typeof node.type !== 'string') return;
        const text =
          node.type === 'TemplateLiteral' ||
          (node.type === 'Literal' && typeof node.value === 'string' && / /.test(node.value));
        if (text) {
          spans.push([node.start, node.end]);
          return;
        }
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
 * The consumer page's JS, minified by Vite's default minifier; gzip summed per file, as the package tier does.
 * @param {Variant} variant
 */
export async function consumerSize(variant) {
  const result = /** @type {import('rolldown').RolldownOutput} */ (
    await build({
      configFile: false,
      root: resolve(ROOT, 'test/package/fixtures'),
      logLevel: 'silent',
      plugins: [compactWgsl(), stripTexts(variant)],
      resolve: {
        alias: [
          { find: /^cleave$/, replacement: resolve(ROOT, 'src/index.ts') },
          { find: /^cleave\/ort$/, replacement: resolve(ROOT, 'src/ort.ts') },
        ],
      },
      build: { write: false },
    })
  );
  return jsSize(result.output.filter((f) => f.type === 'chunk').map((f) => Buffer.from(f.code)));
}

/**
 * Minified bytes of some JS files, and their gzip bytes summed file by file (what a browser fetches).
 * @param {Buffer[]} files
 */
export function jsSize(files) {
  return { minified: files.reduce((s, b) => s + b.length, 0), gzip: files.reduce((s, b) => s + gzipSync(b).length, 0) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  /** @type {Variant[]} */
  const variants = ['shipped', 'no-messages', 'no-messages-no-shader'];
  for (const v of variants) {
    const r = await consumerSize(v);
    console.log(`${v.padEnd(24)} ${String(r.minified).padStart(7)} B minified ${String(r.gzip).padStart(7)} B gzip`);
  }
}
