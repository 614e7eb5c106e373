// Node-level rules shared by every front-end: reading a node once, which version an opset
// selects, which attributes a version has, how many inputs it takes, and what a declared output
// count must be. Every message starts with the version's label ('Split-18: ...'), and every
// error's subject names the node field, input or attribute.

import { SplitError, asInt, check, show } from '../errors.js';
import { copyArray, ownFields, readOptions } from '../read/options.js';
import { MAX_OUTPUTS } from '../shape.js';
import { readTensor } from '../read/tensor.js';
import type { OpName } from './types.js';

/** A node's fields, read once; inputs still unread (their names depend on the version). */
export interface NodeFields {
  readonly op: OpName;
  readonly opset: unknown;
  readonly inputs: readonly unknown[];
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly outputs: unknown;
}

const OPS: readonly string[] = ['Split', 'SplitToSequence', 'VariadicSplit'];

export function readNode(raw: unknown): NodeFields {
  check(
    typeof raw === 'object' && raw !== null && !Array.isArray(raw),
    'BAD_OPTIONS',
    () => `a node must be an object { op, inputs }, got ${show(raw)}`,
    'node:node',
  );
  const n = readOptions(raw, 'node', ['op', 'opset', 'inputs', 'attrs', 'outputs'], 'node');
  const { op, inputs } = n;
  check(
    typeof op === 'string' && OPS.includes(op),
    'BAD_OPTIONS',
    () => `unknown op ${show(op)}: Cleave runs ${OPS.join(', ')}`,
    'node:op',
  );
  check(
    Array.isArray(inputs),
    'BAD_INPUT',
    () => `${op}: inputs must be an array of tensors, got ${show(inputs)}`,
    'node:inputs',
  );
  const attrs = n.attrs === undefined ? {} : ownFields(n.attrs, `${op}: attrs`, 'BAD_ATTRIBUTE', 'node:attrs');
  // A few inputs too many is a wrong call; an absurd count is refused as too large, unread.
  const code = inputs.length > MAX_OUTPUTS ? 'TOO_LARGE' : 'BAD_INPUT';
  const list = copyArray(inputs, 8, `${op}: inputs`, 'node:inputs', code);
  return { op: op as OpName, opset: n.opset, inputs: list, attrs, outputs: n.outputs };
}

/** The newest version <= opset; an absent opset selects the newest version of all. */
export function pickVersion(op: string, opset: unknown, versions: readonly number[]): number {
  if (opset === undefined) return versions[versions.length - 1]!;
  const n = asInt(opset, 1);
  check(n !== undefined, 'BAD_OPSET', () => `${op}: opset must be an integer >= 1, got ${show(opset)}`, 'node:opset');
  const v = versions.filter((x) => x <= n).pop();
  check(
    v !== undefined,
    'BAD_OPSET',
    () => `${op}: opset ${n} predates the operator (from opset ${versions[0]})`,
    'node:opset',
  );
  return v;
}

/** Refuses every attribute the version lacks; `why` says, per name, why one another version has is refused here. */
export function checkAttributes(
  n: NodeFields,
  who: string,
  known: readonly string[],
  why: Readonly<Record<string, string>>,
): void {
  for (const [name, value] of Object.entries(n.attrs)) {
    if (value === undefined || known.includes(name)) continue;
    const list = known.length ? `its attributes are ${known.map((k) => `'${k}'`).join(', ')}` : 'it has no attributes';
    throw new SplitError(
      'BAD_ATTRIBUTE',
      `${who}: attribute '${name}' is not allowed: ${why[name] ?? list}`,
      `attribute:${name}`,
    );
  }
}

/** An INT attribute: undefined when absent, else a safe integer. */
export function intAttribute(n: NodeFields, name: string, who: string): number | undefined {
  const v = n.attrs[name];
  const k = asInt(v);
  check(
    v === undefined || k !== undefined,
    'BAD_ATTRIBUTE',
    () => `${who}: attribute '${name}' must be an integer, got ${show(v)}`,
    `attribute:${name}`,
  );
  return k;
}

/**
 * Positional inputs: `names` lists the version's inputs, the first `required` of them required.
 * Each present input is read once, under its spec name; every input after the data is a parameter
 * the planner reads on the CPU, so a GPU tensor there is refused before it is read further.
 */
export function inputsOf(n: NodeFields, who: string, names: readonly string[], required: number) {
  const count = n.inputs.reduce((k: number, t, i) => (t === undefined ? k : i + 1), 0);
  check(
    count <= names.length,
    'BAD_INPUT',
    () =>
      `${who}: takes ${names.length > required ? 'at most ' : ''}${names.length} ` +
      `input${names.length === 1 ? '' : 's'} (${names.map((x) => `'${x}'`).join(', ')}), got ${count}`,
    'node:inputs',
  );
  return names.map((name, i) => {
    const t = n.inputs[i];
    check(t !== undefined || i >= required, 'BAD_INPUT', () => `${who}: input '${name}' is required`, `input:${name}`);
    if (t === undefined) return undefined;
    check(
      i === 0 || !(typeof t === 'object' && t !== null && 'buffer' in t),
      'BAD_INPUT',
      () => `${who}: input '${name}' is a GPU tensor, but Cleave plans on the CPU: pass it as a HostTensor`,
      `input:${name}`,
    );
    return readTensor(t, `${who}: input '${name}'`, `input:${name}`);
  });
}

/** The declared output count: undefined, or an integer from `min` to MAX_OUTPUTS. */
export function declaredOutputs(n: NodeFields, who: string, min = 1): number | undefined {
  const v = n.outputs;
  const k = asInt(v, min);
  check(
    v === undefined || k !== undefined,
    'OUTPUT_COUNT',
    () => `${who}: the declared output count must be an integer >= ${min}, got ${show(v)}`,
    'node:outputs',
  );
  check(
    k === undefined || k <= MAX_OUTPUTS,
    'TOO_LARGE',
    () => `${who}: ${k} declared outputs; at most ${MAX_OUTPUTS}`,
    'node:outputs',
  );
  return k;
}

/** A declared output count must agree with the outputs the split yields. */
export function checkOutputCount(declared: number | undefined, count: number, who: string, source: string): void {
  check(
    declared === undefined || declared === count,
    'OUTPUT_COUNT',
    () => `${who}: the node declares ${declared} output${declared === 1 ? '' : 's'} but ${source} gives ${count}`,
    'node:outputs',
  );
}
