// The conformance suite (test/conformance/) on wgpu: the built bundle in Deno, whose navigator.gpu
// is wgpu with naga compiling the WGSL, on the same Vulkan ICD as the Dawn tier. One child runs
// every case (prepared splits among them); each case here is a test of its own, matched by name to
// the child's result, so a failure names the case. No Deno, no bundle, no adapter or a crash fails the tier.
import { beforeAll, describe, expect, test } from 'vitest';
import { SHADER_VARIANTS } from '../../src/gpu/pipelines.js';
import { conformanceCases } from '../conformance/cases.js';
import type { CaseResult } from '../conformance/suite.js';
import { type DenoRun, runDeno } from './deno.js';

const cases = conformanceCases();
let run: DenoRun;

beforeAll(async () => {
  run = await runDeno();
}, 300_000);

const results = () => run.report.results ?? [];
const resultOf = (name: string): CaseResult | undefined => results().find((r) => r.name === name);

test("Deno ran it on wgpu: navigator.gpu's adapter (the ICD's), Cleave's own device, no fallback", () => {
  expect(run.report.fatal, 'the run stopped before its cases').toBeUndefined();
  expect(run.report.runtime).toMatch(/^Deno\//);
  const facts = run.report.facts!;
  expect(facts.cleave.backend).toBe('webgpu');
  expect(facts.cleave.adapterInfo).toEqual({
    vendor: facts.adapter.info.vendor,
    architecture: facts.adapter.info.architecture,
  });
  if (/swiftshader/i.test(process.env.VK_ICD_FILENAMES ?? ''))
    expect(facts.adapter.info.description).toMatch(/SwiftShader/);
});

test('every case ran, in the generated order: a control first, 500 or more', () => {
  expect(results().map((r) => r.name)).toEqual(cases.map((c) => c.name));
  expect(cases[0]!.family).toBe('control');
  expect(results().length).toBeGreaterThanOrEqual(500);
});

test("naga compiled every shader variant (3 word widths, 2 bit orders); the override's uint1 cases are exact", () => {
  expect(run.report.pipelinesCreated).toBe(SHADER_VARIANTS);
  // uint1 is the MSB-first variant, whose bit order is the pipeline constant MSB_FIRST.
  const uint1 = results().filter((r) => r.name.includes(' uint1 ') && r.stats?.unitBits === 1);
  expect(uint1.length).toBeGreaterThan(10);
  expect(uint1.filter((r) => !r.ok).map((r) => r.name)).toEqual([]);
});

// Each 'offsets' case ends with its input at byte 0 of a caller's buffer: views where it asks, else its strategy.
test('prepared splits: a word, a byte, a packed type; copies, gather, views; split and encoded; all exact', () => {
  const prepared = cases.filter((c) => c.prepared);
  expect(new Set(prepared.map((c) => c.dtype))).toEqual(new Set(['float32', 'uint8', 'int4']));
  expect(new Set(prepared.map((c) => `${c.prepared} ${c.call}`)).size).toBe(5);
  expect(prepared.filter((c) => !resultOf(c.name)?.ok).map((c) => c.name)).toEqual([]);
  const last = prepared
    .filter((c) => c.prepared === 'offsets')
    .map((c) => [resultOf(c.name)?.stats?.strategy, c.place === 'alias-any' ? 'alias' : c.strategy]);
  expect(last.length).toBe(18);
  for (const [got, want] of last) expect(got).toBe(want);
});

describe('cases', () => {
  for (const c of cases) {
    test(c.name, () => {
      const r = resultOf(c.name);
      expect(r, 'the child ran this case').toBeDefined();
      expect(r!.problem ?? 'exact, by GPU work', JSON.stringify(r!.stats)).toBe('exact, by GPU work');
      expect(['alias', 'copy', 'gather']).toContain(r!.stats?.strategy);
      if (c.unitBits) expect(r!.stats?.unitBits).toBe(c.unitBits);
    });
  }
});
