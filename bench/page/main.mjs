// The bench page's entry: every system side by side on ONE device (ONNX Runtime
// Web's), driven from bench/run.mjs through `window.bench`: split cases, ORT -> Cleave -> ORT
// pipelines, and the per-call cost of split and encodeSplit.

import { finish, init, shared } from './context.mjs';
import { runCase } from './case.mjs';
import { runCallCost } from './calls.mjs';
import { runPipeline } from './pipeline.mjs';
import { runDecode } from './decode.mjs';

window.bench = {
  init,
  runCase,
  runPipeline,
  runCallCost: (spec, settings) => runCallCost(spec, settings, shared()),
  runDecode,
  finish,
};
window.benchReady = true;
