// The conformance suite's runner, written once for every WebGPU implementation: it takes the
// Cleave module under test (src/ under vitest, the built dist/cleave.js under Deno), lets that
// module find its own device (Dawn's `webgpu` package in Node, `navigator.gpu` in Deno), and runs
// each case inside validation and out-of-memory error scopes, returning one result per case.
// Nothing here imports vitest, or Cleave at run time.

import type { SplitEngine, SplitStats, createSplitEngine, hostDataFromBytes } from '../../src/index.js';
import type { ConformanceCase } from './cases.js';
import { checkCase } from './check-case.js';
import { checkPrepared } from './check-prepared.js';

/** What the suite needs of the Cleave module under test. */
export interface Cleave {
  readonly createSplitEngine: typeof createSplitEngine;
  readonly hostDataFromBytes: typeof hostDataFromBytes;
}

export interface Harness {
  readonly cleave: Cleave;
  readonly device: GPUDevice;
  /** The engine Cleave made with its own device (it owns it). */
  readonly first: SplitEngine;
  /** An engine on that device that forces `strategy` ('auto': the first engine). */
  engine(strategy: ConformanceCase['strategy']): Promise<SplitEngine>;
  /** Destroys every engine, the device-owning one last. */
  close(): void;
}

export interface CaseResult {
  readonly name: string;
  readonly ok: boolean;
  /** The first thing wrong: a mismatch (index, got, want), a GPU error, a missing GPU work, a throw. */
  readonly problem?: string;
  /** What the engine reported for the case's last split. */
  readonly stats?: Pick<SplitStats, 'strategy' | 'unitBits' | 'dispatches' | 'copies'>;
  readonly ms: number;
}

/**
 * An engine made the way an application makes one (`backend: 'webgpu'`: no adapter is an error,
 * never a CPU fallback), its costs measured before the first case so no plan changes midway.
 */
export async function openHarness(cleave: Cleave): Promise<Harness> {
  const first = await cleave.createSplitEngine({ backend: 'webgpu' });
  const device = first.device;
  if (!device) throw new Error(`a 'webgpu' engine came without a device (backend ${first.backend})`);
  await first.calibrate();
  const engines = new Map<string, Promise<SplitEngine>>([['auto', Promise.resolve(first)]]);
  return {
    cleave,
    device,
    first,
    engine(strategy) {
      let e = engines.get(strategy);
      if (!e) engines.set(strategy, (e = cleave.createSplitEngine({ device, strategy })));
      return e;
    },
    close() {
      for (const [strategy, e] of engines) if (strategy !== 'auto') void e.then((x) => x.destroy());
      void engines.get('auto')!.then((x) => x.destroy());
    },
  };
}

/** Runs one case: any GPU error in its scopes, any throw, any mismatch makes it fail, with the reason. */
export async function runCase(h: Harness, c: ConformanceCase): Promise<CaseResult> {
  const t0 = performance.now();
  h.device.pushErrorScope('validation');
  h.device.pushErrorScope('out-of-memory');
  let outcome: Awaited<ReturnType<typeof checkCase>> | undefined;
  let thrown: string | undefined;
  try {
    outcome = await (c.prepared ? checkPrepared(h, c) : checkCase(h, c));
  } catch (e) {
    thrown = `threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
  }
  const oom = await h.device.popErrorScope();
  const validation = await h.device.popErrorScope();
  const problem =
    thrown ??
    (validation && `GPU validation error: ${validation.message}`) ??
    (oom && `GPU out-of-memory error: ${oom.message}`) ??
    outcome?.problem;
  const ms = Math.round((performance.now() - t0) * 10) / 10;
  const stats = outcome?.stats;
  return { name: c.name, ok: problem === undefined, ...(problem !== undefined && { problem }), stats, ms };
}

/** Every case, one after another (a GPU error is then the case's own). */
export async function runSuite(h: Harness, cases: readonly ConformanceCase[]): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of cases) out.push(await runCase(h, c));
  return out;
}

/** What a run of the suite in a child runtime prints, as one JSON line. */
export interface RunReport {
  /** navigator.userAgent: 'Deno/…' under Deno. */
  readonly runtime: string;
  /** Why the run stopped before its cases (no adapter, the bundle failed to load, …). */
  readonly fatal?: string;
  readonly facts?: import('./facts.js').Facts;
  readonly results?: readonly CaseResult[];
  /** Pipelines Cleave compiled on the device over the whole run (every shader variant: SHADER_VARIANTS). */
  readonly pipelinesCreated?: number;
  /** Wall time of the cases, in ms. */
  readonly ms?: number;
}
