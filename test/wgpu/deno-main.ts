// The conformance suite under Deno, whose navigator.gpu is wgpu: the built bundle
// (dist/cleave.js) finds its own device there, the facts of the implementation are gathered, and
// every case of test/conformance/ runs (`--facts`: the facts alone). Prints one JSON line (a
// RunReport) for test/wgpu/*.test.ts, which run it with `deno run --sloppy-imports` (the repo's
// imports name .ts files with .js). A failure to start is reported in the line, never skipped.

import { conformanceCases } from '../conformance/cases.js';
import { gatherFacts } from '../conformance/facts.js';
import { type Cleave, type RunReport, openHarness, runSuite } from '../conformance/suite.js';

const deno = (
  globalThis as unknown as { Deno: { readonly args: readonly string[]; readTextFile(path: URL): Promise<string> } }
).Deno;

async function main(): Promise<RunReport> {
  const runtime = navigator.userAgent;
  try {
    const cleave = (await import(new URL('../../dist/cleave.js', import.meta.url).href)) as Cleave;
    const h = await openHarness(cleave);
    try {
      const shader = await deno.readTextFile(new URL('../../shaders/split-gather.wgsl', import.meta.url));
      const facts = await gatherFacts(navigator.gpu, h.first, shader);
      if (deno.args.includes('--facts')) return { runtime, facts };
      const t0 = performance.now();
      const results = await runSuite(h, conformanceCases());
      const ms = Math.round(performance.now() - t0);
      return { runtime, facts, results, ms, pipelinesCreated: h.first.stats.pipelinesCreated };
    } finally {
      h.close();
    }
  } catch (e) {
    return { runtime, fatal: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

console.log(JSON.stringify(await main()));
