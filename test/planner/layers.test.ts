// The layers of src/ (eslint.layers.js), in plain Node: each folder's rule refuses an import of a
// layer above it and lets the layers below through, and the planner's rule refuses module state.
// `npm run lint` applies the same rules to the real tree; this checks that they still refuse.
import { Linter } from 'eslint';
import { describe, expect, test } from 'vitest';
import { layers } from '../../eslint.layers.js';

const linter = new Linter({ configType: 'flat' });

/** The layer rules' complaints about `code` as the file `file`. */
function complaints(file: string, code: string): string[] {
  return linter.verify(code, [{ files: ['**/*.ts'] }, ...layers], file).map((m) => `${m.ruleId}: ${m.message}`);
}

const importOf = (spec: string) => `import { x } from '${spec}';\nexport const y = x;\n`;

// [importing file, specifier, refused]
const IMPORTS = [
  // Leaves import only leaves.
  ['src/tensor.ts', './dtype.js', false],
  ['src/shape.ts', './read/tensor.js', true],
  ['src/errors.ts', './make-tensor.js', true],
  ['src/host-data.ts', './dtype.js', false],
  ['src/host-data.ts', './read/tensor.js', true],
  ['src/half.ts', './read/tensor.js', true],
  ['src/dtype.ts', './make-tensor.js', true],
  // read/: leaves and itself.
  ['src/read/into.ts', '../shape.js', false],
  ['src/read/into.ts', './tensor.js', false],
  ['src/read/into.ts', '../planner/types.js', true],
  ['src/read/into.ts', '../gpu/leases.js', true],
  ['src/read/tensor.ts', '../engine/program.js', true],
  ['src/read/options.ts', '../engine/api.js', true],
  // planner/: leaves and itself.
  ['src/planner/regions.ts', '../tensor.js', false],
  ['src/planner/gpu.ts', './dispatch.js', false],
  ['src/planner/split.ts', '../read/options.js', true],
  ['src/planner/gpu.ts', '../engine/program.js', true],
  ['src/planner/dispatch.ts', '../gpu/layout.js', true],
  ['src/planner/split.ts', '../gpu/executor.js', true],
  // ops/: leaves, read/, planner/.
  ['src/ops/onnx-split.ts', '../planner/split.js', false],
  ['src/ops/onnx-split.ts', '../engine/program.js', true],
  ['src/ops/onnx-split.ts', '../read/options.js', false],
  ['src/ops/inputs.ts', '../gpu/executor.js', true],
  ['src/ops/inputs.ts', '../cpu/split.js', true],
  // cpu/: leaves, read/, planner/.
  ['src/cpu/split.ts', '../planner/split.js', false],
  ['src/cpu/split.ts', '../gpu/executor.js', true],
  // gpu/: everything below the API.
  ['src/gpu/executor.ts', '../planner/types.js', false],
  ['src/gpu/executor.ts', '../read/tensor.js', false],
  ['src/gpu/executor.ts', '../engine/program.js', true],
  ['src/gpu/encode.ts', '../ops/index.js', true],
  ['src/gpu/encode.ts', '../interop.js', true],
  // engine/: anything but the entries.
  ['src/engine/engine.ts', '../gpu/executor.js', false],
  ['src/engine/program.ts', '../gpu/encode.js', false],
  ['src/engine/engine.ts', '../index.js', true],
  ['src/engine/engine.ts', '../core.js', true],
  ['src/engine/node-engine.ts', '../core.js', true],
  // The engine of `cleave-gpu/core` and what creates it: not the operator front-ends, which node-engine.ts adds.
  ['src/engine/engine.ts', '../ops/index.js', true],
  ['src/engine/open.ts', '../ops/index.js', true],
  ['src/engine/program.ts', '../ops/index.js', true],
  ['src/engine/node-engine.ts', '../ops/index.js', false],
  // What the entries share (the factory): anything but the entries.
  ['src/make-tensor.ts', './read/tensor.js', false],
] as const;

describe('layer rules', () => {
  test.each(IMPORTS)('%s importing %s: refused %s', (file, spec, refused) => {
    const found = complaints(file, importOf(spec));
    if (refused) expect(found).toEqual([expect.stringMatching(/^no-restricted-imports: .* may not import it: /)]);
    else expect(found).toEqual([]);
  });

  test('a re-export is refused like an import', () => {
    // Plain JavaScript here (the test parses without TypeScript): `export ... from` is the re-export.
    expect(complaints('src/read/into.ts', "export { Destination } from '../planner/types.js';\n")).toHaveLength(1);
  });

  test('the planner keeps no module state', () => {
    const state = [
      'let calls = 0;\nexport const count = () => ++calls;\n',
      'export let last = undefined;\n',
      'const kept = new Map();\nexport const get = (k) => kept.get(k);\n',
      'const recent = [];\nexport const push = (p) => recent.push(p);\n',
    ];
    for (const code of state)
      expect(complaints('src/planner/split.ts', code)).toEqual([
        expect.stringMatching(/^no-restricted-syntax: planner\/ is pure: no module state/),
      ]);
    const constants = [
      'export const MAX = 1 << 16;\n',
      'const DEFAULTS = { a: 1 };\nexport const read = () => DEFAULTS.a;\n',
      'export function plan() {\n  const out = [];\n  let n = 0;\n  out.push(n++);\n  return out;\n}\n',
    ];
    for (const code of constants) expect(complaints('src/planner/split.ts', code)).toEqual([]);
    // Outside the planner, module state is allowed (the caches hold it on purpose).
    expect(complaints('src/gpu/pipelines.ts', 'const kits = [];\nexport const n = () => kits.length;\n')).toEqual([]);
  });
});
