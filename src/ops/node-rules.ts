// Node-level rules shared by every front-end: which version an opset selects, which attributes a
// version has, how many inputs it takes, and what a declared output count must be. Each check
// throws a SplitError whose message starts with the version's label ('Split-18: ...').

import { SplitError, check } from '../errors.js';
import type { AnyTensor } from '../tensor.js';
import type { SplitNode } from './types.js';

/** The newest version <= opset; an absent opset selects the newest version of all. */
export function pickVersion(op: string, opset: number | undefined, versions: readonly number[]): number {
  const newest = versions[versions.length - 1]!;
  if (opset === undefined) return newest;
  check(Number.isSafeInteger(opset) && opset >= 1, 'BAD_OPSET',
    () => `${op}: opset must be an integer >= 1, got ${String(opset)}`);
  const v = [...versions].reverse().find((x) => x <= opset);
  if (v === undefined) {
    throw new SplitError('BAD_OPSET', `${op}: opset ${opset} predates the operator, which exists from opset ${versions[0]}`);
  }
  return v;
}

/**
 * Refuses every attribute the version does not have. `known` lists the version's attributes;
 * `why` explains, per attribute name, why one that exists in another version is refused here.
 */
export function checkAttributes(node: SplitNode, who: string, known: readonly string[],
  why: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  const attrs = node.attrs ?? {};
  check(typeof attrs === 'object' && attrs !== null && !Array.isArray(attrs), 'BAD_ATTRIBUTE',
    () => `${who}: attrs must be an object of attributes by name, got ${describe(attrs)}`);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || known.includes(name)) continue;
    const list = known.length > 0 ? `its attributes are ${known.map((k) => `'${k}'`).join(', ')}` : 'it has no attributes';
    throw new SplitError('BAD_ATTRIBUTE', `${who}: attribute '${name}' is not allowed: ${why[name] ?? list}`);
  }
  return attrs as Record<string, unknown>;
}

/** An INT attribute: undefined when absent; present, it must be a safe integer. */
export function intAttribute(attrs: Record<string, unknown>, name: string, who: string): number | undefined {
  const v = attrs[name];
  if (v === undefined) return undefined;
  check(typeof v === 'number' && Number.isSafeInteger(v), 'BAD_ATTRIBUTE',
    () => `${who}: attribute '${name}' must be an integer (ONNX INT), got ${describe(v)}`);
  return v;
}

/** An INTS attribute: an array of numbers (length rules are the planner's). */
export function intsAttribute(attrs: Record<string, unknown>, name: string, who: string): number[] | undefined {
  const v = attrs[name];
  if (v === undefined) return undefined;
  check(Array.isArray(v) && v.every((x) => typeof x === 'number'), 'BAD_ATTRIBUTE',
    () => `${who}: attribute '${name}' must be an array of integers (ONNX INTS), got ${describe(v)}`);
  return [...(v as number[])];
}

/**
 * Positional inputs: `names` lists the version's inputs in order, the first `required` of them
 * required. Trailing undefined entries are omitted optionals; anything past the list is refused.
 */
export function inputSlots(node: SplitNode, who: string, names: readonly string[], required: number): (AnyTensor | undefined)[] {
  const inputs = node.inputs;
  check(Array.isArray(inputs), 'BAD_INPUT', () => `${who}: inputs must be an array of tensors (undefined for an omitted optional), got ${describe(inputs)}`);
  const last = inputs.reduce((n: number, t, i) => (t === undefined ? n : i + 1), 0);
  check(last <= names.length, 'BAD_INPUT', () => `${who}: takes ${names.length === required ? '' : 'at most '}${names.length} ` +
    `input${names.length === 1 ? '' : 's'} (${names.map((n) => `'${n}'`).join(', ')}), got ${last}`);
  for (let i = 0; i < required; i++) {
    check(inputs[i] !== undefined, 'BAD_INPUT', () => `${who}: input '${names[i]}' is required`);
  }
  return names.map((_, i) => inputs[i]);
}

/** The declared output count: undefined, or an integer >= `min`. */
export function declaredOutputs(node: SplitNode, who: string, min = 1): number | undefined {
  const n = node.outputs;
  if (n === undefined) return undefined;
  check(Number.isSafeInteger(n) && n >= min, 'OUTPUT_COUNT',
    () => `${who}: the declared output count must be an integer >= ${min}, got ${String(n)}`);
  return n;
}

/** A declared output count must agree with the outputs the split yields. */
export function checkOutputCount(declared: number | undefined, count: number, who: string, source: string): void {
  check(declared === undefined || declared === count, 'OUTPUT_COUNT',
    () => `${who}: the node declares ${declared} output${declared === 1 ? '' : 's'} but ${source} gives ${count}`);
}

export function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return `[${x.map(describe).join(', ')}]`;
  if (typeof x === 'string') return `'${x}'`;
  if (typeof x === 'bigint') return `${x}n`;
  if (typeof x === 'object') return (x as object).constructor?.name ?? 'an object';
  return String(x);
}
