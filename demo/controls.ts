// The form: a preset list grouped by operator version, one control per argument (shown only for
// the versions that take it, labelled as that version names it), and an error line under each.
// An engine error is placed by its structured `subject` (which input, attribute or node field
// broke the rule), never by reading the message text.

import type { SplitError, SplitSubject } from '../src/index.js';
import { el } from './dom.js';
import {
  type Choices,
  DEFAULTS,
  FIELDS,
  type Field,
  type FormState,
  ORDER,
  PRESETS,
  type Preset,
  VERSIONS,
  type Version,
  versionOf,
} from './presets.js';
import { type NodeRequest, readRequest } from './request.js';

interface Row {
  readonly row: HTMLElement;
  readonly input: HTMLInputElement | HTMLSelectElement;
  readonly label: HTMLElement;
  readonly err: HTMLElement;
}

export class Controls {
  private readonly rows = new Map<Field, Row>();
  private readonly preset = presetSelect();

  constructor(
    form: HTMLFormElement,
    private readonly onChange: (now: boolean) => void,
  ) {
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      onChange(true);
    });
    this.preset.addEventListener('change', () => {
      const p = PRESETS[Number(this.preset.value)];
      if (this.preset.value !== '' && p) this.apply(p);
    });
    form.append(el('div', { className: 'field preset' }, el('label', { htmlFor: 'preset' }, 'preset'), this.preset));
    for (const name of ORDER) form.append(this.addRow(name));
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

  /** Reads the form into a node. Throws FieldError for text the page cannot parse. */
  request(): NodeRequest {
    return readRequest(this.read(), this.version);
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
    const at = this.rows.get(field)!.row.hidden ? 'version' : field;
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

  /** The control an engine error belongs to, from what its subject names. */
  fieldFor(e: SplitError): Field {
    return fieldOfSubject(e.subject, this.version);
  }

  private addRow(name: Field): HTMLElement {
    const spec = FIELDS[name];
    const id = `f-${name}`;
    const input = spec.choices
      ? fillSelect(el('select', { id, name }), spec.choices)
      : el('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: false, placeholder: spec.hint ?? '' });
    const label = el('label', { htmlFor: id }, spec.label);
    const err = el('div', { className: 'err', id: `err-${name}`, role: 'alert' });
    const row = el('div', { className: 'field', id: `field-${name}` }, label, input, err);
    row.dataset.field = name;
    this.rows.set(name, { row, input, label, err });
    const edited = () => {
      this.preset.value = '';
      this.layout();
    };
    if (input instanceof HTMLSelectElement) {
      input.addEventListener('change', () => {
        edited();
        this.onChange(true);
      });
    } else {
      input.addEventListener('input', () => {
        edited();
        this.onChange(false);
      });
    }
    return row;
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

/** The preset list: one group per operator version, option values index PRESETS. */
function presetSelect(): HTMLSelectElement {
  const select = el('select', { id: 'preset' }, el('option', { value: '' }, '— your own —'));
  for (const v of VERSIONS) {
    const presets = PRESETS.filter((p) => versionOf(p) === v.id);
    if (presets.length === 0) continue;
    select.append(
      el(
        'optgroup',
        { label: v.id },
        ...presets.map((p) => el('option', { value: String(PRESETS.indexOf(p)), title: `${v.id}: ${p.name}` }, p.name)),
      ),
    );
  }
  return select;
}

function fillSelect(select: HTMLSelectElement, choices: readonly Choices[]): HTMLSelectElement {
  for (const c of choices) {
    const options = c.options.map((o) => el('option', { value: o }, o));
    select.append(...(c.heading ? [el('optgroup', { label: c.heading }, ...options)] : options));
  }
  return select;
}

/**
 * The control that holds what a SplitError's subject names: the data input's dtype or shape, an
 * index tensor's dtype or shape control, an attribute's own control, the declared outputs. Anything
 * the form has no control for (the op, the opset, a node field) goes to the operator control.
 */
export function fieldOfSubject(subject: SplitSubject | undefined, v: Version): Field {
  if (!subject) return 'version';
  const { kind, name, part } = subject;
  if (kind === 'attribute') {
    const byName: Record<string, Field> = {
      axis: 'axis',
      split: 'splitAttr',
      num_outputs: 'numOutputs',
      keepdims: 'keepdims',
    };
    return byName[name] ?? 'version';
  }
  if (kind === 'node') return name === 'outputs' ? 'outputs' : 'version';
  if (kind !== 'input') return 'version';
  // The data input is built from the dtype and shape controls: its data can only be wrong through them.
  if (name === 'input' || name === 'data') return part === 'dtype' ? 'dtype' : 'shape';
  if (name !== 'axis' && name !== 'split' && name !== 'split_lengths') return 'version';
  // Index tensors are typed by the index dtype control where the version has one, else like the data.
  if (part === 'dtype') return v.fields.includes('indexDtype') ? 'indexDtype' : 'dtype';
  if (part === 'shape' && name === 'axis') return 'axisShape';
  if (part === 'shape' && v.fields.includes('splitShape')) return 'splitShape';
  return name === 'axis' ? 'axis' : 'split';
}
