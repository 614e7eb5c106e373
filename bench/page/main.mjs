// The bench page's entry: every system of issue 4 side by side on ONE device (ONNX Runtime
// Web's), driven case by case from bench/run.mjs through `window.bench`.

import { finish, init } from './context.mjs';
import { runCase } from './case.mjs';

window.bench = { init, runCase, finish };
window.benchReady = true;
