// Every type an entry's signatures name is exported by that entry: a caller of `cleave-gpu/core` can write down the
// type of any argument or result without importing another entry. Read with TypeScript's API (TypeScript 6, the
// version with a JavaScript API): from each export, every type reference in its declaration (not in a function's
// body or a value), then in the declarations of the types it names, as long as they are Cleave's own (under src/).
import { resolve } from 'node:path';
import ts from 'typescript6';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The names of Cleave's types an entry's exports name, directly or through other types of Cleave's, by entry. */
function namedTypes(entry: string): { exported: Set<string>; named: Map<string, string> } {
  const file = resolve(ROOT, entry);
  const program = ts.createProgram([file], { strict: true, target: ts.ScriptTarget.ES2022, noEmit: true });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const exports = checker.getExportsOfModule(module);
  const exported = new Set(exports.map((s) => s.name));
  const named = new Map<string, string>();
  const seen = new Set<ts.Symbol>();
  const real = (s: ts.Symbol) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const ours = (s: ts.Symbol) =>
    (s.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(resolve(ROOT, 'src')));
  const walk = (s: ts.Symbol, from: string) => {
    if (seen.has(s) || !ours(s)) return;
    seen.add(s);
    for (const d of s.declarations ?? [])
      d.forEachChild(function visit(n: ts.Node): void {
        // Signatures only: no function body, no value (a cast inside one names no type of the signature).
        if (ts.isBlock(n) || (ts.isExpression(n) && !ts.isExpressionWithTypeArguments(n))) return;
        if (ts.isTypeReferenceNode(n) || ts.isExpressionWithTypeArguments(n)) {
          const at = ts.isTypeReferenceNode(n) ? n.typeName : n.expression;
          const t = checker.getSymbolAtLocation(at);
          if (t && !(t.flags & ts.SymbolFlags.TypeParameter)) {
            const r = real(t);
            if (ours(r) && !named.has(r.name)) named.set(r.name, from);
            walk(r, r.name);
          }
        }
        n.forEachChild(visit);
      });
  };
  for (const s of exports) walk(real(s), s.name);
  return { exported, named };
}

for (const entry of ['src/core.ts', 'src/index.ts'])
  test(`${entry}: exports every type of Cleave's that its exports name`, () => {
    const { exported, named } = namedTypes(entry);
    // A floor: the walk reached the types the calls take and give.
    expect([...named.keys()]).toEqual(expect.arrayContaining(['GpuInput', 'HostInput', 'HostOutput', 'SplitOptions']));
    const missing = [...named].filter(([name]) => !exported.has(name)).map(([name, from]) => `${name} (in ${from})`);
    expect(missing).toEqual([]);
  });
