// Build side of the demo's pipeline section (runs in Node, from vite.config.ts): the bench's
// 12-head attention case resolved by the bench's own code (bench/lib/pipelines.mjs, on the shared
// builder scripts/lib/attention.mjs): models A, B and the whole graph, the input x and the reference
// y computed in doubles. `vite build --mode demo` writes them into dist-demo/pipeline/; the dev
// server answers the same paths from memory. The page reads pipeline/case.json first.

import type { Plugin } from 'vite';
import { PIPELINES } from '../bench/cases.mjs';
import { resolvePipeline } from '../bench/lib/pipelines.mjs';
import type { PipelineCase } from './pipeline.js';

/** The bench's case whose Split has more outputs than ORT's WebGPU Split can bind. */
const CASE_ID = 'pipe-12heads-s128-d256-h384';
const DIR = 'pipeline';

/** Every file of the case under its path in the site (pipeline/...), case.json included. */
function caseFiles(): Map<string, Uint8Array> {
  const spec = PIPELINES.find((p) => p.id === CASE_ID);
  if (!spec) throw new Error(`bench/cases.mjs has no pipeline '${CASE_ID}' (the demo's pipeline section uses it)`);
  const built = new Map<string, Uint8Array>();
  const p = resolvePipeline(spec, built);
  const out = new Map([...built].map(([name, bytes]) => [`${DIR}/${name}`, bytes]));
  // The page checks y bit for bit against ORT's CPU EP: resolvePipeline refuses a case where float32 is not exact.
  const { id, seq, width, hidden, heads, names } = p;
  const files = Object.fromEntries(Object.entries(p.files).map(([k, name]) => [k, `${DIR}/${name}`]));
  const c = { id, seq, width, hidden, heads, names, files: files as PipelineCase['files'] } satisfies PipelineCase;
  out.set(`${DIR}/case.json`, new TextEncoder().encode(JSON.stringify(c)));
  return out;
}

/** Serves the case's files in `vite` (dev) and emits them into the build. */
export function pipelineFiles(): Plugin {
  let files: Map<string, Uint8Array> | undefined;
  const all = () => (files ??= caseFiles());
  return {
    name: 'cleave:demo-pipeline-files',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const body = all().get((req.url ?? '').split('?')[0]!.replace(/^\//, ''));
        if (!body) return next();
        res.setHeader('content-type', 'application/octet-stream');
        res.end(body);
      });
    },
    generateBundle() {
      for (const [fileName, source] of all()) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}
