// Shaders ship without their comments and indentation (a third of the bundle otherwise). Lines
// stay lines: the host swaps the `alias Word` line by pattern. The library build, the demo and the
// tests all load `.wgsl?raw` through this plugin, so they see the same text (the size measurement,
// scripts/size.mjs, builds from dist/). Plain Node ESM with JSDoc types.

import { readFileSync } from 'node:fs';

/** @returns {import('vite').Plugin} */
export function compactWgsl() {
  return {
    name: 'cleave:compact-wgsl',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('.wgsl?raw')) return null;
      const code = readFileSync(id.slice(0, -'?raw'.length), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .split('\n')
        .map((line) =>
          line
            .replace(/\/\/.*$/, '')
            .trim()
            .replace(/\s+/g, ' '),
        )
        .filter((line) => line !== '')
        .join('\n');
      return `export default ${JSON.stringify(code)};`;
    },
  };
}
