// Node-level rules shared by every front-end: reading a node once, which version an opset
// selects, which attributes a version has, how many inputs it takes, and what a declared output
// count must be. Each check throws a SplitError whose message starts with the version's label
// ('Split-18: ...') and whose subject names the node field, input or attribute.

import { SplitError, check, guardRead, show } from '../errors.js';
import { readOptions } from '../options.js';
import { MAX_OUTPUTS } from '../planner/split.js';
import { type TensorView, readTensor } from '../tensor.js';
import { refuseGpuParam } from './inputs.js';
import type { OpName } from './types.js';

/** A node's fields, read once: inputs still unread (their names depend on the version). */
export interface NodeFields {
  readonly op: OpName;
  readonly opset: unknown;
  readonly inputs: readonly unknown[];
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly outputs: unknown;
}

const OPS: readonly OpName[] = ['Split', 'SplitToSequence', 'VariadicSplit'];
/** More inputs than any version takes: an `inputs` array longer than this is refused unread. */
const MAX_INPUTS = 8;

export function readNode(node: unknown): NodeFields {
  check(typeof node === 'object' && node !== null && !Array.isArray(node), 'BAD_OPTIONS',
    () => `a node must be an object { op, inputs, ... }, got ${show(node)}`, { kind: 'node', name: 'node' });
  const n = readOptions(node, 'node', ['op', 'opset', 'inputs', 'attrs', 'outputs'], 'node', false);
  const op = n.op;
  check(typeof op === 'string' && (OPS as readonly string[]).includes(op), 'BAD_OPTIONS',
    () => `unknown op ${show(op)}: Cleave runs 'Split', 'SplitToSequence' and 'VariadicSplit'`, { kind: 'node', name: 'op' });
  const inputs = n.inputs;
  check(Array.isArray(inputs), 'BAD_INPUT',
    () => `${op}: inputs must be an array of tensors (undefined for an omitted optional), got ${show(inputs)}`, { kind: 'node', name: 'inputs' });
  const count = inputs.length;
  check(count <= MAX_INPUTS, 'BAD_INPUT', () => `${op}: ${count} inputs; no version takes more than 3`, { kind: 'node', name: 'inputs' });
  const inputsCopy = Array.from({ length: count }, (_, i) => inputs[i] as unknown);
  return { op: op as OpName, opset: n.opset, inputs: inputsCopy, attrs: readAttrs(n.attrs, op as string), outputs: n.outputs };
}

/** The attributes object, its own string keys copied (each version then refuses the ones it lacks, with the reason). */
function readAttrs(raw: unknown, op: string): Record<string, unknown> {
  if (raw === undefined) return {};
  return guardRead(`${op}: attrs`, () => {
    check(typeof raw === 'object' && raw !== null && !Array.isArray(raw), 'BAD_ATTRIBUTE',
      () => `${op}: attrs must be an object of attributes by name, got ${show(raw)}`, { kind: 'node', name: 'attrs' });
    const out: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(raw)) {
      check(typeof key === 'string', 'BAD_ATTRIBUTE', () => `${op}: attribute names are strings, got ${show(key)}`, { kind: 'node', name: 'attrs' });
      out[key as string] = (raw as Record<string, unknown>)[key as string];
    }
    return out;
  }, { kind: 'node', name: 'attrs' });
}

/** The newest version <= opset; an absent opset selects the newest version of all. */
export function pickVersion(op: string, opset: unknown, versions: readonly number[]): number {
  const newest = versions[versions.length - 1]!;
  if (opset === undefined) return newest;
  const at = { kind: 'node', name: 'opset' } as const;
  check(typeof opset === 'number' && Number.isSafeInteger(opset) && opset >= 1, 'BAD_OPSET',
    () => `${op}: opset must be an integer >= 1, got ${show(opset)}`, at);
  const v = [...versions].reverse().find((x) => x <= opset);
  if (v === undefined) throw new SplitError('BAD_OPSET', `${op}: opset ${opset} predates the operator, which exists from opset ${versions[0]}`, at);
  return v;
}

/**
 * Refuses every attribute the version does not have. `known` lists the version's attributes;
 * `why` explains, per attribute name, why one that exists in another version is refused here.
 */
export function checkAttributes(n: NodeFields, who: string, known: readonly string[], why: Readonly<Record<string, string>> = {}): void {
  for (const [name, value] of Object.entries(n.attrs)) {
    if (value === undefined || known.includes(name)) continue;
    const list = known.length > 0 ? `its attributes are ${known.map((k) => `'${k}'`).join(', ')}` : 'it has no attributes';
    throw new SplitError('BAD_ATTRIBUTE', `${who}: attribute '${name}' is not allowed: ${why[name] ?? list}`, { kind: 'attribute', name });
  }
}

/** An INT attribute: undefined when absent; present, it must be a safe integer. */
export function intAttribute(n: NodeFields, name: string, who: string): number | undefined {
  const v = n.attrs[name];
  if (v === undefined) return undefined;
  check(typeof v === 'number' && Number.isSafeInteger(v), 'BAD_ATTRIBUTE',
    () => `${who}: attribute '${name}' must be an integer (ONNX INT), got ${show(v)}`, { kind: 'attribute', name });
  return v + 0;
}

/** An INTS attribute: an array of at most MAX_OUTPUTS numbers (length rules are the planner's), copied. */
export function intsAttribute(n: NodeFields, name: string, who: string): number[] | undefined {
  const v = n.attrs[name];
  if (v === undefined) return undefined;
  const at = { kind: 'attribute', name } as const;
  return guardRead(who, () => {
    check(Array.isArray(v), 'BAD_ATTRIBUTE', () => `${who}: attribute '${name}' must be an array of integers (ONNX INTS), got ${show(v)}`, at);
    check(v.length <= MAX_OUTPUTS, 'TOO_LARGE', () => `${who}: attribute '${name}' lists ${v.length} lengths; a split makes at most ${MAX_OUTPUTS} outputs`, at);
    const out = Array.from({ length: v.length }, (_, i) => v[i] as unknown);
    check(out.every((x) => typeof x === 'number'), 'BAD_ATTRIBUTE',
      () => `${who}: attribute '${name}' must be an array of integers (ONNX INTS), got ${show(out)}`, at);
    return out as number[];
  }, at);
}

/**
 * Positional inputs: `names` lists the version's inputs in order, the first `required` of them
 * required. Trailing undefined entries are omitted optionals; anything past the list is refused.
 * Each present input is read once, under its spec name.
 */
export function inputSlots(n: NodeFields, who: string, names: readonly string[], required: number): (TensorView | undefined)[] {
  const last = n.inputs.reduce((k: number, t, i) => (t === undefined ? k : i + 1), 0);
  check(last <= names.length, 'BAD_INPUT', () => `${who}: takes ${names.length === required ? '' : 'at most '}${names.length} ` +
    `input${names.length === 1 ? '' : 's'} (${names.map((x) => `'${x}'`).join(', ')}), got ${last}`, { kind: 'node', name: 'inputs' });
  return names.map((name, i) => {
    const t = n.inputs[i];
    check(t !== undefined || i >= required, 'BAD_INPUT', () => `${who}: input '${name}' is required`, { kind: 'input', name });
    if (t === undefined) return undefined;
    if (i > 0) refuseGpuParam(t, who, name); // every input after the data is a parameter the planner reads
    return readTensor(t, `${who}: input '${name}'`, { kind: 'input', name });
  });
}

/** The declared output count: undefined, or an integer from `min` to MAX_OUTPUTS. */
export function declaredOutputs(n: NodeFields, who: string, min = 1): number | undefined {
  const v = n.outputs;
  if (v === undefined) return undefined;
  const at = { kind: 'node', name: 'outputs' } as const;
  check(typeof v === 'number' && Number.isSafeInteger(v) && v >= min, 'OUTPUT_COUNT',
    () => `${who}: the declared output count must be an integer >= ${min}, got ${show(v)}`, at);
  check(v <= MAX_OUTPUTS, 'TOO_LARGE', () => `${who}: the node declares ${v} outputs; a split makes at most ${MAX_OUTPUTS}`, at);
  return v;
}

/** A declared output count must agree with the outputs the split yields. */
export function checkOutputCount(declared: number | undefined, count: number, who: string, source: string): void {
  check(declared === undefined || declared === count, 'OUTPUT_COUNT',
    () => `${who}: the node declares ${declared} output${declared === 1 ? '' : 's'} but ${source} gives ${count}`,
    { kind: 'node', name: 'outputs' });
}
