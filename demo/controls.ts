// The page's controls: each operator version and the arguments it takes, presets taken from the
// spec examples, reading the form into an engine node, and placing an error next to the control
// whose value broke the rule. The engine does all validation; the page only parses text.

import { DTYPES, type DType, type HostTensor, type OpName, type SplitError, type SplitNode } from '../src/index.js';
import { isIntegerDType, sampleTensor, tensorOf } from './values.js';

export type Field =
  | 'version' | 'dtype' | 'shape' | 'axis' | 'axisShape'
  | 'splitAttr' | 'split' | 'splitShape' | 'indexDtype' | 'numOutputs' | 'outputs' | 'keepdims';

export type FormState = Record<Field, string>;

interface Version {
  readonly id: string;
  readonly op: OpName;
  readonly opset?: number;
  /** The arguments this version takes besides data dtype, shape and axis. */
  readonly fields: readonly Field[];
  /** What the `split` field is in this version. */
  readonly splitLabel?: string;
}

export const VERSIONS: readonly Version[] = [
  { id: 'Split-1', op: 'Split', opset: 1, fields: ['splitAttr', 'split', 'outputs'], splitLabel: 'split input (typed like the data)' },
  { id: 'Split-2', op: 'Split', opset: 2, fields: ['splitAttr', 'outputs'] },
  { id: 'Split-11', op: 'Split', opset: 11, fields: ['splitAttr', 'outputs'] },
  { id: 'Split-13', op: 'Split', opset: 13, fields: ['split', 'outputs'], splitLabel: 'split input (int64)' },
  { id: 'Split-18', op: 'Split', opset: 18, fields: ['split', 'numOutputs', 'outputs'], splitLabel: 'split input (int64)' },
  { id: 'SplitToSequence-11', op: 'SplitToSequence', opset: 11, fields: ['split', 'splitShape', 'indexDtype', 'keepdims'], splitLabel: 'split input' },
  { id: 'SplitToSequence-24', op: 'SplitToSequence', opset: 24, fields: ['split', 'splitShape', 'indexDtype', 'keepdims'], splitLabel: 'split input' },
  { id: 'VariadicSplit-1', op: 'VariadicSplit', fields: ['axisShape', 'split', 'indexDtype'], splitLabel: 'split_lengths input' },
];

const INDEX_DTYPES = ['int64', 'int32', 'int16', 'int8', 'uint64', 'uint32', 'uint16', 'uint8', 'float32'];

interface FieldSpec {
  readonly label: string;
  readonly options?: readonly string[];
  readonly hint?: string;
}

const FIELDS: Record<Field, FieldSpec> = {
  version: { label: 'operator', options: VERSIONS.map((v) => v.id) },
  dtype: { label: 'dtype', options: DTYPES },
  shape: { label: 'shape', hint: 'e.g. 2, 8 (empty: scalar)' },
  axis: { label: 'axis', hint: 'negative counts from the back' },
  axisShape: { label: 'axis input shape', options: ['scalar', '[1]'] },
  splitAttr: { label: "'split' attribute", hint: 'e.g. 2, 4 or empty' },
  split: { label: "'split' input", hint: 'e.g. 2, 4 or empty' },
  splitShape: { label: "'split' input shape", options: ['1-D', 'scalar'] },
  indexDtype: { label: 'index dtype', options: INDEX_DTYPES },
  numOutputs: { label: 'num_outputs', hint: 'a count, or empty' },
  outputs: { label: 'declared outputs', hint: 'a count, or empty' },
  keepdims: { label: 'keepdims', options: ['1', '0'] },
};

const ORDER: readonly Field[] = [
  'version', 'dtype', 'shape', 'axis', 'axisShape', 'splitAttr', 'split', 'splitShape', 'indexDtype', 'numOutputs', 'outputs', 'keepdims',
];

const DEFAULTS: FormState = {
  version: 'Split-18', dtype: 'float32', shape: '2, 8', axis: '1', axisShape: 'scalar', splitAttr: '', split: '',
  splitShape: '1-D', indexDtype: 'int64', numOutputs: '3', outputs: '', keepdims: '1',
};

export interface Preset {
  readonly name: string;
  readonly state: Partial<FormState>;
}

export const PRESETS: readonly Preset[] = [
  { name: 'Split-18: 2×8 into 3 along axis 1 (uneven)', state: {} },
  { name: 'Split-18: 7 into 4 = [2, 2, 2, 1]', state: { shape: '7', axis: '0', numOutputs: '4' } },
  { name: 'Split-13: [2, 6] split [2, 4] along axis 1', state: { version: 'Split-13', shape: '2, 6', split: '2, 4', numOutputs: '' } },
  { name: 'Split-13: empty tensor into [0, 0, 0]', state: { version: 'Split-13', shape: '0', axis: '0', split: '0, 0, 0', numOutputs: '' } },
  { name: 'Split-18: 4096 outputs', state: { shape: '2, 4096', numOutputs: '4096' } },
  { name: 'Split-11: int64 data, negative axis', state: { version: 'Split-11', dtype: 'int64', shape: '2, 3, 4', axis: '-1', splitAttr: '1, 3', numOutputs: '' } },
  { name: 'Split-1: split as a second float input', state: { version: 'Split-1', shape: '6', axis: '0', split: '2, 4', numOutputs: '' } },
  {
    name: 'SplitToSequence-11: strings in chunks of 2',
    state: { version: 'SplitToSequence-11', dtype: 'string', shape: '2, 5', split: '2', splitShape: 'scalar', numOutputs: '' },
  },
  { name: 'SplitToSequence-11: keepdims=0 drops the axis', state: { version: 'SplitToSequence-11', shape: '3, 4', axis: '0', keepdims: '0', numOutputs: '' } },
  {
    name: 'VariadicSplit-1: split_lengths [-1, 2]',
    state: { version: 'VariadicSplit-1', shape: '6, 12, 10, 24', axis: '0', split: '-1, 2', numOutputs: '' },
  },
];

/** An input the page itself cannot turn into a tensor (not a number, too large to draw). */
export class FieldError extends Error {
  constructor(readonly field: Field, message: string) {
    super(message);
  }
}

/** What one run needs: the node, and what the picture needs to know about it. */
export interface NodeRequest {
  readonly version: Version;
  readonly node: SplitNode;
  readonly input: HostTensor;
  /** The axis the node names (before normalisation), when the page could read one. */
  readonly axis: number | undefined;
}

/** The demo draws every element, so it keeps inputs to a size a page can hold. */
const MAX_ELEMENTS = 1 << 22;

export class Controls {
  private readonly rows = new Map<Field, { row: HTMLElement; input: HTMLInputElement | HTMLSelectElement; label: HTMLElement; err: HTMLElement }>();
  private readonly preset: HTMLSelectElement;

  constructor(form: HTMLFormElement, private readonly onChange: (now: boolean) => void) {
    form.addEventListener('submit', (e) => { e.preventDefault(); onChange(true); });
    this.preset = el('select', { id: 'preset' });
    this.preset.append(el('option', { value: '' }, '— your own —'));
    PRESETS.forEach((p, i) => this.preset.append(el('option', { value: String(i) }, p.name)));
    this.preset.addEventListener('change', () => {
      const p = PRESETS[Number(this.preset.value)];
      if (this.preset.value !== '' && p) this.apply(p);
    });
    const presetRow = el('div', { className: 'field preset' }, el('label', { htmlFor: 'preset' }, 'preset'), this.preset);
    form.append(presetRow);

    for (const name of ORDER) {
      const spec = FIELDS[name];
      const id = `f-${name}`;
      let input: HTMLInputElement | HTMLSelectElement;
      if (spec.options) {
        input = el('select', { id, name });
        for (const o of spec.options) input.append(el('option', { value: o }, o));
      } else {
        input = el('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: false, placeholder: spec.hint ?? '' });
      }
      const label = el('label', { htmlFor: id }, spec.label);
      const err = el('div', { className: 'err', id: `err-${name}`, role: 'alert' });
      const row = el('div', { className: 'field', id: `field-${name}` }, label, input, err);
      row.dataset.field = name;
      form.append(row);
      this.rows.set(name, { row, input, label, err });
      const edited = () => { this.preset.value = ''; this.layout(); };
      if (input instanceof HTMLSelectElement) {
        input.addEventListener('change', () => { edited(); onChange(true); });
      } else {
        input.addEventListener('input', () => { edited(); onChange(false); });
      }
    }
    form.append(el('button', { type: 'submit', id: 'run' }, 'Run'));
    this.preset.value = '0';
    this.set({ ...DEFAULTS, ...PRESETS[0]!.state });
  }

  /** Loads a preset and runs it. */
  apply(p: Preset): void {
    this.preset.value = String(PRESETS.indexOf(p));
    this.set({ ...DEFAULTS, ...p.state });
    this.onChange(true);
  }

  read(): FormState {
    const s = {} as FormState;
    for (const [name, r] of this.rows) s[name] = r.input.value.trim();
    return s;
  }

  get version(): Version {
    const id = this.rows.get('version')!.input.value;
    return VERSIONS.find((v) => v.id === id) ?? VERSIONS[0]!;
  }

  clearErrors(): void {
    for (const r of this.rows.values()) {
      r.err.textContent = '';
      delete r.err.dataset.code;
      r.row.classList.remove('bad');
    }
  }

  /** Shows a message next to a control (the operator control when that field is not shown). */
  showError(field: Field, message: string, code?: string): Field {
    const at = this.shown(field) ? field : 'version';
    const r = this.rows.get(at)!;
    r.err.textContent = message;
    if (code) r.err.dataset.code = code;
    r.row.classList.add('bad');
    return at;
  }

  /** The label a control shows now (labels change with the version). */
  labelOf(field: Field): string {
    return this.rows.get(field)!.label.textContent ?? field;
  }

  /** Reads the form into a node. Throws FieldError for text the page cannot parse. */
  request(): NodeRequest {
    const s = this.read();
    const v = this.version;
    const dtype = s.dtype as DType;
    const shape = numbers(s.shape, 'shape');
    const valid = shape.every((d) => Number.isSafeInteger(d) && d >= 0);
    const n = valid ? shape.reduce((a, b) => a * b, 1) : 0;
    if (n > MAX_ELEMENTS) {
      throw new FieldError('shape', `the page draws every element, so it stops at ${MAX_ELEMENTS.toLocaleString('en')}; this shape has ${n.toLocaleString('en')}`);
    }
    // An invalid shape still reaches the engine (with no data), so the engine's own rule names it.
    const input = sampleTensor(dtype, shape, n);
    const axis = s.axis === '' ? undefined : one(s.axis, 'axis');
    const lengths = (f: Field) => (s[f] === '' ? undefined : numbers(s[f], f));
    const count = (f: Field) => (s[f] === '' ? undefined : one(s[f], f));
    const indexTensor = (f: Field, dt: DType, sh: number[], values: number[]) => {
      try {
        return tensorOf(dt, sh, values);
      } catch (e) {
        throw new FieldError(f, `${(e as Error).message}: a ${dt} tensor holds integers in range only`);
      }
    };

    let node: SplitNode;
    const split = lengths('split');
    if (v.op === 'VariadicSplit') {
      const it = s.indexDtype as DType;
      const axisT = axis === undefined ? undefined : indexTensor('axis', it, s.axisShape === 'scalar' ? [] : [1], [axis]);
      const splitT = split === undefined ? undefined : indexTensor('split', it, [split.length], split);
      node = { op: 'VariadicSplit', inputs: [input, axisT, splitT] };
    } else if (v.op === 'SplitToSequence') {
      const it = s.indexDtype as DType;
      if (split && s.splitShape === 'scalar' && split.length !== 1) {
        throw new FieldError('split', `a scalar 'split' holds one value, got ${split.length}`);
      }
      const splitT = split === undefined ? undefined : indexTensor('split', it, s.splitShape === 'scalar' ? [] : [split.length], split);
      node = { op: 'SplitToSequence', opset: v.opset, inputs: [input, splitT], attrs: { axis, keepdims: count('keepdims') } };
    } else {
      // Split-1 types its split input like the data; Split-13 and -18 take int64.
      const splitT = split === undefined ? undefined
        : v.opset === 1 ? (isIntegerDType(dtype) ? indexTensor('split', dtype, [split.length], split) : tensorOf(dtype, [split.length], split))
          : indexTensor('split', 'int64', [split.length], split);
      const attrs = {
        axis,
        ...(v.fields.includes('splitAttr') && s.splitAttr !== '' ? { split: lengths('splitAttr') } : {}),
        ...(v.fields.includes('numOutputs') && s.numOutputs !== '' ? { num_outputs: count('numOutputs') } : {}),
      };
      node = {
        op: 'Split', opset: v.opset,
        inputs: v.fields.includes('split') ? [input, splitT] : [input],
        attrs, outputs: count('outputs'),
      };
    }
    return { version: v, node, input, axis };
  }

  /**
   * The control an engine error belongs to: by the kind of rule broken, then by the argument the
   * message quotes ('split', 'num_outputs', input 'axis', ...), else the operator control.
   */
  fieldFor(e: SplitError): Field {
    const v = this.version;
    const m = e.message;
    const has = (f: Field) => v.fields.includes(f);
    const quotes = (name: string) => m.includes(`'${name}'`);
    const input = /input '(\w+)'/.exec(m)?.[1];
    const splitField: Field = has('split') && (!has('splitAttr') || input === 'split' || this.read().splitAttr === '') ? 'split' : 'splitAttr';
    switch (e.code) {
      case 'AXIS_RANGE': return 'axis';
      case 'BAD_SHAPE': case 'RANK': case 'DATA_LENGTH': case 'TOO_LARGE': return 'shape';
      case 'SIZE_SUM': case 'BAD_SIZE': return has('split') || has('splitAttr') ? splitField : 'version';
      case 'OUTPUT_COUNT': case 'NOT_DIVISIBLE': return has('outputs') ? 'outputs' : 'version';
      case 'BAD_PARTS': return has('numOutputs') ? 'numOutputs' : 'outputs';
      case 'BAD_DTYPE':
        if (input === undefined || input === 'input' || input === 'data') return 'dtype';
        return has('indexDtype') ? 'indexDtype' : input === 'axis' ? 'axis' : splitField;
      default: break;
    }
    if (quotes('num_outputs')) return 'numOutputs';
    if (quotes('keepdims')) return 'keepdims';
    if (input === 'axis' || (quotes('axis') && !quotes('split'))) return 'axis';
    if (quotes('split_lengths') || quotes('split')) return splitField;
    if (/declare/.test(m)) return 'outputs';
    return 'version';
  }

  private shown(f: Field): boolean {
    return !this.rows.get(f)!.row.hidden;
  }

  private set(state: FormState): void {
    for (const [name, r] of this.rows) r.input.value = state[name];
    this.layout();
  }

  /** Shows the arguments the chosen version takes, labelled as that version names them. */
  private layout(): void {
    const v = this.version;
    const always: readonly Field[] = ['version', 'dtype', 'shape', 'axis'];
    for (const [name, r] of this.rows) r.row.hidden = !always.includes(name) && !v.fields.includes(name);
    this.rows.get('split')!.label.textContent = v.splitLabel ?? FIELDS.split.label;
    this.rows.get('axis')!.label.textContent = v.op === 'VariadicSplit' ? 'axis input' : 'axis attribute';
  }
}

/** Numbers from "2, 8", "[2 8]" or "" (none). */
function numbers(text: string, field: Field): number[] {
  const parts = text.replace(/[[\]()]/g, ' ').split(/[\s,]+/).filter((p) => p !== '');
  return parts.map((p) => {
    const x = Number(p);
    if (p === '' || Number.isNaN(x)) throw new FieldError(field, `'${p}' is not a number`);
    return x;
  });
}

function one(text: string, field: Field): number {
  const xs = numbers(text, field);
  if (xs.length !== 1) throw new FieldError(field, `expected one number, got '${text}'`);
  return xs[0]!;
}

type Props<K extends keyof HTMLElementTagNameMap> = Partial<Omit<HTMLElementTagNameMap[K], 'style'>> & { role?: string };

/** A small createElement with properties and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props<K> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const { role, ...rest } = props;
  Object.assign(node, rest);
  if (role) node.setAttribute('role', role);
  node.append(...children);
  return node;
}
