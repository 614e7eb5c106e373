// The pipeline section's work: ONNX Runtime Web (loaded only when asked: its wasm is large) runs the
// 12-head attention case three ways on this browser's WebGPU adapter: the whole graph on its
// WebGPU EP (whose Split into 36 may fail, and then its error is kept word for word); ORT A ->
// Cleave -> ORT B on one device, as the README shows it; and the whole graph on ORT's CPU EP. Every
// y is compared bit for bit with the CPU EP's and with the reference computed in doubles at build
// time, and each way that runs is timed.

import type { InferenceSession, Tensor } from 'onnxruntime-web';
import { type EngineStats, type SplitEngine, createSplitEngine } from '../src/index.js';
import { fromOrtTensor, toOrtTensor } from '../src/ort.js';
import { type Timing, timePerRun } from './measure.js';
import type { BenchPipeline } from '../bench/types.js';

type Ort = typeof import('onnxruntime-web');

/**
 * What the section reads from pipeline/case.json (written by pipeline-files.ts): the bench's case,
 * x [1, seq, width] -> qkv [1, seq, 3 × hidden] -> y [1, seq, hidden], B's inputs in the split's
 * order, and its files as paths relative to the page.
 */
export type PipelineCase = Pick<BenchPipeline, 'id' | 'seq' | 'width' | 'hidden' | 'heads' | 'names' | 'files'>;

/** How one way of running the model went: its time and bits, or the error that stopped it. */
export type WayResult = { readonly time: Timing; readonly y: Uint32Array } | { readonly error: string };

export interface PipelineOutcome {
  /** ONNX Runtime Web's version. */
  readonly ort: string;
  readonly whole: WayResult;
  readonly viaCleave: WayResult;
  /** Cleave's split alone, per call, inside the pipeline's runs; what it did on the GPU. */
  readonly split?: { readonly time: Timing; readonly stats: EngineStats };
  readonly cpu: WayResult;
  readonly ref: Uint32Array;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function bytes(path: string): Promise<ArrayBuffer> {
  const r = await fetch(new URL(path, document.baseURI));
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.arrayBuffer();
}

const bitsOf = (t: Tensor) => {
  const f = t.data as Float32Array;
  return new Uint32Array(f.buffer, f.byteOffset, f.length).slice();
};

/**
 * Prepares a way (its sessions), runs it once for its bits, then times it; an error at any point
 * stops this way only, and is kept word for word.
 */
async function way(prepare: () => Promise<() => Promise<Tensor>>): Promise<WayResult> {
  try {
    const once = await prepare();
    const y = bitsOf(await once());
    const time = await timePerRun(async (k) => {
      for (let i = 0; i < k; i++) await once();
    });
    return { time, y };
  } catch (e) {
    return { error: message(e) };
  }
}

/** What every way shares: ORT, the engine and its device, the case, its input, the sessions to release. */
interface Context {
  readonly ort: Ort;
  readonly engine: SplitEngine;
  readonly c: PipelineCase;
  readonly x: Tensor;
  readonly sessions: InferenceSession[];
}

/** A session on the engine's device ('webgpu') or on ORT's CPU EP ('wasm'); `gpuOut` leaves its outputs on the GPU. */
async function open(
  ctx: Context,
  model: ArrayBuffer,
  ep: 'webgpu' | 'wasm',
  gpuOut = false,
): Promise<InferenceSession> {
  const s = await ctx.ort.InferenceSession.create(new Uint8Array(model), {
    executionProviders: ep === 'webgpu' ? [{ name: 'webgpu', device: ctx.engine.device! }] : ['wasm'],
    ...(gpuOut ? { preferredOutputLocation: 'gpu-buffer' as const } : {}),
  });
  ctx.sessions.push(s);
  return s;
}

/** ORT's whole graph, with its own Split, on one EP. */
const wholeGraph = (ctx: Context, model: ArrayBuffer, ep: 'webgpu' | 'wasm') =>
  way(async () => {
    const s = await open(ctx, model, ep);
    return async () => (await s.run({ x: ctx.x }))['y']!;
  });

/**
 * ORT A (its output qkv left on the GPU) -> Cleave splits qkv into its parts, each in a buffer of
 * its own (ORT takes whole buffers) -> ORT B. Each split call is timed on its own as well.
 */
async function throughCleave(
  ctx: Context,
  a: ArrayBuffer,
  b: ArrayBuffer,
): Promise<Pick<PipelineOutcome, 'viaCleave' | 'split'>> {
  const { ort, engine, c } = ctx;
  const splits: number[] = [];
  let stats: EngineStats | undefined;
  const viaCleave = await way(async () => {
    // ORT 1.30 refuses to create a WebGPU session while another is being created: one at a time.
    const sa = await open(ctx, a, 'webgpu', true);
    const sb = await open(ctx, b, 'webgpu');
    return async () => {
      const { qkv } = await sa.run({ x: ctx.x });
      const t0 = performance.now();
      const parts = await engine.split(fromOrtTensor(qkv!), { axis: -1, parts: c.names.length, layout: 'separate' });
      splits.push(performance.now() - t0);
      stats ??= engine.stats;
      qkv!.dispose(); // Cleave copied it: ORT may reuse its buffer
      const { y } = await sb.run(Object.fromEntries(c.names.map((n, i) => [n, toOrtTensor(ort, parts[i]!)])));
      for (const p of parts) engine.release(p);
      return y!;
    };
  });
  // The first call compiles the gather shader: left out of the median.
  return { viaCleave, ...(stats ? { split: { time: medianOf(splits.slice(1)), stats } } : {}) };
}

/** The three ways, one after another; `step` says what is happening, for the page's status line. */
export async function runPipeline(c: PipelineCase, step: (what: string) => void): Promise<PipelineOutcome> {
  step('loading ONNX Runtime Web and the models');
  const [ort, a, b, whole, x, ref] = await Promise.all([
    import('onnxruntime-web/webgpu') as Promise<Ort>,
    ...[c.files.a, c.files.b, c.files.whole, c.files.x, c.files.ref].map(bytes),
  ]);
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  // The README's recipe: the engine finds the device (with the limits ORT asks for on its own) and
  // every session runs on it, so tensors pass between them without a copy and the device outlives them.
  const engine = await createSplitEngine({ backend: 'webgpu' });
  const ctx: Context = {
    ort,
    engine,
    c,
    x: new ort.Tensor('float32', new Float32Array(x), [1, c.seq, c.width]),
    sessions: [],
  };
  try {
    step("running the whole graph on ORT's WebGPU EP");
    const wholeGpu = await wholeGraph(ctx, whole, 'webgpu');
    step('running ORT A → Cleave → ORT B');
    const viaCleave = await throughCleave(ctx, a, b);
    step("running the whole graph on ORT's CPU EP");
    const cpu = await wholeGraph(ctx, whole, 'wasm');
    return { ort: ort.env.versions.web ?? '?', whole: wholeGpu, ...viaCleave, cpu, ref: new Uint32Array(ref) };
  } finally {
    for (const s of ctx.sessions) await s.release();
    engine.destroy();
  }
}

/** The median of calls timed one by one. */
function medianOf(ms: number[]): Timing {
  const sorted = [...ms].sort((p, q) => p - q);
  return { ms: sorted[sorted.length >> 1] ?? NaN, runs: sorted.length };
}
