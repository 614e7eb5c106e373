// Tests use the one static server of the repository (scripts/lib/serve.mjs, shared with the bench).
export { type Served, ISOLATED, serveDir } from '../../scripts/lib/serve.mjs';
