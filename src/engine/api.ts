// The engine's public interface, every backend's: its calls, what it reports, and where a node's
// outputs live. Its options are options.ts; the engine itself is engine.ts.

import type { SplitError } from '../errors.js';
import type { DType, FixedDType } from '../dtype.js';
import type { Float16Data, HostData } from '../host-data.js';
import type { GpuInput, GpuTensor, HostInput, HostOutput, HostTensor, Into } from '../tensor.js';
import type { CostModel } from '../planner/costs.js';
import type { Strategy } from '../planner/types.js';
import type { CheckedNode, SplitNode, TensorLike } from '../ops/index.js';
import type { Backend, Fixed, OutputOptions, SplitOptions } from './options.js';

/** What a split did: on the GPU, which strategy and how many commands; or that it ran on the CPU. */
export interface SplitStats {
  /** The GPU strategy the split took, or 'cpu' when the CPU executor split it. */
  readonly strategy: Strategy | 'cpu';
  /** Gather word width in bits (128, 64, 32; 1 = the bit-level variant); 0 when no shader ran. */
  readonly unitBits: 128 | 64 | 32 | 1 | 0;
  /**
   * Gather dispatches: one, more past a binding window or with several output buffers (a caller's destinations,
   * or one per output with layout 'separate'); 0 without a gather.
   */
  readonly dispatches: number;
  /** copyBufferToBuffer commands. */
  readonly copies: number;
}

/**
 * A split of GPU tensors prepared once by {@link CoreSplitEngine.prepare}, for tensors of one dtype and shape: its
 * options are read and its split is planned then, and `ready` makes its GPU work ready ahead, so a call only checks
 * the tensor it is given (the prepared dtype and shape, alive, its buffer's usage) and its destinations, and records
 * the work. It needs no release: what it holds on the GPU is freed when it is garbage-collected, or with its engine.
 */
export interface PreparedSplit<D extends FixedDType = FixedDType> {
  /**
   * Settles once everything a call needs is made: the gather's pipeline compiled with `createComputePipelineAsync`,
   * its tile table written, the bind groups of the prepared input's and destinations' buffers made. After it, a call
   * with the prepared tensor's and destinations' placement compiles nothing and creates nothing (a destination in
   * another alignment class makes its table and bind groups once). A `split` before it waits for the compile; an
   * `encode` before it compiles synchronously.
   *
   * @throws {@link SplitError} `GPU_ERROR` (the compile failed; its `cause` is the device's error) or `DEVICE_LOST`;
   *   every later call then fails with the same code.
   */
  readonly ready: Promise<void>;
  /**
   * Splits `x` as `engine.split(x, options)` with the prepared options would: the same outputs, rules and errors.
   *
   * @param x - A GPU tensor of the prepared dtype and shape (another buffer or offset from call to call is fine).
   * @param into - Destinations for this call, in place of the prepared ones: the same outputs, shapes and strides,
   *   in any buffer and at any offset (a KV-cache slot that moves every step).
   * @returns The outputs, in order.
   * @throws {@link SplitError} `BAD_DTYPE`, `BAD_SHAPE`: `x` is not of the prepared dtype and shape (the message names
   *   both); `BAD_OPTIONS`: a destination not placed as prepared; and the codes of `engine.split`.
   */
  split(x: GpuInput<D>, into?: readonly (Into<D> | undefined)[]): Promise<GpuTensor<D>[]>;
  /**
   * Records the split of `x` into your encoder, as `engine.encodeSplit(encoder, x, options)` would: no submit, no
   * await; `alias` defaults to 'none'.
   *
   * @param encoder - Your command encoder, on the engine's device.
   * @param x - A GPU tensor of the prepared dtype and shape.
   * @param into - Destinations for this call, as for `split`.
   * @returns The outputs, in order, valid once you submit the encoder.
   * @throws {@link SplitError} the codes of `split`, and of `engine.encodeSplit`.
   */
  encode(encoder: GPUCommandEncoder, x: GpuInput<D>, into?: readonly (Into<D> | undefined)[]): GpuTensor<D>[];
}

/** A split of host tensors prepared once by {@link CoreSplitEngine.prepare}, on either backend. */
export interface PreparedHostSplit<D extends DType = DType, A = HostData<D>> {
  /** Settles once its pipeline is compiled and its tile table written (at once on the CPU); as for a GPU split. */
  readonly ready: Promise<void>;
  /**
   * Splits `x` as `engine.split(x, options)` with the prepared options would.
   *
   * @param x - A host tensor of the prepared dtype and shape; its data is read at the call.
   * @returns The outputs, in order, as host tensors of the same dtype.
   * @throws {@link SplitError} `BAD_DTYPE`, `BAD_SHAPE`: `x` is not of the prepared dtype and shape; and the codes of
   *   `engine.split`.
   */
  split(x: HostInput<D, A>): Promise<HostOutput<D, A>[]>;
}

/** What `engine.stats` reports: the split that finished last, and the engine's GPU resources. */
export interface EngineStats extends SplitStats {
  /** Pipelines compiled on this engine's device (0 on the CPU backend). */
  readonly pipelinesCreated: number;
  /** Buffers this engine created that are still alive (leased, pooled or cached). */
  readonly liveBuffers: number;
  /**
   * The costs the planner chooses strategies by now: the engine's `costs` option, else its adapter's fixed table
   * (a hardware GPU's or a software adapter's), until `calibrate()` measures others; undefined on the CPU.
   */
  readonly costs: CostModel | undefined;
}

/**
 * A node's outputs: where its data input lives, with its dtype when the type says which (and in a `Float16Array` when
 * its data is one).
 */
export type NodeOutputs<N extends SplitNode<TensorLike>> = N['inputs'][0] extends GpuTensor
  ? GpuTensor<N['inputs'][0]['dtype']>[]
  : N['inputs'][0] extends HostTensor<DType, HostData<DType>>
    ? HostOutput<N['inputs'][0]['dtype'], N['inputs'][0]['data']>[]
    : HostTensor[];

/**
 * A split engine's calls but `run`: what `createSplitEngine` of `cleave-gpu/core` returns. Host tensors in give host
 * tensors out, GPU tensors in give GPU tensors out. Every call checks its arguments before any GPU work and throws
 * (or its promise rejects with) a {@link SplitError}. After `destroy()`, or once the device is lost, its calls fail
 * with `RELEASED` or `DEVICE_LOST` (`release`, `destroy` and `acknowledge` excepted); while a late GPU error waits in
 * `lateErrors`, `split`, `encodeSplit`, `upload` and `download` fail with `GPU_ERROR`. The methods work when taken off
 * the engine. The examples use an `engine` made by `await createSplitEngine()`, on WebGPU where they hold GPU tensors,
 * and {@link tensor}.
 */
export interface CoreSplitEngine {
  /** Where this engine splits. */
  readonly backend: Backend;
  /** The device in use (undefined on the CPU backend). */
  readonly device: GPUDevice | undefined;
  /** The device's adapter (undefined on the CPU backend, or when a device you passed does not say). */
  readonly adapterInfo:
    | {
        /** The adapter's vendor, as WebGPU reports it. */
        readonly vendor: string;
        /** The adapter's architecture, as WebGPU reports it. */
        readonly architecture: string;
      }
    | undefined;
  /** Why an 'auto' engine runs on the CPU (no WebGPU, no adapter, ...); undefined otherwise. */
  readonly fallbackReason: string | undefined;
  // The host form comes last: a call that matches neither form reports the last one's error, and
  // a host tensor with a widened dtype (`dtype: string`, or `number[]` data) is the usual mistake.
  /**
   * Splits a GPU tensor along one axis. The GPU work is recorded and submitted at the call, so it reads the input as
   * it is then; a split whose shader is not compiled yet on this device copies its input at the call and records once
   * the shader's asynchronous compile is done (never a synchronous compile). The outputs are GPU tensors in a buffer
   * of the engine's (views of the input where `alias` allows) or at your `into` destinations; release each when done
   * with it.
   *
   * @param x - The input: a tensor in a buffer on this engine's device, with usage STORAGE | COPY_SRC.
   * @param options - `axis` (default 0) with `sizes` or `parts`; where the outputs go: `layout`, `alias`, `into`.
   * @returns The outputs, in order.
   * @throws {@link SplitError} `BAD_INPUT`, `BAD_DTYPE`, `BAD_SHAPE`, `DATA_LENGTH`: `x` is not a GPU tensor Cleave
   *   can read (its buffer's usage included); `WRONG_BACKEND`: a CPU engine, or a `string` tensor; `BAD_OPTIONS`,
   *   `AXIS_RANGE`, `RANK`, `BAD_SIZE`, `SIZE_SUM`, `BAD_PARTS`: the options break a rule (an `into` destination
   *   included); `TOO_LARGE`: past a cap or the device's limits; `RELEASED`: `x` or a destination's tensor was
   *   released, or the engine destroyed; `DEVICE_LOST`; `GPU_ERROR`: the GPU refused the split's commands, `x`'s own
   *   split failed, or a late error waits.
   * @example
   * ```ts
   * const gx = engine.upload(tensor('float32', new Float32Array(24), [4, 6]));
   * const [a, b] = await engine.split(gx, { axis: 1, sizes: [1, 5] }); // shapes [4, 1] and [4, 5]
   * for (const t of [a, b, gx]) engine.release(t);
   * ```
   */
  split<D extends string>(
    x: GpuInput<D>,
    options: SplitOptions & OutputOptions<Fixed<D & FixedDType>>,
  ): Promise<GpuTensor<D & FixedDType>[]>;
  /**
   * Splits a host tensor along one axis, through the GPU on a WebGPU engine (strings and complex types on the CPU).
   * The data is read at the call: you may reuse the array once the call returns.
   *
   * @param x - The input: a host tensor ({@link tensor} makes one), its `data` an array the dtype takes
   *   ({@link HostData}): a float16 `Float16Array` gives `Float16Array` outputs.
   * @param options - `axis` (default 0) with `sizes` or `parts` (`layout`, `alias` and `into` are for GPU inputs).
   * @returns The outputs, in order, as host tensors of the same dtype.
   * @throws {@link SplitError} `BAD_INPUT`, `BAD_DTYPE`, `BAD_SHAPE`, `DATA_TYPE`, `DATA_LENGTH`: `x` is not a tensor
   *   Cleave can read; `BAD_OPTIONS`, `AXIS_RANGE`, `RANK`, `BAD_SIZE`, `SIZE_SUM`, `BAD_PARTS`: the options break a
   *   rule; `TOO_LARGE`: past a cap or the device's limits; `RELEASED`: the engine was destroyed; `DEVICE_LOST`;
   *   `GPU_ERROR`: the GPU refused the split's commands, or a late error waits.
   * @example
   * ```ts
   * const x = tensor('int32', new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
   * const [a, b] = await engine.split(x, { axis: 1, sizes: [1, 2] });
   * console.log([...a!.data], [...b!.data]); // [1, 4] [2, 3, 5, 6]
   * ```
   */
  split<D extends string, A>(x: HostInput<D, A>, options: SplitOptions): Promise<HostOutput<D & DType, A>[]>;
  /**
   * Records a split of a GPU tensor into your encoder and returns at once: no submit, no await. The outputs hold the
   * split once you submit the encoder; errors in the recorded commands surface there, in your error scopes.
   *
   * @param encoder - Your command encoder, on this engine's device.
   * @param x - The input GPU tensor, as for `split`.
   * @param options - As for `split`, but `alias` defaults to 'none': it copies unless you allow views.
   * @returns The outputs, in order, valid once you submit the encoder.
   * @throws {@link SplitError} `BAD_INPUT`: `encoder` is not a GPUCommandEncoder, or `x` is not a GPU tensor Cleave
   *   can read; the other codes as for the GPU form of `split`, but never a GPU error of its own commands.
   * @example
   * ```ts
   * const qkv = engine.upload(tensor('float32', new Float32Array(12), [1, 12]));
   * const encoder = engine.device!.createCommandEncoder();
   * const [q, k, v] = engine.encodeSplit(encoder, qkv, { axis: -1, parts: 3 });
   * engine.device!.queue.submit([encoder.finish()]); // q, k and v hold the split from here on
   * ```
   */
  encodeSplit<D extends string>(
    encoder: GPUCommandEncoder,
    x: GpuInput<D>,
    options: SplitOptions & OutputOptions<Fixed<D & FixedDType>>,
  ): GpuTensor<D & FixedDType>[];
  /**
   * Prepares a split of tensors like `x` with these options, to run on every call for what its WebGPU calls cost: the
   * options are read now (changing the object later changes nothing), the split is planned and checked now, its GPU
   * work is made ready ahead (`ready`), and each call checks only the tensor it is given and its destinations. `split`
   * and `encodeSplit` plan the same way and keep their plans, so a prepared split saves what finding one costs.
   *
   * @param x - A tensor of the dtype and shape to prepare for (for a GPU tensor, its offset too; an offset or a
   *   destination in another alignment class is planned once, at its first call).
   * @param options - As for `split`; `into` gives the destinations every call writes unless it gives its own.
   * @returns The prepared split: `split(x, into?)`, and for GPU tensors `encode(encoder, x, into?)`.
   * @throws {@link SplitError} the codes of `split` for these arguments (nothing is written).
   * @example
   * ```ts
   * const qkv = engine.upload(tensor('float32', new Float32Array(12), [1, 12]));
   * const split = engine.prepare(qkv, { axis: -1, parts: 3 });
   * await split.ready; // compiled, its table written: no call compiles or creates anything
   * for (let step = 0; step < 3; step++) {
   *   const [q, k, v] = await split.split(qkv); // the same plan every step
   *   for (const t of [q, k, v]) engine.release(t);
   * }
   * engine.release(qkv);
   * ```
   */
  prepare<D extends string>(
    x: GpuInput<D>,
    options: SplitOptions & OutputOptions<Fixed<D & FixedDType>>,
  ): PreparedSplit<D & FixedDType>;
  /**
   * Prepares a split of host tensors like `x`: on a WebGPU engine through the GPU, on a CPU engine on the CPU.
   *
   * @param x - A host tensor of the dtype and shape to prepare for.
   * @param options - `axis` with `sizes` or `parts`.
   * @returns The prepared split: `split(x)`.
   * @throws {@link SplitError} the codes of `split` for these arguments.
   * @example
   * ```ts
   * const split = engine.prepare(tensor('int32', new Int32Array(6), [2, 3]), { axis: 1, sizes: [1, 2] });
   * const [a, b] = await split.split(tensor('int32', new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3]));
   * console.log([...a!.data], [...b!.data]); // [1, 4] [2, 3, 5, 6]
   * ```
   */
  prepare<D extends string, A>(x: HostInput<D, A>, options: SplitOptions): PreparedHostSplit<D & DType, A>;
  /**
   * Copies a host tensor into a buffer of the engine's, with usage `TENSOR_USAGE`. Synchronous: a GPU error it causes
   * (out of memory) lands in your error scope, and the next split of the tensor rejects.
   *
   * @param x - A host tensor of any dtype but `string` (a float16 `Float16Array` uploads as its bits).
   * @returns A GPU tensor at byte 0 of its buffer; release it when done.
   * @throws {@link SplitError} `WRONG_BACKEND`: a CPU engine, or a `string` tensor; `BAD_INPUT`, `BAD_DTYPE`,
   *   `BAD_SHAPE`, `DATA_TYPE`, `DATA_LENGTH`: `x` is not a host tensor Cleave can read; `TOO_LARGE`: above the
   *   device's `maxBufferSize`, or past a cap; `RELEASED`, `DEVICE_LOST`, `GPU_ERROR`: the engine is not usable.
   * @example
   * ```ts
   * const gx = engine.upload(tensor('uint8', new Uint8Array([1, 2, 3]), [3]));
   * console.log(gx.byteOffset, gx.byteLength); // 0 3
   * engine.release(gx);
   * ```
   */
  upload<D extends string, A>(x: HostInput<D, A, FixedDType>): GpuTensor<D & FixedDType>;
  /**
   * Reads a GPU tensor back into host memory, once the splits its bytes depend on are known to have run.
   *
   * @param x - A GPU tensor on this engine's device: Cleave's, or yours (its buffer with usage COPY_SRC).
   * @returns A host tensor with a copy of its bytes, in its dtype's {@link HostDataMap} array (float16 as bits, a
   *   `Uint16Array`; the other form gives a float16 tensor's values as a `Float16Array`).
   * @throws {@link SplitError} `WRONG_BACKEND`: a CPU engine, or a `string` tensor; `BAD_INPUT`, `BAD_DTYPE`,
   *   `BAD_SHAPE`, `DATA_LENGTH`: `x` is not a GPU tensor Cleave can read (its buffer's usage included);
   *   `BAD_OPTIONS`: `array` for a dtype other than float16, or where the runtime has no `Float16Array`; `RELEASED`:
   *   `x` was released, or the engine destroyed; `DEVICE_LOST`; `GPU_ERROR`: the split that made `x` failed on the
   *   GPU, the readback failed, or a late error waits.
   * @example
   * ```ts
   * const gx = engine.upload(tensor('float32', new Float32Array([1, 2]), [2]));
   * console.log([...(await engine.download(gx)).data]); // [1, 2]
   * const gh = engine.upload(tensor('float16', halvesFrom([0.5, 2]), [2]));
   * console.log([...(await engine.download(gh, { array: 'Float16Array' })).data]); // [0.5, 2] where Float16Array is
   * for (const t of [gx, gh]) engine.release(t);
   * ```
   */
  download<D extends string>(x: GpuInput<D>): Promise<HostTensor<D & FixedDType>>;
  /**
   * Reads a float16 GPU tensor back as a `Float16Array` of its values, where the runtime has one (browsers, Deno,
   * Node 24+); the other form gives its bits.
   *
   * @param x - A float16 GPU tensor on this engine's device.
   * @param options - `array: 'Float16Array'`.
   * @returns A host tensor whose data is a `Float16Array`.
   * @throws {@link SplitError} as the other form.
   */
  download(
    x: GpuInput<'float16'>,
    options: { readonly array: 'Float16Array' },
  ): Promise<HostTensor<'float16', Float16Data>>;
  /**
   * Ends a GPU tensor's use; its buffer returns to its engine's pool with the last tensor of its lease. Releasing
   * twice, or `undefined`, does nothing; any engine may release any Cleave tensor, destroyed engines included.
   *
   * @param x - A tensor Cleave returned (not a copy of one), or undefined.
   * @throws {@link SplitError} `BAD_INPUT`: a copy of a tensor, or a tensor Cleave did not hand out.
   * @example
   * ```ts
   * const gx = engine.upload(tensor('int8', new Int8Array(4), [4]));
   * const [a, b] = await engine.split(gx, { parts: 2 });
   * for (const t of [a, b, gx]) engine.release(t); // the buffers go back to the pool
   * ```
   */
  release<D extends string>(x: GpuInput<D> | undefined): void;
  /**
   * Measures the device's costs for the planner now, and only now: nothing is ever measured unless you call this.
   * The engine plans the splits it meets from then on with them (a prepared split keeps the costs it was prepared
   * with). Keep them (in storage, say) and pass them as `createSplitEngine({ costs })` next time: the same plans
   * without measuring again. It submits a few hundred small command buffers (copies and gathers of 1 MiB) to the
   * engine's queue, in a fraction of a second on a GPU.
   *
   * @returns The costs measured.
   * @throws {@link SplitError} `WRONG_BACKEND`: a CPU engine; `GPU_ERROR`: the measurement failed (the engine keeps
   *   its costs); `RELEASED`: the engine was destroyed; `DEVICE_LOST`.
   */
  calibrate(): Promise<CostModel>;
  /**
   * Frees every buffer the engine created (tensors still held become `RELEASED`), and its device if it created that
   * too, never a device you passed in. Calling it again does nothing.
   */
  destroy(): void;
  /**
   * GPU errors of splits that resolved before their GPU errors were known, oldest first, not yet
   * acknowledged (always empty with `onLateError`). While there is one, `split`, `run`, `encodeSplit`,
   * `upload` and `download` fail with `GPU_ERROR`.
   */
  readonly lateErrors: readonly SplitError[];
  /**
   * Hands over the late errors and clears them: the engine takes calls again.
   *
   * @returns What `lateErrors` held, oldest first.
   */
  acknowledge(): SplitError[];
  /** What the split that finished last did (with several in flight, any of them), and the engine's GPU resources. */
  readonly stats: EngineStats;
}

/**
 * A split engine, from {@link createSplitEngine}: the calls of a {@link CoreSplitEngine} (read its rules there), and
 * `run` for operator nodes, which follows the same rules.
 */
export interface SplitEngine extends CoreSplitEngine {
  /**
   * Runs one operator node (Split, SplitToSequence, VariadicSplit) as its spec and version say; outputs live where
   * the data input lived.
   *
   * @param node - The node: `op`, `opset`, positional `inputs`, `attrs`, the declared `outputs` (only Split-1 to -13
   *   without `split` need it; see {@link SplitNode}).
   * @param options - For a GPU data input: `layout`, `alias`, `into`, as for `split`.
   * @returns The outputs, in order (a SplitToSequence's sequence as its tensors).
   * @throws {@link SplitError} `BAD_OPTIONS`: not a node, an unknown op or field, or output options for a host
   *   input; `BAD_OPSET`, `BAD_ATTRIBUTE`, `BAD_INPUT`, `BAD_DTYPE`, `OUTPUT_COUNT`: the node breaks its version's
   *   rules; `BAD_SHAPE`, `DATA_TYPE`, `DATA_LENGTH`, `WRONG_BACKEND`: an input is not a tensor Cleave can read here;
   *   `RANK`, `AXIS_RANGE`, `BAD_SIZE`, `SIZE_SUM`, `NOT_DIVISIBLE`: the split does not fit the data; `TOO_LARGE`,
   *   `RELEASED`, `DEVICE_LOST`, `GPU_ERROR`: as for `split`.
   * @example
   * ```ts
   * const x = tensor('float32', new Float32Array(16), [2, 8]);
   * const outs = await engine.run({ op: 'Split', opset: 18, inputs: [x], attrs: { axis: 1, num_outputs: 4 } });
   * console.log(outs.map((t) => t.shape)); // [[2, 2], [2, 2], [2, 2], [2, 2]]
   * ```
   */
  run<const N extends SplitNode<TensorLike>>(node: CheckedNode<N>, options?: OutputOptions): Promise<NodeOutputs<N>>;
}
