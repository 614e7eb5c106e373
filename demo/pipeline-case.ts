// What the demo's pipeline section reads from pipeline/case.json (written by pipeline-files.ts).

export interface PipelineCase {
  /** x is [1, seq, width]; qkv [1, seq, 3 × hidden]; y [1, seq, hidden]. */
  readonly seq: number;
  readonly width: number;
  readonly hidden: number;
  readonly heads: number;
  /** The Split's outputs (B's inputs) in order: q0…q11, k0…k11, v0…v11. */
  readonly names: readonly string[];
  /** No dot product's sum of |terms| reaches 2^24: float32 is exact in any summation order. */
  readonly exact: boolean;
  /** Paths relative to the page: models A, B and the whole graph; x and the reference y as float32 bytes. */
  readonly files: {
    readonly a: string;
    readonly b: string;
    readonly whole: string;
    readonly x: string;
    readonly ref: string;
  };
}
