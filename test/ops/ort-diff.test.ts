// Differential test against onnxruntime-node (CPU execution provider): single-node models built
// with onnx-proto for Split-13, Split-18 and SplitToSequence-11/24, over seeded generated cases
// and every dtype ORT can exchange with JavaScript (bfloat16 through Cast nodes). Each case runs
// on Cleave's CPU backend and its WebGPU backend; outputs must match ORT bit for bit.
//
// Where ORT departs from Cleave's documented policy, the case is not dropped: it is classified
// under one entry of DISAGREEMENTS, and the test asserts the exact ORT behaviour written there
// and Cleave's own. Dtypes ORT cannot run are listed too, and the test checks that ORT still
// cannot run them (so a newer ORT that can turns this test red until they are compared).

import { describe, expect, test } from 'vitest';
import {
  type DType,
  type HostTensor,
  type SplitEngine,
  type SplitNode,
  DTYPES,
  ONNX_DTYPES,
  SplitError,
  createSplitEngine,
} from '../../src/index.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import { ParamsBuilder, hashParams, int, randomSizes, randomTensor, rng } from '../helpers/cases.js';
import { expectGpuPath } from '../helpers/check.js';
import { bitsOf } from '../helpers/golden-io.js';
import { splitMismatch } from '../helpers/reference.js';
import { type OrtCase, type OrtResult, ortCanHold, runOrt } from '../helpers/ort-model.js';

// ---------------------------------------------------------------------------------------------
// What can be compared

/** Every dtype onnxruntime-node's JavaScript tensors carry. */
const ORT_JS: readonly DType[] = [
  'float32',
  'float64',
  'float16',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'bool',
  'string',
];
/** Split is compared on these: the JavaScript ones, and bfloat16 through Cast nodes (float32 <-> bfloat16). */
const SPLIT_DTYPES: readonly DType[] = [...ORT_JS, 'bfloat16'];
/** The dtypes ORT registers its CPU SplitToSequence kernel for. */
const SEQ_DTYPES: readonly DType[] = ['float32', 'float64', 'float16', 'int32', 'int64', 'string', 'bool'];
/** Not comparable, each for a reason the tests below check. */
const NOT_COMPARED: Readonly<Record<string, { dtypes: readonly DType[]; why: string }>> = {
  complex: {
    dtypes: ['complex64', 'complex128'],
    why: 'onnxruntime-node has no complex JavaScript tensors ("Unsupported tensor type")',
  },
  seqKernel: {
    dtypes: ['int8', 'uint8', 'int16', 'uint16', 'uint32', 'uint64'],
    why: 'ORT has no SplitToSequence kernel for them ("Could not find an implementation")',
  },
  seqBf16: {
    dtypes: ['bfloat16'],
    why: "SplitToSequence-24 takes bfloat16 but SequenceAt's types do not include seq(tensor(bfloat16)), so ORT cannot read it back",
  },
};
/** Values (not dtypes) left out of the generated data, each for a reason checked below. */
const NOT_COMPARED_VALUES = {
  nulInStrings:
    "strings containing U+0000: onnxruntime-node's JavaScript binding cuts them at the NUL ('nul\\0in' comes back 'nul')",
  bfloat16NaN:
    'bfloat16 NaN payloads and subnormals: they travel through Cast to and from float32, which canonicalises NaN (bits of other values survive)',
};

// ---------------------------------------------------------------------------------------------
// Where ORT and Cleave's policy differ

const DISAGREEMENTS = {
  unevenEmptyTail: {
    case: 'Split-18, num_outputs n where ceil(dim/n) chunks leave an empty trailing chunk (5 into 4, 6 into 4, 2 into 3, 0 into 1)',
    ort:
      `refuses: "Invalid value in 'split'. Split size c exceeds the remaining size of the selected axis, r." or ` +
      '"Invalid num_outputs value of n. Size of dimension being split is d"',
    cleave: 'follows the ONNX reference: chunks of ceil(dim/n) clamped to what remains (5 into 4 = [2, 2, 1, 0])',
    ortError:
      /Split size \d+ exceeds the remaining size of the selected axis, \d+|Invalid num_outputs value of \d+\. Size of dimension being split is \d+/,
  },
  scalarSplitKeepdims0: {
    case: "SplitToSequence with a scalar 'split' and keepdims=0",
    ort:
      'applies keepdims anyway: drops the axis when every chunk has length 1 (or holds no elements); otherwise fails in Reshape ' +
      '("Tensor size (a) != new size (b)")',
    cleave: "keeps the axis, since the spec says keepdims is ignored whenever 'split' is given",
    ortError: /Tensor size \(\d+\) != new size \(\d+\)/,
    // A chunk with no elements reshapes fine, so ORT then returns it without the axis even when
    // the chunk's length along it is not 1 (a [3, 0, 5] chunk comes back as [3, 0]).
  },
  split18Neither: {
    case: "Split-18 with neither the 'split' input nor num_outputs",
    ort: 'splits into equal parts, one per declared output',
    cleave: 'refuses (BAD_OPTIONS): the spec says exactly one of them must be given',
  },
  split18CountMismatch: {
    case: 'Split-18 whose declared output count differs from num_outputs',
    ort: 'splits into equal parts by the declared output count and ignores num_outputs',
    cleave: 'refuses (OUTPUT_COUNT)',
  },
  emptySplitInput: {
    case: "Split-13/18 with a 'split' input of shape [0]",
    ort: "reads it as an absent 'split': equal parts by the declared output count (Split-18: even without num_outputs)",
    cleave: "refuses (BAD_SIZE): an omitted optional input is `undefined`; an empty 'split' lists zero outputs",
  },
} as const;
type DisagreementId = keyof typeof DISAGREEMENTS;

const tally = {
  compared: new Map<string, number>(),
  refusedByBoth: 0,
  disagreements: new Map<DisagreementId, number>(),
};
const count = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);

// ---------------------------------------------------------------------------------------------
// Cases

interface DiffCase {
  readonly title: string;
  readonly dtype: DType;
  readonly node: SplitNode;
  readonly ort: OrtCase;
  /** The axis, normalised (for keepdims=0 comparisons). */
  readonly axis: number;
  /** Set when ORT is expected to depart from the policy. */
  readonly disagreement?: DisagreementId;
  /** Set when both must refuse. */
  readonly bothRefuse?: RegExp;
  /** The policy's chunk lengths, where the case states them: Cleave's outputs are checked against the reference. */
  readonly sizes?: readonly number[];
}

const SHAPES: readonly (readonly number[])[] = [[6], [4, 6], [3, 0, 5], [2, 3, 4], [1, 5, 2, 3], [2, 2, 1, 3, 4]];
const axesOf = (shape: readonly number[]) => shape.map((_, i) => (hashParams({ shape, i }) % 2 ? i : i - shape.length));
const isControl = (p: { dtype: DType; shape: readonly number[]; axis: number; mode: string }) =>
  p.dtype === 'float32' && p.shape.join() === '4,6' && p.axis === 1 && p.mode === 'split';
const i64 = (values: readonly number[], shape = [values.length]): HostTensor => ({
  dtype: 'int64',
  shape,
  data: BigInt64Array.from(values.map(BigInt)),
});
const i32 = (values: readonly number[], shape = [values.length]): HostTensor => ({
  dtype: 'int32',
  shape,
  data: Int32Array.from(values),
});
const divisors = (d: number) =>
  d === 0 ? [1, 2, 3] : Array.from({ length: d }, (_, i) => i + 1).filter((k) => d % k === 0);
const nonDivisors = (d: number) =>
  Array.from({ length: Math.max(0, d - 2) }, (_, i) => i + 2).filter((k) => d % k !== 0);

/** The policy's uneven chunks, written out again here: ceil(dim/n), clamped to what remains. */
function policyChunks(dim: number, n: number): number[] {
  const c = Math.ceil(dim / n);
  return Array.from({ length: n }, (_, i) => Math.max(0, Math.min(c, dim - i * c)));
}

function splitCases(opset: 13 | 18): DiffCase[] {
  const modes = opset === 13 ? ['split', 'equal', 'indivisible'] : ['split', 'num_outputs'];
  return ParamsBuilder.start()
    .combine('dtype', SPLIT_DTYPES)
    .combine('shape', SHAPES)
    .expand('axis', (p) => axesOf(p.shape))
    .combine('mode', modes)
    .filter((p) => p.mode !== 'indivisible' || nonDivisors(p.shape.at(p.axis)!).length > 0)
    .filter((p) => isControl(p) || hashParams({ ...p, opset }) % 3 === 0)
    .cases.map((p): DiffCase => {
      const next = rng(hashParams({ ...p, opset }));
      const x = randomTensor(p.dtype, p.shape, next, { forOrt: true });
      const dim = p.shape.at(p.axis)!;
      const axis = (p.axis + p.shape.length) % p.shape.length;
      const base = { dtype: p.dtype, axis, title: `${p.dtype} [${p.shape}] axis ${p.axis} ${p.mode}` };
      if (p.mode === 'split') {
        const sizes = randomSizes(dim, int(next, 1, 4), next);
        return {
          ...base,
          title: `${base.title} [${sizes}]`,
          sizes,
          node: { op: 'Split', opset, inputs: [x, i64(sizes)], attrs: { axis: p.axis }, outputs: sizes.length },
          ort: { op: 'Split', opset, x, split: i64(sizes), attrs: { axis: p.axis }, outputs: sizes.length },
        };
      }
      if (p.mode === 'num_outputs') {
        const n = int(next, 1, dim + 2);
        const sizes = policyChunks(dim, n);
        return {
          ...base,
          title: `${base.title} ${n} (policy [${sizes}])`,
          sizes,
          node: { op: 'Split', opset, inputs: [x], attrs: { axis: p.axis, num_outputs: n }, outputs: n },
          ort: { op: 'Split', opset, x, attrs: { axis: p.axis, num_outputs: n }, outputs: n },
          ...(sizes.at(-1) === 0 ? { disagreement: 'unevenEmptyTail' as const } : {}),
        };
      }
      const candidates = p.mode === 'equal' ? divisors(dim) : nonDivisors(dim);
      const n = candidates[int(next, 0, candidates.length - 1)]!;
      return {
        ...base,
        title: `${base.title} into ${n}`,
        node: { op: 'Split', opset, inputs: [x], attrs: { axis: p.axis }, outputs: n },
        ort: { op: 'Split', opset, x, attrs: { axis: p.axis }, outputs: n },
        ...(p.mode === 'indivisible' ? { bothRefuse: /cannot be split evenly/ } : {}),
      };
    });
}

function sequenceCases(): DiffCase[] {
  return ParamsBuilder.start()
    .combine('opset', [11, 24])
    .combine('dtype', SEQ_DTYPES)
    .combine('shape', SHAPES)
    .expand('axis', (p) => axesOf(p.shape))
    .combine('mode', ['none', 'none-keepdims0', 'scalar', 'scalar-keepdims0', '1d', '1d-keepdims0'])
    .filter(
      (p) =>
        hashParams(p) % 5 === 0 || (p.opset === 11 && isControl({ ...p, mode: p.mode === '1d' ? 'split' : p.mode })),
    )
    .cases.map((p): DiffCase => {
      const next = rng(hashParams(p));
      const x = randomTensor(p.dtype, p.shape, next, { forOrt: true });
      const dim = p.shape.at(p.axis)!;
      const axis = (p.axis + p.shape.length) % p.shape.length;
      const attrs = { axis: p.axis, ...(p.mode.endsWith('keepdims0') ? { keepdims: 0 } : {}) };
      const splitType = next() < 0.5 ? i32 : i64;
      let split: HostTensor | undefined;
      let lengths: number[];
      if (p.mode.startsWith('none')) {
        lengths = new Array<number>(dim).fill(1);
      } else if (p.mode.startsWith('scalar')) {
        const k = int(next, 1, dim + 1);
        split = splitType([k], []);
        lengths = Array.from({ length: Math.ceil(dim / k) }, (_, i) => Math.min(k, dim - i * k));
      } else {
        lengths = randomSizes(dim, int(next, 1, 4), next);
        split = splitType(lengths);
      }
      const disagree = p.mode === 'scalar-keepdims0' && lengths.length > 0;
      return {
        dtype: p.dtype,
        axis,
        title: `opset ${p.opset} ${p.dtype} [${p.shape}] axis ${p.axis} ${p.mode}${split ? ` split ${split.shape.length ? `[${lengths}]` : split.data[0]}` : ''}`,
        node: { op: 'SplitToSequence', opset: p.opset, inputs: split ? [x, split] : [x], attrs },
        ort: { op: 'SplitToSequence', opset: p.opset, x, ...(split ? { split } : {}), attrs, outputs: lengths.length },
        ...(disagree ? { disagreement: 'scalarSplitKeepdims0' as const } : {}),
        // keepdims=0 without 'split' drops the axis: those outputs are not plain chunks.
        ...(split || !p.mode.endsWith('keepdims0') ? { sizes: lengths } : {}),
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Running and comparing

type Outcome = { readonly outputs: HostTensor[] } | { readonly error: unknown };

async function attempt(f: () => Promise<HostTensor[]>): Promise<Outcome> {
  try {
    return { outputs: await f() };
  } catch (error) {
    return { error };
  }
}

/** The first difference between two output lists, or undefined. `dropAxis` removes it from `b`'s shapes. */
function difference(a: readonly HostTensor[], b: readonly HostTensor[], dropAxis?: number): string | undefined {
  if (a.length !== b.length) return `${a.length} outputs vs ${b.length}`;
  for (const [i, x] of a.entries()) {
    const y = b[i]!;
    const yShape = dropAxis === undefined ? [...y.shape] : y.shape.filter((_, k) => k !== dropAxis);
    if (x.dtype !== y.dtype) return `output ${i}: dtype ${x.dtype} vs ${y.dtype}`;
    if (x.shape.join() !== yShape.join()) return `output ${i}: shape [${x.shape}] vs [${yShape}]`;
    if (bitsOf(x) !== bitsOf(y)) return `output ${i}: bits differ`;
  }
  return undefined;
}

const describeOutcome = (o: Outcome | OrtResult) =>
  'error' in o
    ? `error: ${o.error instanceof Error ? o.error.message : String(o.error)}`
    : `${o.outputs.length} outputs`;

/** Runs one case everywhere; returns the problems found (empty when all is as documented). */
async function check(c: DiffCase, engines: { cpu: SplitEngine; webgpu: SplitEngine }): Promise<string[]> {
  const ort = await runOrt(c.ort);
  const ours = {
    cpu: await attempt(() => engines.cpu.run(c.node)),
    webgpu: await attempt(() => engines.webgpu.run(c.node)),
  };
  if ('outputs' in ours.webgpu) expectGpuPath(engines.webgpu, c.dtype, ours.webgpu.outputs);
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${c.title}: ${what}`);

  // The two backends always agree with each other.
  if ('outputs' in ours.cpu && 'outputs' in ours.webgpu) {
    const d = difference(ours.cpu.outputs, ours.webgpu.outputs);
    if (d) fail(`cpu and webgpu differ: ${d}`);
  } else if ('outputs' in ours.cpu !== 'outputs' in ours.webgpu) {
    fail(`cpu ${describeOutcome(ours.cpu)} but webgpu ${describeOutcome(ours.webgpu)}`);
  }
  const mine = ours.cpu;

  if (c.bothRefuse) {
    if (!('error' in ort) || !c.bothRefuse.test(ort.error))
      fail(`ORT should refuse (${c.bothRefuse}), got ${describeOutcome(ort)}`);
    if (!('error' in mine) || !(mine.error instanceof SplitError))
      fail(`Cleave should refuse, got ${describeOutcome(mine)}`);
    if (problems.length === 0) tally.refusedByBoth++;
    return problems;
  }
  if (!('outputs' in mine)) {
    fail(`Cleave refused: ${describeOutcome(mine)}`);
    return problems;
  }
  if (c.sizes) {
    // Whatever ORT does, Cleave's outputs are the policy's chunks, by the independent reference.
    const d = splitMismatch(mine.outputs, c.node.inputs[0] as HostTensor, c.axis, c.sizes);
    if (d) fail(`Cleave's outputs are not the split of [${c.sizes}]: ${d}`);
  }
  if (c.disagreement === 'unevenEmptyTail') {
    if (!('error' in ort) || !DISAGREEMENTS.unevenEmptyTail.ortError.test(ort.error)) {
      fail(`documented ORT refusal expected, got ${describeOutcome(ort)}`);
    }
  } else if (c.disagreement === 'scalarSplitKeepdims0') {
    // ORT reshapes each chunk to drop the axis: that works when the chunk's length is 1 or it
    // holds no elements at all, and fails on the first other chunk.
    const reshapes = mine.outputs.every((o) => o.shape[c.axis] === 1 || o.shape.includes(0));
    if (reshapes) {
      const d = 'error' in ort ? describeOutcome(ort) : difference(ort.outputs, mine.outputs, c.axis);
      if (d) fail(`ORT should give our tensors with axis ${c.axis} dropped: ${d}`);
    } else if (!('error' in ort) || !DISAGREEMENTS.scalarSplitKeepdims0.ortError.test(ort.error)) {
      fail(`documented ORT Reshape failure expected, got ${describeOutcome(ort)}`);
    }
  } else if ('error' in ort) {
    fail(`ORT refused: ${ort.error}`);
  } else {
    if (ort.sequenceLength !== undefined && ort.sequenceLength !== mine.outputs.length) {
      fail(`sequence length: ORT ${ort.sequenceLength}, Cleave ${mine.outputs.length}`);
    }
    const d = difference(ort.outputs, mine.outputs);
    if (d) fail(`ORT and Cleave differ: ${d}`);
  }
  if (problems.length === 0) {
    if (c.disagreement) count(tally.disagreements, c.disagreement);
    else count(tally.compared, `${c.node.op}-${c.node.opset}`);
  }
  return problems;
}

let cpuEngine: Promise<SplitEngine> | undefined;
const cpu = () => (cpuEngine ??= createSplitEngine({ backend: 'cpu' }));
async function enginesOf(g: GpuFixture) {
  return { cpu: await cpu(), webgpu: await g.engine() };
}

function group(title: string, cases: readonly DiffCase[]): void {
  for (const dtype of DTYPES) {
    const mine = cases.filter((c) => c.dtype === dtype);
    if (mine.length === 0) continue;
    gpuTest(`${title} ${dtype}: ${mine.length} generated cases against onnxruntime-node`, async (g) => {
      const engines = await enginesOf(g);
      const problems: string[] = [];
      for (const c of mine) problems.push(...(await check(c, engines)));
      expect(problems).toEqual([]);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The tests

describe('coverage of dtypes', () => {
  test('every ONNX dtype is compared or listed with the reason it cannot be (the OpenVINO-only ones are not ONNX types)', () => {
    for (const d of ONNX_DTYPES) {
      const split = SPLIT_DTYPES.includes(d) || NOT_COMPARED.complex!.dtypes.includes(d);
      const seq = SEQ_DTYPES.includes(d) || Object.values(NOT_COMPARED).some((n) => n.dtypes.includes(d));
      expect(split && seq, d).toBe(true);
    }
  });

  test('onnxruntime-node still cannot hold complex tensors', () => {
    for (const d of NOT_COMPARED.complex!.dtypes) expect(ortCanHold(d), d).toBe(false);
    for (const d of ORT_JS) expect(ortCanHold(d), d).toBe(true);
  });

  test(`left out: ${NOT_COMPARED_VALUES.nulInStrings}`, async () => {
    const x: HostTensor = { dtype: 'string', shape: [2], data: ['nul\u0000in', 'ok'] };
    const r = await runOrt({ op: 'Split', opset: 13, x, outputs: 2 });
    expect('outputs' in r && r.outputs.map((o) => o.data)).toEqual([['nul'], ['ok']]);
    const ours = await (await cpu()).run({ op: 'Split', opset: 13, inputs: [x], outputs: 2 });
    expect(ours.map((o) => o.data)).toEqual([['nul\u0000in'], ['ok']]);
  });

  test(`left out: ${NOT_COMPARED_VALUES.bfloat16NaN}`, async () => {
    const x: HostTensor = { dtype: 'bfloat16', shape: [2], data: Uint16Array.from([0x7fc1, 0x3f80]) };
    const r = await runOrt({ op: 'Split', opset: 13, x, outputs: 2 });
    expect('outputs' in r && r.outputs.map((o) => [...(o.data as Uint16Array)])).toEqual([[0x7fc0], [0x3f80]]);
  });

  test('ORT still has no SplitToSequence kernel for the dtypes listed', async () => {
    for (const d of NOT_COMPARED.seqKernel!.dtypes) {
      for (const opset of [11, 24]) {
        const r = await runOrt({ op: 'SplitToSequence', opset, x: randomTensor(d, [4], rng(1)), outputs: 4 });
        expect('error' in r && r.error, `${d} at opset ${opset}`).toMatch(
          /Could not find an implementation for SplitToSequence/,
        );
      }
    }
  });

  gpuTest('SplitToSequence bfloat16: both refuse at opset 11; ORT cannot read it back at opset 24', async (g) => {
    const { cpu: e, webgpu } = await enginesOf(g);
    const x = randomTensor('bfloat16', [4], rng(2), { forOrt: true });
    const r11 = await runOrt({ op: 'SplitToSequence', opset: 11, x, outputs: 4 });
    expect('error' in r11 && r11.error).toMatch(
      /Type 'tensor\(bfloat16\)' of input parameter .* of operator \(SplitToSequence\)/,
    );
    for (const engine of [e, webgpu]) {
      await expect(engine.run({ op: 'SplitToSequence', opset: 11, inputs: [x] })).rejects.toMatchObject({
        code: 'BAD_DTYPE',
      });
      expect((await engine.run({ op: 'SplitToSequence', opset: 24, inputs: [x] })).length).toBe(4);
    }
    const r24 = await runOrt({ op: 'SplitToSequence', opset: 24, x, outputs: 4 });
    expect('error' in r24 && r24.error).toMatch(/seq\(tensor\(bfloat16\)\).*SequenceAt/);
  });
});

describe('Split-13 vs onnxruntime-node', () => group('Split-13', splitCases(13)));
describe('Split-18 vs onnxruntime-node', () => group('Split-18', splitCases(18)));
describe('SplitToSequence-11/24 vs onnxruntime-node', () => group('SplitToSequence', sequenceCases()));

describe('documented disagreements, case by case', () => {
  const x6 = (): HostTensor => ({ dtype: 'float32', shape: [6], data: Float32Array.from([1, 2, 3, 4, 5, 6]) });
  const values = (outs: readonly HostTensor[]) => outs.map((o) => [...(o.data as Float32Array)]);

  gpuTest('unevenEmptyTail: num_outputs 4 on length 5', async (g) => {
    const x: HostTensor = { dtype: 'float32', shape: [5], data: Float32Array.from([1, 2, 3, 4, 5]) };
    const ort = await runOrt({ op: 'Split', opset: 18, x, attrs: { num_outputs: 4 }, outputs: 4 });
    expect('error' in ort && ort.error).toContain(
      "Invalid value in 'split'. Split size 2 exceeds the remaining size of the selected axis, 1.",
    );
    for (const e of Object.values(await enginesOf(g))) {
      expect(
        values(await e.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 4 }, outputs: 4 })),
      ).toEqual([[1, 2], [3, 4], [5], []]);
    }
    count(tally.disagreements, 'unevenEmptyTail');
  });

  gpuTest('unevenEmptyTail: num_outputs 3 on length 2', async (g) => {
    const x: HostTensor = { dtype: 'float32', shape: [2], data: Float32Array.from([1, 2]) };
    const ort = await runOrt({ op: 'Split', opset: 18, x, attrs: { num_outputs: 3 }, outputs: 3 });
    expect('error' in ort && ort.error).toContain('Invalid num_outputs value of 3. Size of dimension being split is 2');
    for (const e of Object.values(await enginesOf(g))) {
      expect(
        values(await e.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 3 }, outputs: 3 })),
      ).toEqual([[1], [2], []]);
    }
  });

  gpuTest('scalarSplitKeepdims0: scalar split 1 and 2 on [3, 2] with keepdims 0', async (g) => {
    const x: HostTensor = { dtype: 'float32', shape: [3, 2], data: Float32Array.from([1, 2, 3, 4, 5, 6]) };
    const one = await runOrt({
      op: 'SplitToSequence',
      opset: 11,
      x,
      split: i64([1], []),
      attrs: { keepdims: 0 },
      outputs: 3,
    });
    expect('outputs' in one && one.outputs.map((o) => o.shape)).toEqual([[2], [2], [2]]);
    const two = await runOrt({
      op: 'SplitToSequence',
      opset: 11,
      x,
      split: i64([2], []),
      attrs: { keepdims: 0 },
      outputs: 2,
    });
    expect('error' in two && two.error).toContain('Tensor size (4) != new size (2)');
    for (const e of Object.values(await enginesOf(g))) {
      const a = await e.run({ op: 'SplitToSequence', opset: 11, inputs: [x, i64([1], [])], attrs: { keepdims: 0 } });
      expect(a.map((o) => o.shape)).toEqual([
        [1, 2],
        [1, 2],
        [1, 2],
      ]);
      const b = await e.run({ op: 'SplitToSequence', opset: 11, inputs: [x, i64([2], [])], attrs: { keepdims: 0 } });
      expect(b.map((o) => o.shape)).toEqual([
        [2, 2],
        [1, 2],
      ]);
    }
  });

  gpuTest('split18Neither: no split input and no num_outputs', async (g) => {
    const ort = await runOrt({ op: 'Split', opset: 18, x: x6(), outputs: 2 });
    expect('outputs' in ort && values(ort.outputs)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    for (const e of Object.values(await enginesOf(g))) {
      await expect(e.run({ op: 'Split', opset: 18, inputs: [x6()], outputs: 2 })).rejects.toMatchObject({
        code: 'BAD_OPTIONS',
      });
    }
    count(tally.disagreements, 'split18Neither');
  });

  gpuTest('split18CountMismatch: num_outputs 3, two declared outputs', async (g) => {
    const ort = await runOrt({ op: 'Split', opset: 18, x: x6(), attrs: { num_outputs: 3 }, outputs: 2 });
    expect('outputs' in ort && values(ort.outputs)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    for (const e of Object.values(await enginesOf(g))) {
      await expect(
        e.run({ op: 'Split', opset: 18, inputs: [x6()], attrs: { num_outputs: 3 }, outputs: 2 }),
      ).rejects.toMatchObject({ code: 'OUTPUT_COUNT' });
    }
    count(tally.disagreements, 'split18CountMismatch');
  });

  gpuTest('emptySplitInput: a split input of shape [0] at opsets 13 and 18', async (g) => {
    for (const opset of [13, 18]) {
      const ort = await runOrt({ op: 'Split', opset, x: x6(), split: i64([]), outputs: 2 });
      expect('outputs' in ort && values(ort.outputs), `opset ${opset}`).toEqual([
        [1, 2, 3],
        [4, 5, 6],
      ]);
      for (const e of Object.values(await enginesOf(g))) {
        await expect(e.run({ op: 'Split', opset, inputs: [x6(), i64([])], outputs: 2 })).rejects.toMatchObject({
          code: 'BAD_SIZE',
        });
      }
    }
    count(tally.disagreements, 'emptySplitInput');
  });

  gpuTest(
    'both refuse: uneven equal parts before 18, negative or mis-summed split, scalar split, scalar 0',
    async (g) => {
      const refusals: [OrtCase, SplitNode, RegExp, string][] = [
        [
          { op: 'Split', opset: 13, x: x6(), outputs: 4 },
          { op: 'Split', opset: 13, inputs: [x6()], outputs: 4 },
          /cannot be split evenly/,
          'NOT_DIVISIBLE',
        ],
        [
          { op: 'Split', opset: 13, x: x6(), split: i64([-1, 7]), outputs: 2 },
          { op: 'Split', opset: 13, inputs: [x6(), i64([-1, 7])], outputs: 2 },
          /All values must be >= 0/,
          'BAD_SIZE',
        ],
        [
          { op: 'Split', opset: 18, x: x6(), split: i64([3, 4]), outputs: 2 },
          { op: 'Split', opset: 18, inputs: [x6(), i64([3, 4])], outputs: 2 },
          /Split size 4 exceeds the remaining size of the selected axis, 3/,
          'SIZE_SUM',
        ],
        [
          { op: 'Split', opset: 13, x: x6(), split: i64([6], []), outputs: 1 },
          { op: 'Split', opset: 13, inputs: [x6(), i64([6], [])], outputs: 1 },
          /NumDimensions\(\) == 1/,
          'BAD_INPUT',
        ],
        [
          { op: 'SplitToSequence', opset: 11, x: x6(), split: i64([0], []), outputs: 1 },
          { op: 'SplitToSequence', opset: 11, inputs: [x6(), i64([0], [])] },
          /Split should be > 0/,
          'BAD_SIZE',
        ],
      ];
      const engines = await enginesOf(g);
      for (const [ortCase, node, ortError, code] of refusals) {
        const r = await runOrt(ortCase);
        expect('error' in r && r.error, JSON.stringify(node.attrs ?? {})).toMatch(ortError);
        for (const e of Object.values(engines)) await expect(e.run(node)).rejects.toMatchObject({ code });
        tally.refusedByBoth++;
      }
    },
  );
});

test('tally: every documented disagreement was met, and the counts', () => {
  for (const id of Object.keys(DISAGREEMENTS) as DisagreementId[]) {
    expect(tally.disagreements.get(id) ?? 0, `disagreement ${id} observed`).toBeGreaterThan(0);
  }
  const compared = [...tally.compared.values()].reduce((a, b) => a + b, 0);
  expect(compared).toBeGreaterThan(300);
  console.log(
    `ort-diff: ${compared} cases agree bit for bit (${[...tally.compared].map(([k, v]) => `${k}: ${v}`).join(', ')}); ` +
      `${tally.refusedByBoth} refused by both; documented disagreements met: ` +
      `${[...tally.disagreements].map(([k, v]) => `${k} ${v}`).join(', ')}`,
  );
});
