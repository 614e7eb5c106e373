// The shapes the bench passes between the driver (Node), the page (Chromium) and the report, and
// writes to bench/results/*.json. Types only: the bench is plain JavaScript that tsc checks
// against these (checkJs, `npm run typecheck`).

import type { DType, FixedDType, GpuTensor, HostTensor, SplitEngine } from '../src/index.js';

export type SystemKey =
  | 'cleave-gpu'
  | ForcedKey
  | 'cleave-host'
  | 'ort-gpu'
  | 'ort-host'
  | 'tfjs-gpu'
  | 'copy-limit'
  | 'shader-limit'
  | 'cleave-cpu';

/** GPU-resident Cleave with a strategy forced, timed beside its own choice. */
export type ForcedKey = 'cleave-gpu-alias' | 'cleave-gpu-copy' | 'cleave-gpu-gather';

/** The systems of a pipeline case: ORT's whole graph (WebGPU EP, and its CPU EP), and ORT A -> Cleave -> ORT B. */
export type PipelineKey = 'ort-whole' | 'cleave-pipeline' | 'ort-whole-cpu';

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
  readonly nodeQuick?: boolean;
  readonly nodeOnly?: boolean;
}

/** A case resolved by bench/lib/resolve-cases.mjs: what the page runs and the report reads. */
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
  budgetMs: number;
  minReps: number;
  maxReps: number;
  batchMs: number;
  warmupMs: number;
  warmupIters: number;
  maxBatch: number;
  maxLiveBytes: number;
  coldReps: number;
  scopeLoops: number;
  scopeReps: number;
  /** Per-call cost: calls timed per variant (a case's own `calls` in a full run), in this many rounds. */
  calls?: number | undefined;
  callRounds: number;
  /** Pipelines: at least this many reps (an inference takes long, and pipeline and whole graph differ by little). */
  pipelineMinReps: number;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

export interface CallCounts {
  submits: number;
  commandBuffers: number;
  copies: number;
  dispatches: number;
  passes: number;
  buffersCreated: number;
  bindGroups: number;
  writeBuffers: number;
  mapAsyncs: number;
  /** pushErrorScope calls (absent in runs saved before they were counted). */
  errorScopes?: number;
  /** Error-scope pops still unsettled when the call resolved: it did not wait for them (absent in older runs). */
  scopesPending?: number;
}

/** Cleave's engine.stats after one split, with the pipelines its engine had compiled. */
export interface PlanStats {
  strategy: string;
  unitBits: number;
  dispatches: number;
  copies: number;
  commands: number;
  pipelines: number;
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

/**
 * What the per-split error scopes cost: µs per loop iteration of an empty submit with and without
 * the pair, and of the case's GPU-resident split (awaited, outputs released) with an engine-owned
 * input (no scopes) and with the same bytes in a caller's buffer (scopes: the split waits for the pops).
 */
export interface ScopeCost {
  loops: number;
  withScopesUs: Summary;
  withoutScopesUs: Summary;
  ownedSplitUs?: Summary | undefined;
  callerSplitUs?: Summary | undefined;
  /** Strategies of the two splits, and why the caller's split failed verification, if it did. */
  ownedStrategy?: string | undefined;
  callerStrategy?: string | undefined;
  callerError?: string | undefined;
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

export interface CaseRecord extends CaseResult {
  case: BenchCase;
}

/** One pipeline of bench/cases.mjs (its fields are documented there). */
export interface PipelineSpec {
  readonly id: string;
  readonly seq: number;
  readonly width: number;
  readonly hidden: number;
  readonly heads: number;
  readonly quick?: boolean;
  readonly note?: string;
}

/** A pipeline resolved by bench/lib/pipelines.mjs: its split, its files and what its reference says. */
export interface BenchPipeline extends PipelineSpec {
  /** Outputs of the split of qkv [1, S, 3H] along its last axis: 3 x heads. */
  readonly parts: number;
  /** B's inputs (and the whole graph's Split outputs), in the split's order. */
  readonly names: readonly string[];
  /** Served at /model/<name>: models A, B and the whole graph; the input x and the reference y as float32 bytes. */
  readonly files: {
    readonly a: string;
    readonly b: string;
    readonly whole: string;
    readonly x: string;
    readonly ref: string;
  };
  /** The largest sum of |terms| of any dot product in the graph: below 2^24, float32 is exact in any order. */
  readonly maxTermSum: number;
  readonly exact: boolean;
  /** Multiply-adds of one inference (A's MatMul, B's). */
  readonly macs: number;
}

/** How a pipeline's or decode loop's run went, beside its figures. */
export interface RunOutcome {
  notes: string[];
  reps?: number;
  crashed?: string;
  gpuErrors?: string[];
  deviceLost?: string | undefined;
  seconds?: number;
}

export interface PipelineResult extends RunOutcome {
  id: string;
  systems: Partial<Record<PipelineKey, SystemResult>>;
  /** Each system's y equal to the reference bit for bit (verified ones only). */
  bitExact: Partial<Record<PipelineKey, boolean>>;
  /** The pipeline's y equal to ORT's whole graph's bit for bit; undefined when either failed. */
  sameBitsAsWhole?: boolean | undefined;
  /** The pipeline's wall time over the whole graph's, batch by batch within each rep (they run back to back). */
  pairedRatio?: Summary | undefined;
}

export interface PipelineRecord extends PipelineResult {
  pipeline: BenchPipeline;
}

/**
 * The systems of a decode loop: ORT's whole graph (past/present K/V); ORT A -> Cleave `into` the caches -> ORT B
 * with engine.split, with engine.encodeSplit (an encoder of its own), and with split and B's sessions captured
 * (ORT's enableGraphCapture).
 */
export type DecodeKey = 'ort-whole' | 'cleave-pipeline' | 'cleave-encode' | 'cleave-capture';

/** One decode loop of bench/cases.mjs (its fields are documented there). */
export interface DecodeSpec {
  readonly id: string;
  readonly width: number;
  readonly heads: number;
  readonly headDim: number;
  readonly prefill?: number;
  readonly decodeSteps: number;
  readonly quick?: boolean;
  readonly note?: string;
}

/** A decode loop resolved by bench/lib/decode.mjs. */
export interface BenchDecode extends DecodeSpec {
  /** Tokens of each step, in order. */
  readonly steps: readonly number[];
  /** T: cache slots, the sequence's tokens. */
  readonly tokens: number;
  /** Served at /model/<name>: models A, B and the whole graph for each step size, and B ending in a Reshape (the graph-capture probe's). */
  readonly models: readonly {
    readonly seq: number;
    readonly a: string;
    readonly b: string;
    readonly bFlat: string;
    readonly whole: string;
  }[];
  /** Served at /model/<name>: x [T, D]; the reference: y [T, H d], then the caches k and v [H, T, d], float32 bytes. */
  readonly files: { readonly x: string; readonly ref: string };
  /** The largest sum of |terms| of any dot product (below 2^24: float32 exact in any order). */
  readonly maxTermSum: number;
}

/** What Cleave's calls cost in JavaScript in one step (µs, performance.now around engine.split), medians over the timed sequences. */
export interface DecodeJsCost {
  /** Until engine.split returned its promise (encodeSplit: the same as callUs). */
  syncUs: Summary;
  /** Until the promise resolved (encodeSplit: the call, with its encoder's creation, finish and submit). */
  callUs: Summary;
}

export interface DecodeResult extends RunOutcome {
  id: string;
  /** wall: ms per sequence (per step: divide by the steps). */
  systems: Partial<Record<DecodeKey, SystemResult>>;
  /** A second check of every step's y and the final caches, after timing: undefined when it passed. */
  afterTiming: Partial<Record<DecodeKey, string | undefined>>;
  /** Each Cleave system's time over the whole graph's, batch by batch within each rep. */
  pairedRatio: Partial<Record<DecodeKey, Summary>>;
  jsCost: Partial<Record<DecodeKey, DecodeJsCost>>;
  /** ORT's own words when it refused enableGraphCapture (at session creation or at a run). */
  captureError?: string | undefined;
  /** What the graph-capture probes saw, one sentence each: B ending in a Reshape, and B with y pre-allocated (fetches). */
  captureProbes?: string[] | undefined;
}

export interface DecodeRecord extends DecodeResult {
  decode: BenchDecode;
}

/** One per-call cost case of bench/cases.mjs (its fields are documented there). */
export interface CallCostSpec {
  readonly id: string;
  readonly dtype: 'float32';
  readonly shape: readonly number[];
  readonly axis: number;
  readonly parts: number;
  readonly calls: number;
  readonly quick?: boolean;
  readonly note?: string;
}

/** One variant: a function, an input alignment and owner, and its µs per call (one sample per round). */
export interface CallCostRow {
  fn: 'split' | 'encodeSplit';
  aligned: boolean;
  owner: 'engine' | 'caller';
  byteOffset: number;
  calls: number;
  /** What one call did, counted: its strategy, GPU commands, error scopes pushed. */
  stats?: PlanStats | undefined;
  gpuCalls?: CallCounts | undefined;
  /** split: call, await, release the outputs; encodeSplit: the call alone (submit and release outside the clock). */
  us?: Summary | undefined;
  /** split only: the part before the call returned its promise. */
  syncUs?: Summary | undefined;
  error?: string | undefined;
}

export interface CallCostResult {
  id: string;
  rows: CallCostRow[];
  /** Calls per chunk: encodeSplit's per encoder; the GPU work is drained between chunks, off the clock. */
  chunk?: number;
  crashed?: string;
  gpuErrors?: string[];
  seconds?: number;
}

export interface CallCostRecord extends CallCostResult {
  spec: CallCostSpec;
}

export interface PageEnv {
  userAgent: string;
  crossOriginIsolated: boolean;
  adapter: { vendor?: string; architecture?: string; description?: string; device?: string };
  features: string[];
  limits: Record<string, number>;
  ort: Record<string, string | undefined>;
  /** TF.js's version (absent in runs saved before it was a peer). */
  tfjs?: string | undefined;
  cleaveBackend: string;
  timestampQuery: boolean;
  timestampFloorUs?: number | undefined;
  copyKernelWorkgroup: number;
}

export interface FinalState {
  cleavePipelines: number;
  /** The library's SHADER_VARIANTS: the most pipelines an engine may compile per device. */
  shaderVariants: number;
  devicePipelines: number;
  liveBuffers: number;
  gpuErrors: string[];
  deviceLost?: string | undefined;
}

/** A target of the bench: reported, never asserted. met null: not measured in this run. */
export interface Target {
  id: string;
  name: string;
  goal: string;
  value: string;
  met: boolean | null;
  ratio?: number | undefined;
  details: string[];
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  seconds: number;
  command: string;
  quick: boolean;
  filter?: string | undefined;
  settings: Settings;
  machine: { node: string; platform: string; cpus: number; cpuModel?: string | undefined; loadavg: number[] };
  env?: PageEnv | undefined;
  final?: FinalState | undefined;
  targets: Target[];
  results: CaseRecord[];
  /** Absent in runs saved before pipelines and per-call costs were measured. */
  pipelines?: PipelineRecord[] | undefined;
  callCosts?: CallCostRecord[] | undefined;
  /** Absent in runs saved before decode loops were measured. */
  decodes?: DecodeRecord[] | undefined;
}

export interface BenchApi {
  init(o: { ortThreads: number }): Promise<PageEnv>;
  runCase(c: BenchCase, s: Settings): Promise<CaseResult>;
  runPipeline(p: BenchPipeline, s: Settings): Promise<PipelineResult>;
  runCallCost(c: CallCostSpec, s: Settings): Promise<CallCostResult>;
  runDecode(p: BenchDecode, s: Settings): Promise<DecodeResult>;
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

export interface System<K extends string = SystemKey> {
  key: K;
  /** Whether the GPU time of its batches is measured. */
  gpuTimed: boolean;
  /** Bytes its outputs keep alive per iteration until freed (caps the batch size). */
  outputBytes: number;
  // Runner<any>: each system has its own output type, and only its own runner sees it (an existential
  // type, which TypeScript spells any here: Runner is invariant in its output).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run?: Runner<any>;
  skip?: string;
  error?: string;
  webgpuError?: string | undefined;
  fallback?: 'cpu-ep' | undefined;
}

/** A system through one case: its verification, calibration and timings. */
export interface Slot<K extends string = SystemKey> {
  sys: System<K>;
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
