// What the form offers: each operator version and the arguments it takes, every field's label and
// choices, and the presets (the spec examples, a large tensor for timings, a packed uint4 tensor).
// Data only: controls.ts builds the form from it, request.ts reads the form into a node.

import { DTYPES, type OpName, ONNX_DTYPES } from '../src/index.js';

export type Field =
  | 'version'
  | 'dtype'
  | 'shape'
  | 'axis'
  | 'axisShape'
  | 'splitAttr'
  | 'split'
  | 'splitShape'
  | 'indexDtype'
  | 'numOutputs'
  | 'outputs'
  | 'keepdims';

export type FormState = Record<Field, string>;

export interface Version {
  readonly id: string;
  readonly op: OpName;
  readonly opset?: number;
  /** The arguments this version takes besides data dtype, shape and axis. */
  readonly fields: readonly Field[];
  /** What the `split` field is in this version. */
  readonly splitLabel?: string;
}

export const VERSIONS: readonly Version[] = [
  {
    id: 'Split-1',
    op: 'Split',
    opset: 1,
    fields: ['splitAttr', 'split', 'outputs'],
    splitLabel: "'split' input (typed like the data)",
  },
  { id: 'Split-2', op: 'Split', opset: 2, fields: ['splitAttr', 'outputs'] },
  { id: 'Split-11', op: 'Split', opset: 11, fields: ['splitAttr', 'outputs'] },
  { id: 'Split-13', op: 'Split', opset: 13, fields: ['split', 'outputs'], splitLabel: "'split' input (int64)" },
  {
    id: 'Split-18',
    op: 'Split',
    opset: 18,
    fields: ['split', 'numOutputs', 'outputs'],
    splitLabel: "'split' input (int64)",
  },
  {
    id: 'SplitToSequence-11',
    op: 'SplitToSequence',
    opset: 11,
    fields: ['split', 'splitShape', 'indexDtype', 'keepdims'],
    splitLabel: "'split' input",
  },
  {
    id: 'SplitToSequence-24',
    op: 'SplitToSequence',
    opset: 24,
    fields: ['split', 'splitShape', 'indexDtype', 'keepdims'],
    splitLabel: "'split' input",
  },
  {
    id: 'VariadicSplit-1',
    op: 'VariadicSplit',
    fields: ['axisShape', 'split', 'indexDtype'],
    splitLabel: 'split_lengths input',
  },
];

const INDEX_DTYPES = ['int64', 'int32', 'int16', 'int8', 'uint64', 'uint32', 'uint16', 'uint8', 'float32'];

/** Choices under a heading (an <optgroup>); a heading of '' means none. */
export interface Choices {
  readonly heading: string;
  readonly options: readonly string[];
}

export interface FieldSpec {
  readonly label: string;
  readonly choices?: readonly Choices[];
  readonly hint?: string;
}

const flat = (options: readonly string[]): readonly Choices[] => [{ heading: '', options }];

export const FIELDS: Record<Field, FieldSpec> = {
  version: { label: 'operator', choices: flat(VERSIONS.map((v) => v.id)) },
  dtype: {
    label: 'dtype',
    choices: [
      { heading: 'ONNX (every operator)', options: ONNX_DTYPES },
      { heading: 'OpenVINO (VariadicSplit only)', options: DTYPES.filter((d) => !ONNX_DTYPES.includes(d)) },
    ],
  },
  shape: { label: 'shape', hint: 'e.g. 2, 8 (empty: scalar)' },
  axis: { label: 'axis', hint: 'negative counts from the back' },
  axisShape: { label: 'axis input shape', choices: flat(['scalar', '[1]']) },
  splitAttr: { label: "'split' attribute", hint: 'e.g. 2, 4 or empty' },
  split: { label: "'split' input", hint: 'e.g. 2, 4 or empty' },
  splitShape: { label: "'split' input shape", choices: flat(['1-D', 'scalar']) },
  indexDtype: { label: 'index dtype', choices: flat(INDEX_DTYPES) },
  numOutputs: { label: 'num_outputs', hint: 'a count, or empty' },
  outputs: { label: 'declared outputs', hint: 'a count, or empty' },
  keepdims: { label: 'keepdims', choices: flat(['1', '0']) },
};

export const ORDER: readonly Field[] = [
  'version',
  'dtype',
  'shape',
  'axis',
  'axisShape',
  'splitAttr',
  'split',
  'splitShape',
  'indexDtype',
  'numOutputs',
  'outputs',
  'keepdims',
];

export const DEFAULTS: FormState = {
  version: 'Split-18',
  dtype: 'float32',
  shape: '2, 8',
  axis: '1',
  axisShape: 'scalar',
  splitAttr: '',
  split: '',
  splitShape: '1-D',
  indexDtype: 'int64',
  numOutputs: '3',
  outputs: '',
  keepdims: '1',
};

export interface Preset {
  /** Shown under its version's heading; the full name is `${version}: ${name}`. */
  readonly name: string;
  readonly state: Partial<FormState>;
}

/** The version a preset runs (the default's unless it names one). */
export const versionOf = (p: Preset): string => p.state.version ?? DEFAULTS.version;

export const PRESETS: readonly Preset[] = [
  { name: '2×8 into 3 along axis 1 (uneven)', state: {} },
  { name: '7 into 4 = [2, 2, 2, 1]', state: { shape: '7', axis: '0', numOutputs: '4' } },
  { name: '4096 outputs', state: { shape: '2, 4096', numOutputs: '4096' } },
  // Enough bytes that keeping the data on the GPU beats a host round trip even on SwiftShader; rows
  // of 4000 bytes put the chunks at offsets that are not 256-aligned, so the GPU copies (no views).
  { name: '4 MB float32 [1000, 1000] into 3', state: { shape: '1000, 1000', axis: '0' } },
  {
    name: '[2, 6] split [2, 4] along axis 1',
    state: { version: 'Split-13', shape: '2, 6', split: '2, 4', numOutputs: '' },
  },
  {
    name: 'empty tensor into [0, 0, 0]',
    state: { version: 'Split-13', shape: '0', axis: '0', split: '0, 0, 0', numOutputs: '' },
  },
  {
    name: 'int64 data, negative axis',
    state: { version: 'Split-11', dtype: 'int64', shape: '2, 3, 4', axis: '-1', splitAttr: '1, 3', numOutputs: '' },
  },
  {
    name: 'split as a second float input',
    state: { version: 'Split-1', shape: '6', axis: '0', split: '2, 4', numOutputs: '' },
  },
  {
    name: 'strings in chunks of 2',
    state: {
      version: 'SplitToSequence-11',
      dtype: 'string',
      shape: '2, 5',
      split: '2',
      splitShape: 'scalar',
      numOutputs: '',
    },
  },
  {
    name: 'keepdims=0 drops the axis',
    state: { version: 'SplitToSequence-11', shape: '3, 4', axis: '0', keepdims: '0', numOutputs: '' },
  },
  {
    name: 'split_lengths [-1, 2]',
    state: { version: 'VariadicSplit-1', shape: '6, 12, 10, 24', axis: '0', split: '-1, 2', numOutputs: '' },
  },
  {
    name: 'uint4 tensor, chunk boundaries inside bytes',
    state: { version: 'VariadicSplit-1', dtype: 'uint4', shape: '2, 9', axis: '1', split: '3, -1, 1', numOutputs: '' },
  },
];
