// The node as code: the exact `engine.run({...})` call the page made, as JavaScript a reader can
// copy. Short tensors are written out; the sample data input, when long, is the expression that
// builds the same values (values.ts keeps both; the e2e test evaluates the code and compares).

import { type HostTensor, type SplitNode, elementBits, isMsbFirst, isPacked } from '../src/index.js';
import { el } from './dom.js';
import { literalCode, sampleCode } from './values.js';

/** Arrays up to this many entries are written out; a longer sample input becomes an expression. */
const MAX_LITERAL = 24;

/** The call that runs `node`, with `input` (the node's first input) built by sampleTensor. */
export function nodeCode(node: SplitNode): string {
  const head = [`op: '${node.op}'`, ...(node.opset === undefined ? [] : [`opset: ${node.opset}`])].join(', ');
  const inputs = node.inputs.map(
    (t, i) =>
      `    ${t === undefined ? 'undefined' : tensorCode(t as HostTensor, i === 0)},${i === 0 ? packedNote(t) : ''}`,
  );
  const attrs = Object.entries(node.attrs ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}`);
  return [
    "// import { createSplitEngine } from 'cleave-gpu'; const engine = await createSplitEngine();",
    'const outputs = await engine.run({',
    `  ${head},`,
    '  inputs: [',
    ...inputs,
    '  ],',
    ...(attrs.length ? [`  attrs: { ${attrs.join(', ')} },`] : []),
    ...(node.outputs === undefined ? [] : [`  outputs: ${node.outputs},`]),
    '});',
  ].join('\n');
}

function tensorCode(t: HostTensor, sample: boolean): string {
  const n = t.shape.reduce((a, b) => a * b, 1);
  const data = sample && t.data.length > MAX_LITERAL ? sampleCode(t.dtype, n) : literalCode(t);
  return `{ dtype: '${t.dtype}', shape: [${t.shape.join(', ')}], data: ${data} }`;
}

/** Packed data is bytes: say how values sit in them, since the literal shows bytes, not values. */
function packedNote(t: SplitNode['inputs'][number]): string {
  if (!t || !isPacked(t.dtype)) return '';
  const w = elementBits(t.dtype);
  const per = 8 % w === 0 ? `${8 / w} values a byte` : 'values straddle bytes';
  const order = isMsbFirst(t.dtype) ? 'MSB-first (value 0 is bit 7)' : 'LSB-first (value 0 in the low bits)';
  return ` // ${t.dtype}: ${per}, ${order}`;
}

/** The code block and its Copy button; `show` replaces the code. */
export class CodeView {
  readonly root: HTMLElement;
  private readonly code = el('code', { id: 'code' });
  private readonly button = el('button', { type: 'button', id: 'copy', className: 'copy' }, 'Copy');

  constructor() {
    this.root = el('div', { className: 'codeview' }, this.button, el('pre', {}, this.code));
    this.button.addEventListener('click', () => void this.copy());
  }

  show(text: string): void {
    this.code.textContent = text;
    this.button.textContent = 'Copy';
  }

  private async copy(): Promise<void> {
    const text = this.code.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      this.button.textContent = 'Copied ✓';
    } catch {
      // No clipboard permission (an embedded or insecure page): select the code for a manual copy.
      getSelection()?.selectAllChildren(this.code);
      this.button.textContent = 'Selected: press Ctrl+C';
    }
  }
}
