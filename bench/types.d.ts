// The shapes of the bench: what cases.mjs lists and the driver resolves, the settings of a run, and (re-exported)
// the results written to bench/results/*.json (results.d.ts) and the page's own shapes (page/types.d.ts). Types
// only: the bench is plain JavaScript that tsc checks against these (checkJs, `npm run typecheck`).

import type { DType } from '../src/index.js';

export type * from './results.js';
export type * from './page/types.js';

/** GPU-resident Cleave with a strategy forced, timed beside its own choice. */
export type ForcedKey = 'cleave-gpu-alias' | 'cleave-gpu-copy' | 'cleave-gpu-gather';
export type SystemKey =
  | 'cleave-gpu'
  | ForcedKey
  | 'cleave-gpu-separate'
  | 'cleave-host'
  | 'ort-gpu'
  | 'ort-host'
  | 'tfjs-gpu'
  | 'copy-limit'
  | 'shader-limit'
  | 'cleave-cpu';
/** A pipeline's: ORT's whole graph (WebGPU EP, and its CPU EP), and ORT A -> Cleave -> ORT B. */
export type PipelineKey = 'ort-whole' | 'cleave-pipeline' | 'ort-whole-cpu';
/** A decode loop's: ORT's whole graph, and the example's loop with split, encodeSplit, and B under graph capture. */
export type DecodeKey = 'ort-whole' | 'cleave-pipeline' | 'cleave-encode' | 'cleave-capture';

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
  readonly quick?: boolean;
  readonly sameBytesAs?: readonly string[];
  readonly sameElementsAs?: string;
  readonly scopeCost?: boolean;
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
  /** Per-call cost: rounds, each calling every variant its case's `callsInARow` times. */
  callRounds: number;
  /** Pipelines and decode loops: at least this many reps (a run takes long, and the systems differ by little). */
  pipelineMinReps: number;
  /** --probes: GPU calls counted per split, the error scopes' cost. */
  probes: boolean;
}

/** One pipeline of bench/cases.mjs (its fields are documented there). */
export interface PipelineSpec {
  readonly id: string;
  readonly seq: number;
  readonly width: number;
  readonly hidden: number;
  readonly heads: number;
  readonly quick?: boolean;
}

/** A pipeline resolved by bench/lib/pipelines.mjs: its split, its files and what its reference says. */
export interface BenchPipeline extends PipelineSpec {
  /** Outputs of the split of qkv [1, S, 3H] along its last axis: 3 x heads. */
  readonly parts: number;
  /** B's inputs (and the whole graph's Split outputs), in the split's order. */
  readonly names: readonly string[];
  /** Served at /model/<name>: models A, B and the whole graph; x and the reference y as float32 bytes. */
  readonly files: {
    readonly a: string;
    readonly b: string;
    readonly whole: string;
    readonly x: string;
    readonly ref: string;
  };
  /** The largest sum of |terms| of any dot product in the graph (below 2^24: float32 exact in any order). */
  readonly maxTermSum: number;
}

/** One decode loop of bench/cases.mjs (its fields are documented there). */
export interface DecodeSpec {
  readonly id: string;
  readonly width: number;
  readonly heads: number;
  readonly headDim: number;
  readonly prefill?: number;
  readonly decodeSteps: number;
  readonly quick?: boolean;
}

/** A decode loop resolved by bench/lib/decode.mjs; its files are served at /model/<id>/<name>. */
export interface BenchDecode extends DecodeSpec {
  /** Tokens of each step, in order. */
  readonly steps: readonly number[];
  /** T: cache slots, the sequence's tokens. */
  readonly tokens: number;
  /** The largest sum of |terms| of any dot product (below 2^24: float32 exact in any order). */
  readonly maxTermSum: number;
}

/** The decode step of bench/cases.mjs (its fields are documented there). */
export interface DecodeStepSpec {
  readonly id: string;
  readonly heads: number;
  readonly tokens: number;
  readonly headDim: number;
  readonly warmup: number;
  readonly target: number;
}

/** How long the decode step runs (bench/node/decode-step.mjs decodeStepSettings): `--quick` shortens it. */
export interface DecodeStepSettings {
  /** Steps counted after the warm-up. */
  counted: number;
  /** Runs of the whole host-time measurement. */
  runs: number;
  /** Rounds per run: Cleave with release, without, and the bare replay, a batch each, in an order that turns. */
  rounds: number;
  /** Steps per batch, timed as a whole. */
  stepsPerRound: number;
}

/** One per-call cost case of bench/cases.mjs (its fields are documented there). */
export interface CallCostSpec {
  readonly id: string;
  readonly dtype: 'float32';
  readonly shape: readonly number[];
  readonly axis: number;
  readonly parts: number;
  readonly callsInARow: number;
  readonly quick?: boolean;
}
