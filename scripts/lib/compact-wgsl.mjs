// Shaders ship minified: without their comments and the spaces no token needs, and with the names the shader declares
// (functions, variables, parameters, struct members) shortened: a quarter of the bundle otherwise. What the host
// names stays: the entry points, the override constant, the `Word` alias, whose line stays a line of its own (the host
// swaps it by pattern). Binding numbers and struct offsets do not depend on names: the host's layout is reflected from
// the source (scripts/wgsl-reflect.mjs). The library build, the demo and the tests all load `.wgsl?raw` through this
// plugin, so they see the same text (the size measurement, scripts/size.mjs, builds from dist/). Plain Node ESM.

import { readFileSync } from 'node:fs';

/** Names the host uses (and every override constant), or WGSL's own that look declared (`default:`). */
const KEEP = new Set(['gather_words', 'gather_bits', 'Word', 'default']);

/** @param {string} source WGSL source @returns {string} the minified text */
export function minifyWgsl(source) {
  const lines = source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, '').trim())
    .filter((line) => line !== '');
  // Declared names: after fn, let, var (and var<...>), const, override; before ':' (parameters, members, typed lets).
  /** @type {Set<string>} */
  const declared = new Set();
  for (const line of lines)
    for (const m of line.matchAll(
      /\b(?:fn|let|var(?:<[^>]*>)?|const|override)\s+([A-Za-z_]\w*)|(?<!\w)([A-Za-z_]\w*)\s*:/g,
    ))
      declared.add(/** @type {string} */ (m[1] ?? m[2]));
  for (const k of KEEP) declared.delete(k);
  // An override constant is named by the host's pipeline descriptor.
  for (const line of lines)
    for (const m of line.matchAll(/\boverride\s+(\w+)/g)) declared.delete(/** @type {string} */ (m[1]));
  // The most used names get the shortest: A..Z, then A0..Z9 (no WGSL keyword or builtin is spelled so).
  /** @type {Map<string, number>} */
  const uses = new Map([...declared].map((n) => [n, 0]));
  for (const line of lines)
    for (const [n] of line.matchAll(/(?<!\w)[A-Za-z_]\w*/g)) {
      const k = uses.get(n);
      if (k !== undefined) uses.set(n, k + 1);
    }
  const names = [...uses.keys()].sort((a, b) => (uses.get(b) ?? 0) - (uses.get(a) ?? 0));
  const short = new Map(
    names.map((n, i) => [n, String.fromCharCode(65 + (i % 26)) + (i < 26 ? '' : (i / 26 - 1) | 0)]),
  );
  // A vector's component (`.x`, `.yzw`) and an attribute (`@binding`) keep their names, even where a name is shared.
  /** @param {string} line */
  const rename = (line) =>
    line.replace(/(?<![\w.@])[A-Za-z_]\w*|\.([A-Za-z_]\w*)/g, (all, /** @type {string | undefined} */ member) =>
      member === undefined
        ? (short.get(all) ?? all)
        : /^([xyzw]{1,4}|[rgba]{1,4})$/.test(member)
          ? all
          : `.${short.get(member) ?? member}`,
    );
  // A space stays only between two word characters, or two operator characters that would make one token.
  /** @param {string} c */
  const wordy = (c) => /\w/.test(c);
  /** @param {string} c */
  const op = (c) => /[-+*/%&|^!<>=]/.test(c);
  /** @param {string} text */
  const squeeze = (text) =>
    text.replace(/\s+/g, ' ').replace(/ /g, (_, /** @type {number} */ at, /** @type {string} */ s) => {
      const [a, b] = [s[at - 1] ?? '', s[at + 1] ?? ''];
      return (wordy(a) && wordy(b)) || (op(a) && op(b)) ? ' ' : '';
    });
  const alias = lines.findIndex((l) => /^alias Word = /.test(l));
  const before = squeeze(lines.slice(0, alias).map(rename).join(' '));
  const after = squeeze(
    lines
      .slice(alias + 1)
      .map(rename)
      .join(' '),
  );
  return [before, lines[alias], after].filter((l) => l !== '').join('\n');
}

/** @returns {import('vite').Plugin} */
export function compactWgsl() {
  return {
    name: 'cleave:compact-wgsl',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('.wgsl?raw')) return null;
      return `export default ${JSON.stringify(minifyWgsl(readFileSync(id.slice(0, -'?raw'.length), 'utf8')))};`;
    },
  };
}
