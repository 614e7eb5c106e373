// A newcomer's first ten minutes, from the packed tarball: a fresh Node project installs Cleave
// (and `webgpu`, as the README says), then does each first task in its own Node process: a host
// split, a GPU-resident split, a split of a GPUBuffer it made, a packed-type split. Each must
// finish, from install to result, in under a minute here (2 shared CPUs, SwiftShader). Then the
// five most common first mistakes, each of whose messages must name its fix; the README's error table
// must quote each fix as these messages give it.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { consumerProject, errorTable, must } from './consumer.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/package/fixtures');
const MINUTE = 60_000;
const LONG = 600_000;

let work: string;
let withWebgpu: string;
let withoutWebgpu: string;
const installMs: Record<string, number> = {};
/** Every refusal the steps met, for the README's error table. */
const met: { code: string; message: string }[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/cleave.js'))) throw new Error("dist/ is missing: run 'npm run build' first");
  work = mkdtempSync(join(tmpdir(), 'cleave-newcomer-'));
  const [packed] = JSON.parse(
    await must('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT),
  ) as { filename: string }[];
  const tarball = `file:${join(work, packed!.filename)}`;
  const webgpu = (JSON.parse(await must('npm', ['pkg', 'get', 'devDependencies.webgpu'], ROOT)) as string) || '*';
  const timed = async (name: string, deps: Record<string, string>) => {
    const start = performance.now();
    const dir = await consumerProject(join(work, name), deps);
    installMs[name] = performance.now() - start;
    return dir;
  };
  // One after the other, as a newcomer would, so each install is timed alone.
  withWebgpu = await timed('app', { 'cleave-gpu': tarball, webgpu });
  withoutWebgpu = await timed('app-no-webgpu', { 'cleave-gpu': tarball });
  for (const f of ['host', 'gpu', 'buffer', 'packed', 'mistakes'])
    copyFileSync(join(FIXTURES, 'newcomer', `${f}.mjs`), join(withWebgpu, `${f}.mjs`));
  copyFileSync(join(FIXTURES, 'node-no-webgpu.mjs'), join(withoutWebgpu, 'node-no-webgpu.mjs'));
  copyFileSync(join(FIXTURES, 'newcomer', 'cpu-engine.mjs'), join(withoutWebgpu, 'cpu-engine.mjs'));
}, LONG);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs one step's script in the project and returns its JSON, timing install + run. */
async function step(name: string, script: string, dir = withWebgpu, args: string[] = []): Promise<unknown> {
  const start = performance.now();
  const out = await must(process.execPath, [script, ...args], dir);
  const ms = performance.now() - start;
  const install = installMs[dir === withWebgpu ? 'app' : 'app-no-webgpu']!;
  console.log(
    `newcomer: ${name}: ${(ms / 1000).toFixed(2)} s to run, ${((install + ms) / 1000).toFixed(1)} s with the install`,
  );
  expect(install + ms, `${name}: install and run in under a minute`).toBeLessThan(MINUTE);
  return JSON.parse(out.trim().split('\n').at(-1)!) as unknown;
}

test(
  'a host split',
  async () => {
    expect(await step('host split', 'host.mjs')).toEqual({
      backend: 'webgpu',
      outs: [
        { shape: [2, 2], data: [0, 1, 10, 11] },
        { shape: [2, 4], data: [2, 3, 4, 5, 12, 13, 14, 15] },
      ],
    });
  },
  LONG,
);

test(
  'a GPU-resident split',
  async () => {
    expect(await step('GPU-resident split', 'gpu.mjs')).toEqual({
      backend: 'webgpu',
      outs: [
        { shape: [3, 1], data: [0, 4, 8] },
        { shape: [3, 3], data: [1, 2, 3, 5, 6, 7, 9, 10, 11] },
      ],
      live: expect.any(Number) as number,
    });
  },
  LONG,
);

test(
  "a split of the user's own GPUBuffer, and a buffer without STORAGE refused whatever the plan",
  async () => {
    const r = (await step('GPUBuffer split', 'buffer.mjs')) as { results: unknown[]; refused: string[] };
    expect(r.results).toEqual([
      { strategy: 'copy', shape: [4, 4], head: [0, 1, 2, 3] },
      { strategy: 'gather', shape: [8, 1], head: [0, 4, 8, 12] },
    ]);
    expect(r.refused).toHaveLength(2);
    for (const m of r.refused)
      expect(m).toMatch(/^BAD_INPUT: split: the input's GPU buffer needs usage STORAGE: .*TENSOR_USAGE/);
    met.push(...r.refused.map((m) => ({ code: 'BAD_INPUT', message: m.slice('BAD_INPUT: '.length) })));
  },
  LONG,
);

test(
  'a packed-type split',
  async () => {
    expect(await step('packed split', 'packed.mjs')).toEqual({
      unitBits: 1,
      outs: [
        { values: [1, 2, 3], bytes: [0x21, 0x03] },
        { values: [4, 5, 6, 7], bytes: [0x54, 0x76] },
      ],
    });
  },
  LONG,
);

test(
  'the five common first mistakes: each message names the fix',
  async () => {
    const made = (await step('mistakes', 'mistakes.mjs')) as { name: string; code: string; message: string }[];
    const fixes: Record<string, [string, RegExp]> = {
      'wrong typed array': [
        'DATA_TYPE',
        /needs data as Float32Array, got Float64Array: convert it, e\.g\. Float32Array\.from\(data\)/,
      ],
      'plain number array': [
        'DATA_TYPE',
        /needs data as Float32Array, got \[1, 2, 3, 4\]: convert it, e\.g\. Float32Array\.from\(data\)/,
      ],
      'forgotten await': ['BAD_INPUT', /got a Promise: an `await` is missing/],
      'released tensor': ['RELEASED', /was released .*; release a tensor after its last use/],
    };
    expect(made.map((m) => m.name)).toEqual(Object.keys(fixes));
    for (const m of made) {
      const [code, fix] = fixes[m.name]!;
      expect(m, m.name).toMatchObject({ code, message: expect.stringMatching(fix) as string });
    }
    const noWebgpu = (await step('backend webgpu without the webgpu package', 'node-no-webgpu.mjs', withoutWebgpu)) as {
      code: string;
      message: string;
    };
    expect(noWebgpu).toMatchObject({
      code: 'NO_WEBGPU',
      message: expect.stringContaining('npm install webgpu') as string,
    });
    // And the mistake behind the first: a GPU call on an engine that fell back to the CPU says why.
    const cpu = (await step('a GPU call on a CPU engine', 'cpu-engine.mjs', withoutWebgpu)) as typeof noWebgpu;
    expect(cpu).toMatchObject({
      code: 'WRONG_BACKEND',
      message: expect.stringMatching(
        /no GPU device \(Node has no WebGPU without .*npm install webgpu\); check engine\.backend/,
      ) as string,
    });
    for (const m of [...made, noWebgpu, cpu]) console.log(`newcomer: ${m.code}: ${m.message}`);
    met.push(...made, noWebgpu, cpu);
  },
  LONG,
);

// Run after the steps above, which meet every mistake of the table.
test("the README's error table quotes each fix as the message of its mistake gives it", () => {
  const rows = errorTable(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  expect(rows.map((r) => r.code)).toEqual(
    expect.arrayContaining(['DATA_TYPE', 'BAD_INPUT', 'RELEASED', 'NO_WEBGPU', 'WRONG_BACKEND']),
  );
  const misquoted = rows.flatMap(({ code, fixes }) =>
    fixes
      .filter((fix) => !met.some((m) => m.code === code && m.message.includes(fix)))
      .map((fix) => ({ code, fix, messages: met.filter((m) => m.code === code).map((m) => m.message) })),
  );
  expect(misquoted).toEqual([]);
  expect(rows.every((r) => r.fixes.length > 0)).toBe(true);
});
