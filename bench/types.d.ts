// The shapes the bench passes between the driver (Node), the page (Chromium) and the report, and
// writes to bench/results/*.json. Types only: the bench is plain JavaScript that tsc checks
// against these (checkJs, `npm run typecheck`).

import type { DType, FixedDType, GpuTensor, HostTensor, SplitEngine } from '../src/index.js';

export type SystemKey = 'cleave-gpu' | 'cleave-host' | 'ort-gpu' | 'ort-host' | 'copy-limit' | 'shader-limit' | 'cleave-cpu';

/** One entry of bench/cases.mjs (its fields are documented there). */
export interface CaseSpec {
  readonly id: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly parts?: number;
  readonly sizes?: readonly number[];
  readonly op?: 'Split' | 'SplitToSequence';
  readonly cold?: boolean;
  readonly strategy?: 'alias' | 'copy' | 'gather';
  readonly tiny?: boolean;
  readonly quick?: boolean;
  readonly sameBytesAs?: readonly string[];
  readonly sameElementsAs?: string;
  readonly scopeCost?: boolean;
  readonly note?: string;
}

/** A case resolved by bench/lib/cases.mjs: what the page runs and the report reads. */
export interface BenchCase extends CaseSpec {
  readonly axis: number;
  readonly sizes: readonly number[];
  readonly op: 'Split' | 'SplitToSequence';
  readonly outputs: number;
  readonly numel: number;
  /** The input's bytes (packed types: ceil(numel * bits / 8)). */
  readonly bytes: number;
  /** Each chunk is one run of the input (every dimension before the axis is 1). */
  readonly contiguous: boolean;
  /** Served at /model/<model>; absent when ONNX Runtime cannot run the case (see ortSkip). */
  readonly model?: string;
  readonly ortSkip?: string;
}

export interface Settings {
  budgetMs: number; minReps: number; maxReps: number; batchMs: number; warmupMs: number; warmupIters: number;
  maxBatch: number; maxLiveBytes: number; coldReps: number; scopeLoops: number; scopeReps: number;
}

export interface Summary { median: number; min: number; max: number; n: number }

export interface CallCounts {
  submits: number; commandBuffers: number; copies: number; dispatches: number; passes: number;
  buffersCreated: number; bindGroups: number; writeBuffers: number; mapAsyncs: number;
}

/** Cleave's engine.stats after one split, with the pipelines its engine had compiled. */
export interface PlanStats {
  strategy: string; unitBits: number; dispatches: number; copies: number; commands: number; pipelines: number;
}

export interface SystemResult {
  ok: boolean;
  verified: boolean;
  error?: string | undefined;
  skip?: string | undefined;
  webgpuError?: string | undefined;
  fallback?: 'cpu-ep' | undefined;
  /** ms per split. */
  wall?: Summary | undefined;
  /** ms of GPU time per split (timestamp queries). */
  gpu?: Summary | undefined;
  batch?: number | undefined;
  calls?: CallCounts | undefined;
  stats?: PlanStats | undefined;
  /** Cold cases: the first rep's time. */
  first?: number | undefined;
}

/** µs per loop iteration of an empty submit, with and without Cleave's per-split error-scope pair. */
export interface ScopeCost {
  loops: number;
  withScopesUs: Summary;
  withoutScopesUs: Summary;
}

export interface CaseResult {
  id: string;
  systems: Partial<Record<SystemKey, SystemResult>>;
  notes: string[];
  reps?: number;
  cpuPathError?: string | undefined;
  crashed?: string;
  gpuErrors?: string[];
  deviceLost?: string | undefined;
  pipelinesSoFar?: number;
  seconds?: number;
  errorScopes?: ScopeCost | undefined;
}

export interface CaseRecord extends CaseResult { case: BenchCase }

export interface PageEnv {
  userAgent: string;
  crossOriginIsolated: boolean;
  adapter: { vendor?: string; architecture?: string; description?: string; device?: string };
  features: string[];
  limits: Record<string, number>;
  ort: Record<string, string | undefined>;
  cleaveBackend: string;
  timestampQuery: boolean;
  timestampFloorUs?: number | undefined;
  copyKernelWorkgroup: number;
}

export interface FinalState {
  cleavePipelines: number;
  devicePipelines: number;
  liveBuffers: number;
  gpuErrors: string[];
  deviceLost?: string | undefined;
}

/** A target of issue 4: reported, never asserted. met null: not measured in this run. */
export interface Target {
  id: string; name: string; goal: string; value: string; met: boolean | null; ratio?: number | undefined; details: string[];
}

export interface Report {
  startedAt: string; finishedAt: string; seconds: number; command: string; quick: boolean; filter?: string | undefined;
  settings: Settings;
  machine: { node: string; platform: string; cpus: number; cpuModel?: string | undefined; loadavg: number[] };
  env?: PageEnv | undefined;
  final?: FinalState | undefined;
  targets: Target[];
  results: CaseRecord[];
}

export interface BenchApi {
  init(o: { ortThreads: number }): Promise<PageEnv>;
  runCase(c: BenchCase, s: Settings): Promise<CaseResult>;
  finish(): Promise<FinalState>;
}

// ---- the page's own shapes ----------------------------------------------------------------------

/** A case as the page holds it: its input, the reference outputs and how to call Cleave. */
export interface Prepared extends BenchCase {
  host: HostTensor<FixedDType>;
  /** The input's bytes. */
  input: Uint8Array;
  /** Each output's bytes from the reference split. */
  ref: Uint8Array[];
  outShapes: number[][];
  modelBytes?: Uint8Array | undefined;
  split: SplitCalls;
}

export interface SplitCalls {
  gpu(engine: SplitEngine, x: GpuTensor): Promise<GpuTensor[]>;
  host(engine: SplitEngine, x: HostTensor<FixedDType>): Promise<HostTensor[]>;
}

/** What a system builder gets: the device, the input on it, and whatever is shared (warm runs). */
export interface Env {
  device: GPUDevice;
  gx: GpuTensor;
  /** A shared engine; absent: the builder creates (and closes) its own. */
  engine?: SplitEngine | undefined;
  cpu?: SplitEngine | undefined;
  copyPipeline?: GPUComputePipeline | undefined;
  /** Give ONNX Runtime this device; absent: ORT's own (the page's shared device). */
  ortDevice?: GPUDevice | undefined;
}

/**
 * One system, ready to run. `iter` starts one split; `sync` waits for the GPU work of all started;
 * `check` compares one split's outputs with the reference (before `free`).
 */
export interface Runner<T = unknown> {
  iter(): Promise<T> | T;
  sync(): Promise<unknown>;
  check(out: T): Promise<string | undefined>;
  free(out: T): void;
  /** Cleave only: what its last split did. */
  stats?(): PlanStats;
  close?(): Promise<void> | void;
}

export interface System {
  key: SystemKey;
  /** Whether the GPU time of its batches is measured. */
  gpuTimed: boolean;
  /** Bytes its outputs keep alive per iteration until freed (caps the batch size). */
  outputBytes: number;
  // Runner<any>: each system has its own output type, and only its own runner sees it.
  run?: Runner<any>;
  skip?: string;
  error?: string;
  webgpuError?: string | undefined;
  fallback?: 'cpu-ep' | undefined;
}

/** A system through one case: its verification, calibration and timings. */
export interface Slot {
  sys: System;
  failed?: string | undefined;
  verified: boolean;
  calls?: CallCounts | undefined;
  stats?: PlanStats | undefined;
  /** Iterations per batch, and the calibration's ms per iteration. */
  cal?: { k: number; perIterMs: number } | undefined;
  /** ms per split, one entry per batch. */
  wall: number[];
  gpu: (number | undefined)[];
}

declare global {
  interface Window {
    bench: BenchApi;
    benchReady?: boolean;
    benchLoadError?: string;
    __benchProgress?: (text: string) => Promise<void>;
  }
}
