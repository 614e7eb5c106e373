// The compile-time tier's messages: what the compiler says about a tensor whose dtype was widened to
// `string` (an object literal without `as const`), at every call that takes a tensor. `npm run
// typecheck` only knows that such a line fails (test/types/*.typecheck.ts); this compiles snippets
// against src/ with TypeScript's API (TypeScript 6, the version with a JavaScript API) and the
// repository's tsconfig, and reads the diagnostics: each must name the dtype and the type it must
// be, never one dtype of the union ("Type 'string' is not assignable to type '"float8e8m0"'").
import { join, resolve } from 'node:path';
import ts from 'typescript6';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

const PRELUDE = `import { createSplitEngine, inferShapes, resolveNode, tensor } from 'cleave-gpu';
const engine = await createSplitEngine();
const x = { dtype: 'float32', shape: [4], data: new Float32Array(4) };
const gx = engine.upload(tensor('float32', new Float32Array(4), [4]));
const g = { dtype: 'float32', shape: [4], buffer: gx.buffer, byteOffset: 0, byteLength: 16 };
const encoder = engine.device!.createCommandEncoder();
void [x, g, encoder, inferShapes, resolveNode];
`;

/** Each call with a widened dtype, and the type the compiler must say the dtype is not. */
const WIDENED: Record<string, [code: string, want: string]> = {
  split: ['await engine.split(x, { parts: 2 });', "Type 'string' is not assignable to type 'DType'."],
  upload: ['engine.upload(x);', "Type 'string' is not assignable to type 'FixedDType'."],
  run: [
    "await engine.run({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });",
    "Type 'string' is not assignable to type 'DType'.",
  ],
  resolveNode: [
    "resolveNode({ op: 'Split', opset: 18, inputs: [x], attrs: { num_outputs: 2 } });",
    "Type 'string' is not assignable to type 'DType'.",
  ],
  inferShapes: [
    "inferShapes({ op: 'VariadicSplit', inputs: [x, x, x] });",
    "Type 'string' is not assignable to type 'DType'.",
  ],
  'split (GPU)': ['await engine.split(g, { parts: 2 });', "Type 'string' is not assignable to type 'FixedDType'."],
  encodeSplit: [
    'engine.encodeSplit(encoder, g, { parts: 2 });',
    "Type 'string' is not assignable to type 'FixedDType'.",
  ],
  download: ['await engine.download(g);', "Type 'string' is not assignable to type 'FixedDType'."],
  release: ['engine.release(g);', "Type 'string' is not assignable to type 'FixedDType'."],
  tensor: [
    "tensor('float32' as string, new Float32Array(4), [4]);",
    "Argument of type 'string' is not assignable to parameter of type 'DType'.",
  ],
};

/** The same calls with tensors made by `tensor()`: no `as const`, no error. */
const FACTORY = `${PRELUDE}
const t = tensor('float32', new Float32Array(4), [4]);
const outs: Float32Array[] = (await engine.split(t, { parts: 2 })).map((o) => o.data);
const ran = await engine.run({ op: 'Split', opset: 18, inputs: [t], attrs: { num_outputs: 2 } });
const node = resolveNode({ op: 'Split', opset: 18, inputs: [t], attrs: { num_outputs: 2 } });
engine.release(engine.upload(t));
export { outs, ran, node };
`;

/** A control: assigned to the HostTensor union directly, the compiler does name one dtype (the test can see it). */
const CONTROL = `import type { HostTensor } from 'cleave-gpu';
const x = { dtype: 'float32', shape: [4], data: new Float32Array(4) };
export const t: HostTensor = x;
`;

/** Each snippet's diagnostics, compiled together as modules of the repository (so 'cleave-gpu' is src/). */
function diagnose(snippets: Record<string, string>): Record<string, string[]> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const files = new Map(
    Object.entries(snippets).map(([name, code], i) => [join(ROOT, `test/types/snippet-${i}.ts`), { name, code }]),
  );
  const host = ts.createCompilerHost(parsed.options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (f, lang, ...rest) => {
    const s = files.get(f);
    return s ? ts.createSourceFile(f, s.code, lang) : getSourceFile.call(host, f, lang, ...rest);
  };
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.readFile = (f) => files.get(f)?.code ?? readFile.call(host, f);
  const program = ts.createProgram([...files.keys()], { ...parsed.options, noEmit: true }, host);
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(snippets).map((n) => [n, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const s = d.file && files.get(d.file.fileName);
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!s) throw new Error(`a diagnostic outside the snippets: ${d.file?.fileName ?? ''}: ${text}`);
    out[s.name]!.push(text);
  }
  return out;
}

test('a widened dtype: every call reports the dtype and the type it must be, never one dtype of the union', () => {
  const snippets = Object.fromEntries(Object.entries(WIDENED).map(([name, [code]]) => [name, PRELUDE + code]));
  const found = diagnose({ ...snippets, factory: FACTORY, control: CONTROL });
  const oneDtype = /Type 'string' is not assignable to type '"\w+"'/;
  for (const [name, [, want]] of Object.entries(WIDENED)) {
    // One diagnostic per widened tensor in the call (VariadicSplit's three inputs: three).
    expect(found[name]!.length, name).toBe(name === 'inferShapes' ? 3 : 1);
    for (const text of found[name]!) {
      expect(text, name).toContain(want);
      if (name !== 'tensor') expect(text, name).toContain("Types of property 'dtype' are incompatible.");
      expect(text, name).not.toMatch(oneDtype);
    }
  }
  expect(found.factory).toEqual([]);
  expect(found.control).toHaveLength(1);
  expect(found.control![0]).toMatch(oneDtype);
});
