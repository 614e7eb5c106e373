// Where wgpu (Deno) and Dawn (Node) differ, each difference named by a test, and how Cleave takes
// it: the same facts (test/conformance/facts.ts) gathered in a Deno child on the built bundle and
// here on src/ with Dawn, on the same Vulkan ICD. A limit Cleave raises that an implementation
// lacks, a feature it would need, a shader message, or a run that finds no adapter fails here
// loudly; nothing falls back in silence.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as cleave from '../../src/index.js';
import { gpuEntry } from '../../src/gpu/device.js';
import { type Facts, gatherFacts } from '../conformance/facts.js';
import { type Harness, openHarness } from '../conformance/suite.js';
import { runDeno } from './deno.js';
import { RAISED_LIMITS } from '../helpers/webgpu-differences.js';

const SHADER = readFileSync(resolve(import.meta.dirname, '../../shaders/split-gather.wgsl'), 'utf8');
const MiB = 1 << 20;

let wgpu: Facts;
let dawn: Facts;
let harness: Harness | undefined;

beforeAll(async () => {
  const child = await runDeno(['--facts']);
  expect(child.report.fatal, 'the Deno run').toBeUndefined();
  wgpu = child.report.facts!;
  harness = await openHarness(cleave);
  const gpu = await gpuEntry();
  if (typeof gpu === 'string') throw new Error(gpu);
  dawn = await gatherFacts(gpu, harness.first, SHADER);
}, 120_000);
afterAll(() => harness?.close());

const both = () =>
  [
    ['wgpu', wgpu],
    ['Dawn', dawn],
  ] as const;

test('the runtimes: Deno (wgpu) and Node (Dawn)', () => {
  expect(wgpu.runtime).toMatch(/^Deno\//);
  expect(dawn.runtime).toMatch(/^Node\//);
});

// wgpu: vendor '6880' (Google's PCI id), architecture ''; Dawn: 'google', 'swiftshader' (SwiftShader here).
test('adapter info: wgpu gives a PCI vendor id and no architecture, Dawn names both; Cleave passes them on', () => {
  expect(wgpu.adapter.info.architecture).toBe('');
  expect(wgpu.adapter.info.vendor).toMatch(/^\d+$/);
  expect(dawn.adapter.info.architecture).not.toBe('');
  expect(dawn.adapter.info.vendor).not.toMatch(/^\d+$/);
  for (const [name, f] of both())
    expect(f.cleave.adapterInfo, name).toEqual({
      vendor: f.adapter.info.vendor,
      architecture: f.adapter.info.architecture,
    });
});

// SwiftShader here: 10 under wgpu, 12 under Dawn (the default is 8).
test('maxStorageBuffersPerShaderStage: wgpu offers fewer than Dawn; Cleave binds 3, its device has them all', () => {
  const k = 'maxStorageBuffersPerShaderStage';
  expect(wgpu.adapter.limits[k]).toBeLessThan(dawn.adapter.limits[k]!);
  for (const [name, f] of both()) {
    expect(f.cleave.limits[k], name).toBe(f.adapter.limits[k]);
    expect(f.cleave.limits[k], name).toBeGreaterThanOrEqual(3);
  }
});

test("the limits Cleave raises: in both adapters' limits, on Cleave's device at the adapter's value", () => {
  for (const [name, f] of both()) {
    for (const k of RAISED_LIMITS) {
      expect(typeof f.adapter.limits[k], `${name} ${k}`).toBe('number');
      expect(f.cleave.limits[k], `${name} ${k}`).toBe(f.adapter.limits[k]);
    }
    expect([f.defaultLimits.maxStorageBufferBindingSize, f.defaultLimits.maxBufferSize], name).toEqual([
      128 * MiB,
      256 * MiB,
    ]);
    expect(f.cleave.limits.maxStorageBufferBindingSize, name).toBeGreaterThan(128 * MiB);
  }
});

test('what the shader and the planner assume fits both: 256-lane workgroups, grids folded past a dimension', () => {
  for (const [name, f] of both()) {
    expect(f.cleave.limits.maxComputeInvocationsPerWorkgroup, name).toBeGreaterThanOrEqual(256);
    expect(f.cleave.limits.maxComputeWorkgroupSizeX, name).toBeGreaterThanOrEqual(256);
    // The grid case (65,536 workgroups) must fold: a dimension holds fewer.
    expect(f.cleave.limits.maxComputeWorkgroupsPerDimension, name).toBeLessThan(65_536);
  }
});

test('features: no shader-f16 in either, subgroups in Dawn only; Cleave asks for what is offered, enables none', () => {
  for (const [name, f] of both()) {
    expect(f.adapter.features, name).not.toContain('shader-f16');
    const wanted = ['shader-f16', 'timestamp-query'];
    expect(
      f.cleave.features.filter((x) => wanted.includes(x)),
      name,
    ).toEqual(f.adapter.features.filter((x) => wanted.includes(x)));
  }
  expect(dawn.adapter.features).toContain('subgroups');
  expect(wgpu.adapter.features).not.toContain('subgroups');
  expect(SHADER).not.toMatch(/^\s*enable\s/m);
});

// The constructs a compiler might refuse: an override constant, bindings shared by the two entry points.
test('the shader compiles without a message under naga (wgpu) and under Tint (Dawn)', () => {
  for (const [name, f] of both()) expect(f.shaderMessages, name).toEqual([]);
  expect(SHADER).toMatch(/^override MSB_FIRST/m);
});

test("timestamp-query: both offer it and write a compute pass's start and end (the calibration's clock)", () => {
  for (const [name, f] of both()) {
    expect(Array.isArray(f.timestamps), `${name}: ${String(f.timestamps)}`).toBe(true);
    const [t0, t1] = (f.timestamps as string[]).map(BigInt);
    expect(t0! > 0n && t1! >= t0!, `${name}: ${String(f.timestamps)}`).toBe(true);
  }
});

test('no adapter: wgpu on Vulkan with no driver has none; Cleave refuses, naming navigator.gpu, not Dawn', async () => {
  const { report } = await runDeno(['--facts'], { VK_ICD_FILENAMES: '/nonexistent/icd.json' });
  expect(report.facts).toBeUndefined();
  expect(report.fatal).toMatch(/^SplitError: createSplitEngine: backend 'webgpu' was asked for, but navigator\.gpu/);
  expect(report.fatal).not.toMatch(/Dawn/);
});

// Why runDeno pins wgpu to Vulkan: without a Vulkan driver, wgpu takes Mesa's llvmpipe through OpenGL.
test('unpinned, wgpu looks past Vulkan (llvmpipe through OpenGL) where Dawn finds no adapter', async () => {
  const env = { VK_ICD_FILENAMES: '/nonexistent/icd.json', DENO_WEBGPU_BACKEND: undefined };
  const { report } = await runDeno(['--facts'], env);
  expect(report.fatal).toBeUndefined();
  expect(report.facts!.adapter.info.description).toMatch(/llvmpipe/);
  const probe =
    "import { create } from 'webgpu'; console.log(String(await create([]).requestAdapter())); process.exit(0);";
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe], {
    env: { ...process.env, VK_ICD_FILENAMES: env.VK_ICD_FILENAMES },
  });
  expect(stdout.trim()).toBe('null');
});
