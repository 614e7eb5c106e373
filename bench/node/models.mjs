// The page bench's pipelines and decode loops in Node (page/pipeline.mjs, page/decode.mjs, the same modules): ORT's
// whole graph against ORT A -> Cleave -> ORT B, and the KV-cache decode loop with K and V written `into` the caches
// by a prepared split, on the bench's device (handed to every ORT session), their models built here in memory
// (lib/resolve-cases.mjs). Each system's calls are counted in one inference or sequence (session.run, submits,
// dispatches: the report gives them per step), and ORT's log says where it placed each model's nodes.

import { log } from '../lib/cli.mjs';
import { decodeLine } from '../lib/report/decode.mjs';
import { pipelineLine } from '../lib/report/text.mjs';
import { placementOf } from './peers.mjs';

/** @import { BenchDecode, BenchPipeline, DecodeRecord, PipelineRecord, Settings } from '../types.js' */
/** @import { Shared } from './case.mjs' */

/**
 * Runs each pipeline, then each decode loop, printing a line each and handing each record to `done`; needs ORT
 * (`s.peers.ort`).
 * @param {readonly BenchPipeline[]} pipelines @param {readonly BenchDecode[]} decodes @param {Settings} settings
 * @param {Shared & { lost: () => string | undefined }} s
 * @param {(r: PipelineRecord | DecodeRecord) => Promise<void>} done
 */
export async function runModels(pipelines, decodes, settings, s, done) {
  const ort = s.peers.ort;
  if (!ort || pipelines.length + decodes.length === 0) return;
  const { createSplitEngine } = await import('cleave-gpu');
  const { provide } = await import('../page/context.mjs');
  const { runPipeline } = await import('../page/pipeline.mjs');
  const { runDecode } = await import('../page/decode.mjs');
  const { device, engine, copyPipeline, timer, errors, lost } = s;
  const cpu = await createSplitEngine({ backend: 'cpu' });
  provide({ device, adapter: undefined, engine, cpu, copyPipeline, timer, errors, lost, ortDevice: device }, s.models);
  const counted = { ...settings, probes: true };
  const place = async (/** @type {Record<string, string>} */ names) => {
    /** @type {Record<string, string>} */
    const out = {};
    for (const [what, name] of Object.entries(names)) {
      const model = s.models.get(name);
      out[what] = model ? await placementOf(ort, device, model) : 'no model';
    }
    return out;
  };
  for (const p of pipelines) {
    const placement = await place({ whole: p.files.whole, a: p.files.a, b: p.files.b });
    const r = { pipeline: p, ...(await runPipeline(p, counted)), placement };
    log(pipelineLine(r));
    await done(r);
  }
  for (const p of decodes) {
    const names = [...new Set(p.steps)].flatMap((S) =>
      ['whole', 'a', 'b'].map((m) => /** @type {[string, string]} */ ([`${m}-${S}`, `${p.id}/${m}-${S}.onnx`])),
    );
    const placement = await place(Object.fromEntries(names));
    const r = { decode: p, ...(await runDecode(p, counted)), placement };
    log(decodeLine(r));
    await done(r);
  }
  cpu.destroy();
}
