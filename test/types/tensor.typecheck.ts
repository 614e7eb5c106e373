// Compile-time tier for host tensors made without `as const`: `tensor(dtype, data, shape)` keeps the
// dtype a literal and checks the data against it, every call takes what it makes, and a tensor
// literal whose dtype widened to `string` fails at each of them (test/types/messages.test.ts reads
// what the compiler says). float16 data may be a Float16Array, and outputs come in the input's array.
// Checked by `npm run typecheck`: each expected-error directive fails the build if the line after
// it ever compiles. This repository's lib (ES2022) has no Float16Array: Float16Data is Float16ArrayLike.
import {
  type Float16ArrayLike,
  type Float16Data,
  type GpuTensor,
  type HostData,
  type HostTensor,
  type SplitEngine,
  halvesFrom,
  inferShapes,
  resolveNode,
  tensor,
} from '../../src/index.js';

export async function withoutAsConst(engine: SplitEngine): Promise<void> {
  const x = tensor('float32', new Float32Array(6), [2, 3]);
  const xd: HostTensor<'float32'> = x;
  const outs: HostTensor<'float32'>[] = await engine.split(x, { axis: 1, sizes: [1, 2] });
  const data: Float32Array = outs[0]!.data;
  const gx: GpuTensor<'float32'> = engine.upload(x);
  const ran: HostTensor<'float32'>[] = await engine.run({
    op: 'Split',
    opset: 18,
    inputs: [x],
    attrs: { num_outputs: 2 },
  });
  const lengths = tensor('int64', new BigInt64Array([1n, 2n]), [2]);
  const axis = tensor('int64', new BigInt64Array([1n]), []);
  const variadic: HostTensor<'float32'>[] = await engine.run({ op: 'VariadicSplit', inputs: [x, axis, lengths] });
  const planned = resolveNode({ op: 'Split', opset: 13, inputs: [x, lengths], attrs: { axis: 1 } });
  const shapes = inferShapes({ op: 'Split', opset: 13, inputs: [x, lengths], attrs: { axis: 1 } });
  const words = tensor('string', ['a', 'b'], [2]);
  const split: HostTensor<'string'>[] = await engine.split(words, { parts: 2 });
  const packed: HostTensor<'uint4'> = tensor('uint4', new Uint8Array(2), [3]);
  const buffer: HostTensor<'uint8'> = tensor('uint8', Buffer.alloc(4), [4]);
  // @ts-expect-error float32 data is a Float32Array, not an Int32Array
  tensor('float32', new Int32Array(6), [2, 3]);
  // @ts-expect-error no such dtype
  tensor('float8', new Uint8Array(1), [1]);
  // @ts-expect-error a dtype widened to string
  tensor('float32' as string, new Float32Array(1), [1]);
  // @ts-expect-error string data is a string[]
  tensor('string', [1, 2], [2]);
  // @ts-expect-error the shape comes third, and is required
  tensor('float32', new Float32Array(1));
  // @ts-expect-error strings cannot be uploaded
  engine.upload(words);
  // @ts-expect-error a tensor's dtype stays its own
  const wrong: HostTensor<'int32'> = x;
  void [xd, data, gx, ran, variadic, planned, shapes, split, packed, buffer, wrong];
}

export async function widenedLiterals(engine: SplitEngine, g: GpuTensor<'float32'>): Promise<void> {
  const x = { dtype: 'float32', shape: [4], data: new Float32Array(4) };
  const gw = { dtype: 'float32', shape: [4], buffer: g.buffer, byteOffset: 0, byteLength: 16 };
  // @ts-expect-error a widened dtype: `as const`, or tensor()
  await engine.split(x, { parts: 2 });
  // @ts-expect-error a widened dtype
  engine.upload(x);
  // @ts-expect-error a widened dtype
  await engine.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });
  // @ts-expect-error a widened dtype
  resolveNode({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });
  // @ts-expect-error a widened dtype
  inferShapes({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });
  // @ts-expect-error a widened dtype on a GPU tensor
  await engine.split(gw, { parts: 2 });
  // @ts-expect-error a widened dtype on a GPU tensor
  await engine.download(gw);
  // @ts-expect-error a widened dtype on a GPU tensor
  engine.release(gw);
  // A node input of another dtype than its data is refused as well.
  const mismatched = { dtype: 'float32', shape: [4], data: new Int32Array(4) } as const;
  // @ts-expect-error float32 data is a Float32Array
  await engine.run({ op: 'Split', opset: 18, inputs: [mismatched], attrs: { num_outputs: 2 } });
}

export async function float16Arrays(engine: SplitEngine, f16: Float16ArrayLike): Promise<void> {
  const x = tensor('float16', f16, [4]);
  const outs = await engine.split(x, { parts: 2 });
  const data: Float16Data = outs[0]!.data;
  // @ts-expect-error the outputs of a Float16Array input are Float16Arrays, not bits
  const bits: Uint16Array = outs[0]!.data;
  const h = tensor('float16', halvesFrom([1, 2]), [2]);
  const fromBits: Uint16Array = (await engine.split(h, { parts: 2 }))[0]!.data;
  const literal = await engine.split({ dtype: 'float16', shape: [4], data: f16 }, { parts: 2 });
  const literalData: Float16Data = literal[0]!.data;
  const ran = await engine.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });
  const ranData: Float16Data = ran[0]!.data;
  // Uploaded, a float16 tensor is bits on the GPU; a download reads them back as bits.
  const gx: GpuTensor<'float16'> = engine.upload(x);
  const back: Uint16Array = (await engine.download(gx)).data;
  const either: HostTensor<'float16', HostData<'float16'>> = x;
  // @ts-expect-error a Float16Array is float16 data only, not bfloat16 bits
  tensor('bfloat16', f16, [4]);
  // @ts-expect-error a Float16Array is not float32 data
  tensor('float32', f16, [4]);
  // @ts-expect-error a Float16Array is not uint16 data
  await engine.split({ dtype: 'uint16', shape: [4], data: f16 }, { parts: 2 });
  // @ts-expect-error a Uint16Array is no Float16Array
  const notHalf: Float16ArrayLike = new Uint16Array(4);
  // @ts-expect-error HostTensor<'float16'> alone holds bits: a Float16Array one says so
  const plain: HostTensor<'float16'> = x;
  void [data, bits, fromBits, literalData, ranData, back, either, notHalf, plain];
}
