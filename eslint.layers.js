// The layers of src/, as ESLint rules (eslint.config.js uses them; test/planner/layers.test.ts
// checks that they refuse what they should). Each folder imports only the layers below it:
//
//   leaves    errors, dtype, half, host-data, shape, tensor (types), usage: import only each other
//   read/     the caller's objects read once into views: leaves only
//   planner/  pure planning, no module state: leaves only
//   cpu/      the CPU executor: leaves, read/ (views), planner/ (plans)
//   ops/      operator front-ends: leaves, read/, planner/
//   gpu/      the GPU executor: leaves, read/, planner/
//   engine/, the entries (index, core, ort, tfjs) and what they share (interop, plan, make-tensor): anything below;
//             but the engine of `cleave-gpu/core` (engine.ts, program.ts and what creates the engine) not the
//             operator front-ends, which only node-engine.ts brings in (`run`), so that a bundle without `run`
//             leaves them out
//
// A specifier is matched as written, relative to the importing file.

const FOLDERS = ['read', 'planner', 'cpu', 'ops', 'gpu', 'engine'];
const TOP = ['index', 'core', 'ort', 'tfjs', 'interop', 'plan', 'make-tensor'];

/**
 * A restriction on `files` that refuses imports of the src/ `folders` and top-level `modules`, both
 * reached through `up` (a regex for the path from those files to src/).
 * @param {string} name
 * @param {string[]} files
 * @param {string} up
 * @param {string[]} folders
 * @param {string[]} modules
 * @param {string} why
 * @returns {import('eslint').Linter.Config}
 */
function layer(name, files, up, folders, modules, why) {
  /** @type {{ regex: string, message: string }[]} */
  const patterns = [];
  if (folders.length)
    patterns.push({ regex: `^${up}(${folders.join('|')})/`, message: `${name} may not import it: ${why}` });
  if (modules.length)
    patterns.push({ regex: `^${up}(${modules.join('|')})\\.js$`, message: `${name} may not import it: ${why}` });
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

/** @type {(list: string[], ...keep: string[]) => string[]} */
const without = (list, ...keep) => list.filter((x) => !keep.includes(x));

/**
 * Module state in the planner: a top-level `let` or `var`, a collection made at load (`new Map()`,
 * `new Array()`), or a mutable array literal. Constant tables (`[...] as const`, frozen objects,
 * numbers) are not state.
 */
const MODULE_STATE = [
  {
    selector:
      'Program > VariableDeclaration[kind!="const"], ExportNamedDeclaration > VariableDeclaration[kind!="const"]',
    message: 'planner/ is pure: no module state (a top-level let or var)',
  },
  {
    selector: ':matches(Program, ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator > NewExpression',
    message: 'planner/ is pure: no module state (a collection made at load)',
  },
  {
    selector: ':matches(Program, ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator > ArrayExpression',
    message: 'planner/ is pure: no module state (a mutable array; write `[...] as const` for a table)',
  },
];

/** @type {import('eslint').Linter.Config[]} */
export const layers = [
  layer(
    'a leaf module',
    [
      'src/errors.ts',
      'src/dtype.ts',
      'src/half.ts',
      'src/host-data.ts',
      'src/shape.ts',
      'src/tensor.ts',
      'src/usage.ts',
    ],
    '\\./',
    FOLDERS,
    TOP,
    'leaves are shared by every layer and import only each other',
  ),
  layer(
    'read/',
    ['src/read/**/*.ts'],
    '\\.\\./',
    without(FOLDERS, 'read'),
    TOP,
    "reading the caller's objects comes before planning and execution",
  ),
  layer(
    'planner/',
    ['src/planner/**/*.ts'],
    '\\.\\./',
    without(FOLDERS, 'planner'),
    TOP,
    "the planner is pure: plain numbers in, plans out, no caller's objects, caches or GPU",
  ),
  { files: ['src/planner/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...MODULE_STATE] } },
  layer(
    'cpu/',
    ['src/cpu/**/*.ts'],
    '\\.\\./',
    without(FOLDERS, 'cpu', 'read', 'planner'),
    TOP,
    'the CPU executor carries out a plan on a view',
  ),
  layer(
    'ops/',
    ['src/ops/**/*.ts'],
    '\\.\\./',
    without(FOLDERS, 'ops', 'read', 'planner'),
    TOP,
    'operator front-ends turn a node into a plan; they do not execute it',
  ),
  layer(
    'gpu/',
    ['src/gpu/**/*.ts'],
    '\\.\\./',
    without(FOLDERS, 'gpu', 'read', 'planner'),
    TOP,
    'the executor carries out plans; the API above it calls it',
  ),
  layer(
    'engine/',
    ['src/engine/**/*.ts'],
    '\\.\\./',
    [],
    ['index', 'core', 'ort', 'tfjs'],
    'the entries export the engine, not the other way round',
  ),
  // After engine/'s rule, which it replaces for these files (a rule's options are not merged): it keeps that one's.
  layer(
    "cleave-gpu/core's engine",
    ['src/engine/engine.ts', 'src/engine/program.ts', 'src/engine/open.ts'],
    '\\.\\./',
    ['ops'],
    ['index', 'core', 'ort', 'tfjs'],
    'the engine without `run` has no operator nodes (node-engine.ts adds them), and the entries export it',
  ),
];
