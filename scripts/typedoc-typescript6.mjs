// Preloaded by `npm run docs` (node --import). TypeDoc reads the sources through TypeScript's
// JavaScript API, which TypeScript 7 (the Go compiler this project builds with) no longer ships, and
// TypeDoc is an ES module, so the CommonJS redirect of scripts/eslint-typescript6.cjs does not reach
// it. A module-resolution hook does: inside this process, and nowhere else, `typescript` resolves to
// TypeScript 6.0, installed under the npm alias `typescript6`.
import { register } from 'node:module';

const hook = `export function resolve(specifier, context, next) {
  const ts = specifier === 'typescript' || specifier.startsWith('typescript/');
  return next(ts ? 'typescript6' + specifier.slice('typescript'.length) : specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
