// onnxruntime-node as a peer: builds a single-node ONNX model (scripts/lib/onnx-model.mjs), runs it on ORT's
// CPU execution provider and hands the outputs back as Cleave host tensors. Sequences come back
// through SequenceAt nodes (ORT cannot return a sequence to JavaScript), with SequenceLength
// alongside; bfloat16 travels through Cast nodes to and from float32, since ORT's JS tensors
// have no bfloat16.

import * as ort from 'onnxruntime-node';
import type { DType, HostTensor } from '../../src/index.js';
import {
  type NodeProto,
  type OnnxDType,
  type ValueSpec,
  buildModel as build,
  cast,
  node,
  sequenceAt,
} from '../../scripts/lib/onnx-model.mjs';

export interface OrtCase {
  readonly op: 'Split' | 'SplitToSequence';
  readonly opset: number;
  readonly x: HostTensor;
  /** The optional second input. */
  readonly split?: HostTensor;
  readonly attrs?: Readonly<Record<string, number | readonly number[]>>;
  /** Split: the node's declared outputs. SplitToSequence: how many SequenceAt reads to make. */
  readonly outputs: number;
}

export type OrtResult =
  { readonly outputs: HostTensor[]; readonly sequenceLength?: number } | { readonly error: string };

/** The model for a case; `reads` SequenceAt outputs for SplitToSequence (0 = length only). */
export function buildModel(c: OrtCase, reads = c.outputs): Uint8Array {
  const bridge = c.x.dtype === 'bfloat16';
  const dtype = c.x.dtype as OnnxDType;
  // Kept in topological order: input cast, the operator (and sequence reads), output casts.
  const pre = bridge ? [cast('x', 'x_bf16', 'bfloat16')] : [];
  const post: NodeProto[] = [];
  const inputs: ValueSpec[] = [{ name: 'x', dtype: bridge ? 'float32' : dtype }];
  const outputs: ValueSpec[] = [];
  const nodeInputs = [bridge ? 'x_bf16' : 'x'];
  if (c.split) {
    inputs.push({ name: 'split', dtype: c.split.dtype as OnnxDType });
    nodeInputs.push('split');
  }
  /** Declares graph output `name`; returns the tensor the operator must write (cast back from bfloat16). */
  const emit = (name: string) => {
    if (!bridge) {
      outputs.push({ name, dtype });
      return name;
    }
    post.push(cast(`${name}_bf16`, name, 'float32'));
    outputs.push({ name, dtype: 'float32' });
    return `${name}_bf16`;
  };
  let main: NodeProto[];
  if (c.op === 'Split') {
    main = [
      node(
        'Split',
        nodeInputs,
        Array.from({ length: c.outputs }, (_, i) => emit(`y${i}`)),
        c.attrs,
      ),
    ];
  } else {
    outputs.push({ name: 'length', dtype: 'int64' });
    main = [
      node('SplitToSequence', nodeInputs, ['seq'], c.attrs),
      node('SequenceLength', ['seq'], ['length']),
      ...sequenceAt('seq', reads, (i) => emit(`y${i}`)),
    ];
  }
  return build({
    name: 'single-node',
    producer: 'cleave-tests',
    opset: c.opset,
    nodes: [...pre, ...main, ...post],
    inputs,
    outputs,
  });
}

const OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  logSeverityLevel: 4,
};

/** Runs a case on onnxruntime-node; an ORT refusal comes back as `{ error }`. */
export async function runOrt(c: OrtCase): Promise<OrtResult> {
  const feeds: Record<string, ort.Tensor> = { x: toOrt(c.x) };
  if (c.split) feeds.split = toOrt(c.split);
  const once = async (reads: number) => {
    const session = await ort.InferenceSession.create(buildModel(c, reads), OPTIONS);
    try {
      return await session.run(feeds);
    } finally {
      await session.release();
    }
  };
  try {
    const r = await once(c.outputs);
    const n = c.op === 'Split' ? c.outputs : Number((r.length!.data as BigInt64Array)[0]);
    const outputs = Array.from({ length: Math.min(n, c.outputs) }, (_, i) => fromOrt(r[`y${i}`]!, c.x.dtype));
    return c.op === 'Split' ? { outputs } : { outputs, sequenceLength: n };
  } catch (e) {
    const error = (e as Error).message;
    if (c.op === 'SplitToSequence' && /SequenceAt|index|out of (range|bounds)/i.test(error)) {
      // Fewer tensors than we expected: report the length ORT produced.
      try {
        const r = await once(0);
        return { outputs: [], sequenceLength: Number((r.length!.data as BigInt64Array)[0]) };
      } catch {
        /* the original error says more */
      }
    }
    return { error };
  }
}

function toOrt(t: HostTensor): ort.Tensor {
  if (t.dtype === 'bfloat16') {
    const f = new Uint32Array(t.data.length);
    t.data.forEach((b, i) => {
      f[i] = b << 16;
    });
    return new ort.Tensor('float32', new Float32Array(f.buffer), t.shape);
  }
  return new ort.Tensor(t.dtype as 'float32', t.data as Float32Array, t.shape);
}

function fromOrt(o: ort.Tensor, dtype: DType): HostTensor {
  const shape = [...o.dims];
  if (dtype === 'bfloat16') {
    const u = new Uint32Array((o.data as Float32Array).slice().buffer);
    if (u.some((v) => (v & 0xffff) !== 0)) throw new Error('bfloat16 bridge: ORT returned float32 with low bits set');
    return { dtype, shape, data: Uint16Array.from(u, (v) => v >>> 16) };
  }
  if (dtype === 'string') return { dtype, shape, data: [...(o.data as string[])] };
  const d = o.data as Uint8Array;
  // Copy so the tensor owns its bytes (ORT may reuse its output buffers).
  return { dtype, shape, data: new (d.constructor as new (a: ArrayLike<number>) => Uint8Array)(d) } as HostTensor;
}

/** Whether onnxruntime-node's JavaScript API can hold the dtype at all. */
export function ortCanHold(dtype: DType): boolean {
  try {
    new ort.Tensor(dtype as 'float32', new Float32Array(2), [2]);
    return true;
  } catch (e) {
    return !/Unsupported tensor type/.test((e as Error).message);
  }
}
