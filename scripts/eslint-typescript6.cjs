// Preloaded by `npm run lint` (node --require). typescript-eslint's typed rules read programs through
// TypeScript's JavaScript API, which TypeScript 7 (the Go compiler this project builds with) no longer
// ships; typescript-eslint supports TypeScript up to 6.0. So inside the linter's own process, and
// nowhere else, `typescript` resolves to TypeScript 6.0, installed under the npm alias `typescript6`.
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const redirected =
    request === 'typescript' || request.startsWith('typescript/') ? `typescript6${request.slice(10)}` : request;
  return resolve.call(this, redirected, ...rest);
};
