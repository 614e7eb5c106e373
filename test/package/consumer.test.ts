// Package tier: Cleave as a user gets it. `npm pack` of the built package (`npm test`
// builds first), installed from the tarball into two fresh projects in the OS temp dir:
// - bare: cleave + the newest TypeScript 5.x and 6.x + onnxruntime-web and TF.js (for their types), no `webgpu`: the
//   ```ts blocks of the README and the guides (docs/*.md) typecheck (TypeScript 5, 6 and the repo's 7, strict, no
//   extra configuration; TF.js blocks with skipLibCheck, see fixtures/tsconfig.tfjs.json), NO_WEBGPU, require();
// - full: cleave + webgpu + vite + onnxruntime-web + TF.js: a Node script splits on SwiftShader; a Vite
//   build of a page importing the whole API splits in headless Chromium; the docs' blocks run in Node (with and
//   without an adapter) and in Chromium; the minimal example's page runs from the installed package.
// The bundle's sizes are size.test.ts's; the links and file names of the packed Markdown, links.test.ts's.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { serveDir } from '../helpers/serve.js';
import { MINIMAL_OUTPUTS, openMinimal, shown } from '../helpers/minimal-page.js';
import { consumerProject, docBlocks, expectedPrints, must, newest, printed, run, runnable, toJs } from './consumer.js';
import { attentionModels } from '../../scripts/lib/attention.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/package/fixtures');
const LONG = 600_000;
/** Each entry's JavaScript and types, as the build writes them: what the tarball must hold. */
const ENTRIES = [
  ['cleave.js', 'index.d.ts'],
  ['core.js', 'core.d.ts'],
  ['ort.js', 'ort.d.ts'],
  ['tfjs.js', 'tfjs.d.ts'],
] as const;
const BUILT = ENTRIES.flat().map((f) => `dist/${f}`);

const repoPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
let work: string;
let files: string[];
let packedName: string;
let bare: string;
let full: string;

const fixture = (dir: string, ...names: string[]) => {
  for (const n of names) copyFileSync(join(FIXTURES, n), join(dir, n));
};

beforeAll(async () => {
  for (const f of BUILT) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run 'npm run build' first (npm test does)`);
  }
  work = mkdtempSync(join(tmpdir(), 'cleave-consumer-'));
  const [packed] = JSON.parse(
    await must('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT),
  ) as { name: string; filename: string; size: number; files: { path: string }[] }[];
  files = packed!.files.map((f) => f.path).sort();
  packedName = packed!.name;
  console.log(`package: ${packed!.filename}, ${files.length} files, ${(packed!.size / 1000).toFixed(1)} kB packed`);
  const tarball = `file:${join(work, packed!.filename)}`;
  const [ts5, ts6] = await Promise.all([newest('typescript', '5', work), newest('typescript', '6', work)]);
  [bare, full] = await Promise.all([
    consumerProject(join(work, 'bare'), {
      'cleave-gpu': tarball,
      typescript: ts5,
      typescript6: `npm:typescript@${ts6}`,
      // The README's "Use with ONNX Runtime Web" block imports it.
      'onnxruntime-web': repoPkg.devDependencies['onnxruntime-web']!,
      // The README's "Use with TensorFlow.js" block imports these.
      '@tensorflow/tfjs-core': repoPkg.devDependencies['@tensorflow/tfjs-core']!,
      '@tensorflow/tfjs-backend-webgpu': repoPkg.devDependencies['@tensorflow/tfjs-backend-webgpu']!,
    }),
    consumerProject(join(work, 'full'), {
      'cleave-gpu': tarball,
      vite: repoPkg.devDependencies.vite!,
      // The README's "Use with ONNX Runtime Web" and "Use with TensorFlow.js" blocks run in the browser page.
      'onnxruntime-web': repoPkg.devDependencies['onnxruntime-web']!,
      '@tensorflow/tfjs-core': repoPkg.devDependencies['@tensorflow/tfjs-core']!,
      '@tensorflow/tfjs-backend-webgpu': repoPkg.devDependencies['@tensorflow/tfjs-backend-webgpu']!,
      webgpu: repoPkg.devDependencies.webgpu!,
    }),
  ]);
  writeSnippets();
}, LONG);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// What the tarball may hold, and nothing else: the library (each entry's JS, its chunks, the types), what a user reads
// (README, how it works, the guides and the API reference in docs/, the changelog), the minimal example, the licence
// and notices. The contributor guide, the bench and the KV-cache example (which builds its models with the source's
// tools) stay in the source: the packed Markdown names only files inside the tarball (links.test.ts).
const ALLOWED = [
  /^package\.json$/,
  /^LICENSE$/,
  /^(README|ARCHITECTURE|CHANGELOG|THIRD_PARTY_NOTICES)\.md$/,
  /^docs\/[^/]+\.md$/,
  /^docs\/api\/([^/]+\/)?[^/]+\.md$/,
  /^examples\/minimal\/[^/]+$/,
  /^dist\/[^/]+\.js$/,
  /^dist\/([^/]+\/)?[^/]+\.d\.ts$/,
];

test('the tarball holds the library and the docs a user needs, and nothing else', () => {
  expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
  expect(files).toEqual(
    expect.arrayContaining([
      'LICENSE',
      'THIRD_PARTY_NOTICES.md',
      'README.md',
      'ARCHITECTURE.md',
      'docs/README.md',
      'docs/performance.md',
      'docs/api/README.md',
      'CHANGELOG.md',
      ...BUILT,
      ...ENTRIES.map(([, types]) => `dist/ts5/${types}`),
      'examples/minimal/index.html',
      'examples/minimal/main.js',
    ]),
  );
  expect(files).not.toContain('CONTRIBUTING.md');
  expect(files.filter((f) => f.startsWith('examples/kv-cache-decode/'))).toEqual([]);
  // The name the README's install line installs is the name the tarball carries.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  expect(/^npm install (\S+)$/m.exec(readme)?.[1], "the README's install line").toBe(packedName);
  // The README describes the version package.json ships, and the changelog has an entry for it.
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(readme).toContain(`This README describes Cleave ${/^\d+\.\d+/.exec(version)![0]}.`);
  expect(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')).toContain(`## [${version}]`);
  expect(readme.split('\n').length - 1, 'README.md is for users: at most 300 lines').toBeLessThanOrEqual(300);
  // What the consumers installed is this build, not a tarball npm had cached under the same name.
  for (const dir of [bare, full]) {
    expect(
      readFileSync(join(dir, 'node_modules/cleave-gpu/dist/cleave.js')).equals(
        readFileSync(join(ROOT, 'dist/cleave.js')),
      ),
    ).toBe(true);
  }
});

// Each ```ts block of the README and the guides is its own module file (top-level await allowed), compiled
// with the strict consumer tsconfig in fixtures/, as Node (nodenext) and as a bundler resolves it.
// TypeScript 6 is where the WebGPU types move into the DOM lib (see vite.config.ts).
const TSC = { 5: 'typescript', 6: 'typescript6', 7: 'typescript' } as const;
const WRONG_TYPES = [
  [
    /Cannot find name 'GPU/,
    'The WebGPU types are missing: TypeScript < 6 must get dist/ts5/*.d.ts (the `types@<6` export condition), which reference @webgpu/types.',
  ],
  [
    /Duplicate identifier 'GPU/,
    'A .d.ts references @webgpu/types, which TypeScript 6+ already declares in its DOM lib: only dist/ts5/*.d.ts may reference it.',
  ],
] as const;
// Blocks that import TF.js go to their own folder, compiled with skipLibCheck (fixtures/tsconfig.tfjs.json says why).
const snippets = { snippets: 0, 'snippets-tfjs': 0 };
const folderOf = (config: string) => (config.includes('tfjs') ? 'snippets-tfjs' : 'snippets');
function writeSnippets(): void {
  for (const dir of Object.keys(snippets)) mkdirSync(join(bare, dir));
  for (const b of docBlocks(ROOT)) {
    const dir = b.code.includes("from '@tensorflow/") ? 'snippets-tfjs' : 'snippets';
    writeFileSync(join(bare, dir, `${b.name}.ts`), b.code);
    snippets[dir]++;
  }
  // Every entry resolves and typechecks, whatever the docs import.
  writeFileSync(
    join(bare, 'snippets', 'entries.ts'),
    "import type * as cleave from 'cleave-gpu';\nimport type * as core from 'cleave-gpu/core';\n" +
      "import type * as ort from 'cleave-gpu/ort';\nimport type * as tfjs from 'cleave-gpu/tfjs';\n" +
      'export type { cleave, core, ort, tfjs };\n',
  );
  fixture(
    bare,
    'tsconfig.json',
    'tsconfig.bundler.json',
    'tsconfig.tfjs.json',
    'tsconfig.tfjs.bundler.json',
    'tsconfig.flags.json',
    'tsconfig.flags-webgpu.json',
  );
  mkdirSync(join(bare, 'flags'));
  writeFileSync(
    join(bare, 'flags', 'flags.ts'),
    "import type { GpuTensor } from 'cleave-gpu';\nexport type T = GpuTensor;\nexport const usage: number = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC;\n",
  );
}
const COMPILES = ([5, 6, 7] as const).flatMap(
  (v) =>
    [
      [v, 'tsconfig.json'],
      [v, 'tsconfig.bundler.json'],
      [v, 'tsconfig.tfjs.json'],
      [v, 'tsconfig.tfjs.bundler.json'],
    ] as const,
);
test.each(COMPILES)(
  'README and docs/ snippets typecheck: TypeScript %s, %s',
  async (major, config) => {
    const n = snippets[folderOf(config)];
    expect(n, `the docs have no \`\`\`ts block for ${config} to check`).toBeGreaterThan(0);
    const tsc = join(major === 7 ? ROOT : bare, 'node_modules', TSC[major], 'bin/tsc');
    const version = (await must(process.execPath, [tsc, '--version'], bare)).trim();
    expect(version).toMatch(new RegExp(`^Version ${major}\\.`));
    const r = await run(process.execPath, [tsc, '-p', config], bare);
    const hints = WRONG_TYPES.filter(([re]) => re.test(r.stdout))
      .map(([, why]) => `\n${why}`)
      .join('');
    expect(r.code, `${version}, ${config}:\n${r.stdout}${r.stderr}${hints}`).toBe(0);
    console.log(
      `package: ${version} ${config}: ${n} doc snippet(s)${folderOf(config) === 'snippets' ? ' + every entry' : ''} typecheck`,
    );
  },
  LONG,
);

// What docs/setup.md says each TypeScript needs for the WebGPU flag constants (GPUBufferUsage, ...):
// nothing on 5 (Cleave's types reference @webgpu/types); on 6 and 7 the DOM lib lacks them, and
// "types": ["@webgpu/types"] with skipLibCheck adds them.
test.each([5, 6, 7] as const)(
  'GPUBufferUsage: TypeScript %s needs what docs/setup.md says',
  async (major) => {
    const tsc = join(major === 7 ? ROOT : bare, 'node_modules', TSC[major], 'bin/tsc');
    const plain = await run(process.execPath, [tsc, '-p', 'tsconfig.flags.json'], bare);
    const typed = await run(process.execPath, [tsc, '-p', 'tsconfig.flags-webgpu.json'], bare);
    expect(typed.code, typed.stdout).toBe(0);
    if (major === 5) expect(plain.code, plain.stdout).toBe(0);
    else expect(plain.stdout).toContain("Cannot find name 'GPUBufferUsage'");
  },
  LONG,
);

// Every block of the README and the guides that imports only Cleave runs to the end in Node; in the browser, so do
// the ones that import ONNX Runtime Web (with real models and input for what it only declares) and TF.js.
function readmeBlocks(also: readonly string[] = []) {
  const blocks = docBlocks(ROOT).filter((b) => runnable(b.code, also));
  expect(blocks.length, 'the README and docs/ have runnable ```ts blocks').toBeGreaterThanOrEqual(12);
  return blocks;
}
const IN_BROWSER = [
  'onnxruntime-web/webgpu',
  'cleave-gpu/tfjs',
  '@tensorflow/tfjs-core',
  '@tensorflow/tfjs-backend-webgpu',
];

/** What the ORT block declares (modelA: x -> qkv [1, S, 3H], modelB: q, k, v -> y), as files the page loads. */
function ortInputs(dir: string): void {
  const { a, b } = attentionModels(
    { seq: 8, width: 8, hidden: 16, heads: 1 },
    Float32Array.from({ length: 8 * 48 }, (_, i) => (i % 5) - 2),
  );
  mkdirSync(join(dir, 'ort'), { recursive: true });
  writeFileSync(join(dir, 'modelA.onnx'), a);
  writeFileSync(join(dir, 'modelB.onnx'), b);
  const dist = join(full, 'node_modules/onnxruntime-web/dist');
  for (const f of readdirSync(dist).filter((n) => /^ort-wasm-simd-threaded\.(jsep|asyncify)\.(mjs|wasm)$/.test(n)))
    copyFileSync(join(dist, f), join(dir, 'ort', f));
}
const guardedByWebgpu = (code: string) => code.includes("createSplitEngine({ backend: 'webgpu' })");

test(
  'README and docs/ blocks run in Node with an adapter (SwiftShader here)',
  async () => {
    const dir = join(full, 'readme-node');
    mkdirSync(dir, { recursive: true });
    let checked = 0;
    for (const b of readmeBlocks()) {
      const file = join(dir, `${b.name}.mjs`);
      writeFileSync(file, toJs(b.code));
      const r = await run(process.execPath, [file], full);
      expect(r.code, `${b.name}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      // It prints what its comments say it prints.
      for (const want of expectedPrints(b.code)) expect(printed(r.stdout), b.name).toContain(want);
      checked += expectedPrints(b.code).length;
    }
    expect(checked, 'printed values the blocks promise').toBeGreaterThanOrEqual(20);
    console.log(
      `package: ${readmeBlocks().length} README and docs/ blocks run in Node on WebGPU, ${checked} prints checked`,
    );
  },
  LONG,
);

test(
  'README and docs/ blocks in Node without an adapter: run on the CPU, or stop at NO_WEBGPU where they ask for WebGPU',
  async () => {
    const dir = join(full, 'readme-node');
    mkdirSync(dir, { recursive: true });
    for (const b of readmeBlocks()) {
      const file = join(dir, `${b.name}.mjs`);
      writeFileSync(file, toJs(b.code));
      const r = await run(process.execPath, [file], full, { VK_ICD_FILENAMES: undefined });
      const where = `${b.name}:\n${r.stdout}\n${r.stderr}`;
      if (guardedByWebgpu(b.code)) {
        expect(r.code, where).not.toBe(0);
        expect(r.stderr, where).toMatch(
          /SplitError: createSplitEngine: backend 'webgpu' was asked for, but Dawn found no/,
        );
        expect(r.stderr, where).toContain("code: 'NO_WEBGPU'");
      } else {
        expect(r.code, where).toBe(0);
        expect(r.stdout, where).not.toContain('webgpu');
      }
    }
  },
  LONG,
);

test(
  'README and docs/ blocks run in headless Chromium through a Vite build',
  async () => {
    const app = join(full, 'readme-web');
    mkdirSync(join(app, 'snippets'), { recursive: true });
    for (const b of readmeBlocks(IN_BROWSER)) writeFileSync(join(app, 'snippets', `${b.name}.ts`), b.code);
    for (const f of ['index.html', 'main.js', 'inputs.js', 'vite.config.mjs'])
      copyFileSync(join(FIXTURES, 'readme-web', f), join(app, f));
    ortInputs(join(app, 'public'));
    await must(process.execPath, [join(full, 'node_modules/vite/bin/vite.js'), 'build'], app);
    const server = await serveDir(join(app, 'dist'));
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(String(e)));
      await tab.goto(server.url);
      await tab.waitForFunction('window.result !== undefined', { timeout: 120_000 });
      const result = (await tab.evaluate('window.result')) as { name: string; error?: string }[];
      expect(result.map((r) => r.name).sort()).toEqual(
        readmeBlocks(IN_BROWSER)
          .map((b) => `./snippets/${b.name}.ts`)
          .sort(),
      );
      expect(result.filter((r) => r.error)).toEqual([]);
      expect(errors).toEqual([]);
      console.log(`package: ${result.length} README and docs/ blocks run in Chromium (Vite build) on WebGPU`);
    } finally {
      await browser.close();
      await server.close();
    }
  },
  LONG,
);

test(
  'Node with webgpu installed: splits on the adapter (SwiftShader here)',
  async () => {
    fixture(full, 'node-webgpu.mjs');
    const out = await must(process.execPath, ['node-webgpu.mjs'], full);
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as unknown;
    expect(result).toEqual({
      backend: 'webgpu',
      host: [
        { dtype: 'float32', shape: [2, 1], data: [0, 3] },
        { dtype: 'float32', shape: [2, 2], data: [1.5, -2, 4, 5.25] },
      ],
      gpu: [
        { dtype: 'int32', shape: [3], data: [1, -2, 3] },
        { dtype: 'int32', shape: [2], data: [-4, 2147483647] },
      ],
    });
    console.log('package: Node + webgpu: host and GPU-resident splits match');
  },
  LONG,
);

test(
  'Node without webgpu: backend webgpu fails with NO_WEBGPU naming `npm install webgpu`',
  async () => {
    fixture(bare, 'node-no-webgpu.mjs');
    const result = JSON.parse((await must(process.execPath, ['node-no-webgpu.mjs'], bare)).trim()) as {
      code?: string;
      message?: string;
    };
    expect(result).toMatchObject({ name: 'SplitError', code: 'NO_WEBGPU' });
    expect(result.message).toContain('npm install webgpu');
    console.log(`package: Node without webgpu: ${result.code}: ${result.message}`);
  },
  LONG,
);

// Node's `webgpu` is imported by a computed name: a literal import('webgpu') would send browser
// bundlers after a Node-only package (webpack fails when it is not installed), and Vite wraps it in
// its preload helper.
const LITERAL_WEBGPU_IMPORT = /import\(\s*(?:\/\*[^*]*\*\/\s*)*["'`]webgpu["'`]\s*\)/;
test("the shipped JS imports Node's optional webgpu by a computed name", () => {
  const shipped = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(ROOT, f), 'utf8'));
  expect(shipped.join('\n')).toContain('@vite-ignore');
  for (const js of shipped) expect(js).not.toMatch(LITERAL_WEBGPU_IMPORT);
});

// Node 20.19+ and 22.12+ can require() an ES module without top-level await; docs/setup.md names
// the releases that cannot. This Node is one that can.
test(
  "require('cleave-gpu'), require('cleave-gpu/core') and require('cleave-gpu/ort') load the ES module on this Node",
  async () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19)).toBe(true);
    const script =
      "const c = require('cleave-gpu'); const k = require('cleave-gpu/core'); const o = require('cleave-gpu/ort');" +
      'console.log(JSON.stringify([typeof c.createSplitEngine, typeof k.createSplitEngine, typeof o.fromOrtTensor, ' +
      'c.TENSOR_USAGE]))';
    const r = await run(process.execPath, ['-e', script], bare);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual(['function', 'function', 'function', 0x80 | 0x4 | 0x8]);
    console.log(`package: require('cleave-gpu') on Node ${process.versions.node}: loads`);
  },
  LONG,
);

test(
  'a Vite build of the whole API splits in headless Chromium',
  async () => {
    fixture(full, 'index.html', 'main.js');
    await must(process.execPath, [join(full, 'node_modules/vite/bin/vite.js'), 'build'], full);
    const dist = join(full, 'dist');
    for (const f of readdirSync(join(dist, 'assets')).filter((n) => n.endsWith('.js')))
      expect(readFileSync(join(dist, 'assets', f), 'utf8')).not.toMatch(LITERAL_WEBGPU_IMPORT);
    const server = await serveDir(dist);
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('pageerror', (e) => errors.push(String(e)));
      await tab.goto(server.url);
      await tab.waitForFunction('window.result !== undefined', { timeout: 60_000 });
      expect(await tab.evaluate('window.result')).toEqual({
        backend: 'webgpu',
        outs: [
          { shape: [2, 2], data: [0, 1, 3, 4] },
          { shape: [2, 1], data: [2, 5] },
        ],
      });
      expect(errors).toEqual([]);
      console.log('package: Vite build in Chromium: split on WebGPU matches');
    } finally {
      await browser.close();
      await server.close();
    }
  },
  LONG,
);

// The minimal example reaches dist/ by a relative path: served from the installed package's folder, as from the
// repository's root (the browser tier's test), its page splits and shows the outputs.
test(
  "the minimal example's page runs from the installed package in headless Chromium",
  async () => {
    const page = await openMinimal({ root: join(full, 'node_modules/cleave-gpu') });
    try {
      expect(await shown(page)).toBe(MINIMAL_OUTPUTS);
      expect(await page.problems()).toEqual([]);
      console.log('package: examples/minimal/ from node_modules/cleave-gpu/ in Chromium: the outputs shown match');
    } finally {
      await page.close();
    }
  },
  LONG,
);
