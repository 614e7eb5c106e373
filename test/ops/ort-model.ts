// onnxruntime-node as a peer: builds a single-node ONNX model with onnx-proto, runs it on ORT's
// CPU execution provider and hands the outputs back as Cleave host tensors. Sequences come back
// through SequenceAt nodes (ORT cannot return a sequence to JavaScript), with SequenceLength
// alongside; bfloat16 travels through Cast nodes to and from float32, since ORT's JS tensors
// have no bfloat16.

import { onnx } from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import type { DType, HostTensor } from '../../src/index.js';

const E = onnx.TensorProto.DataType;
const ELEM: Partial<Record<DType, number>> = {
  float32: E.FLOAT, float64: E.DOUBLE, float16: E.FLOAT16, bfloat16: E.BFLOAT16, int8: E.INT8, uint8: E.UINT8,
  int16: E.INT16, uint16: E.UINT16, int32: E.INT32, uint32: E.UINT32, int64: E.INT64, uint64: E.UINT64,
  bool: E.BOOL, string: E.STRING, complex64: E.COMPLEX64, complex128: E.COMPLEX128,
};
const A = onnx.AttributeProto.AttributeType;

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

export type OrtResult = { readonly outputs: HostTensor[]; readonly sequenceLength?: number } | { readonly error: string };

const valueInfo = (name: string, elemType: number) => ({ name, type: { tensorType: { elemType } } });

function attribute(name: string, v: number | readonly number[]) {
  return typeof v === 'number' ? { name, type: A.INT, i: v } : { name, type: A.INTS, ints: [...v] };
}

/** The model for a case; `reads` SequenceAt outputs for SplitToSequence (0 = length only). */
export function buildModel(c: OrtCase, reads = c.outputs): Uint8Array {
  const bridge = c.x.dtype === 'bfloat16';
  const elem = ELEM[c.x.dtype]!;
  // Kept in topological order: input cast, the operator (and sequence reads), output casts.
  const pre: onnx.INodeProto[] = [];
  const main: onnx.INodeProto[] = [];
  const post: onnx.INodeProto[] = [];
  const inputs = [valueInfo('x', bridge ? E.FLOAT : elem)];
  const outputs: ReturnType<typeof valueInfo>[] = [];
  let x = 'x';
  if (bridge) {
    pre.push({ opType: 'Cast', input: ['x'], output: ['x_bf16'], attribute: [attribute('to', E.BFLOAT16)] });
    x = 'x_bf16';
  }
  const nodeInputs = [x];
  if (c.split) {
    inputs.push(valueInfo('split', ELEM[c.split.dtype]!));
    nodeInputs.push('split');
  }
  const attrs = Object.entries(c.attrs ?? {}).map(([k, v]) => attribute(k, v));
  /** Declares graph output `name`; returns the tensor the operator must write (cast back from bfloat16). */
  const emit = (name: string) => {
    if (!bridge) {
      outputs.push(valueInfo(name, elem));
      return name;
    }
    post.push({ opType: 'Cast', input: [`${name}_bf16`], output: [name], attribute: [attribute('to', E.FLOAT)] });
    outputs.push(valueInfo(name, E.FLOAT));
    return `${name}_bf16`;
  };
  if (c.op === 'Split') {
    const names = Array.from({ length: c.outputs }, (_, i) => emit(`y${i}`));
    main.push({ opType: 'Split', input: nodeInputs, output: names, attribute: attrs });
  } else {
    main.push({ opType: 'SplitToSequence', input: nodeInputs, output: ['seq'], attribute: attrs });
    main.push({ opType: 'SequenceLength', input: ['seq'], output: ['length'] });
    outputs.push(valueInfo('length', E.INT64));
    for (let i = 0; i < reads; i++) {
      main.push({ opType: 'Constant', output: [`i${i}`], attribute: [{ name: 'value', type: A.TENSOR, t: { dataType: E.INT64, dims: [], int64Data: [i] } }] });
      main.push({ opType: 'SequenceAt', input: ['seq', `i${i}`], output: [emit(`y${i}`)] });
    }
  }
  const nodes = [...pre, ...main, ...post];
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'cleave-tests',
    opsetImport: [{ domain: '', version: c.opset }],
    graph: { name: 'single-node', node: nodes, input: inputs, output: outputs },
  });
  return onnx.ModelProto.encode(model).finish();
}

const OPTIONS: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 4 };

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
      } catch { /* the original error says more */ }
    }
    return { error };
  }
}

function toOrt(t: HostTensor): ort.Tensor {
  if (t.dtype === 'bfloat16') {
    const f = new Uint32Array(t.data.length);
    t.data.forEach((b, i) => { f[i] = b << 16; });
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
