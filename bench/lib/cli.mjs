// What the two bench commands (bench/run.mjs, bench/node/run.mjs) share: their options read from argv,
// the timing settings of a full and a quick run, SwiftShader's Vulkan driver, and a status line overwritten
// in place on a terminal.

/** SwiftShader's Vulkan ICD file (Debian's chromium package): the adapter where there is no GPU. */
export const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * The options a command takes: a flag (true when given), or a value turned into what the command keeps.
 * @typedef {Record<string, 'flag' | ((value: string) => unknown)>} OptionSpec
 */

/**
 * Reads `argv` by `spec` ('--cases REGEX', '--cases=REGEX', '--quick'); exits with the usage on --help (0)
 * and on an unknown option or a missing value (2). Keys are the options' names without their dashes.
 * @param {readonly string[]} argv @param {OptionSpec} spec @param {string} usage @param {string} name
 * @returns {Record<string, unknown>}
 */
export function parseOptions(argv, spec, usage, name) {
  const fail = (/** @type {string} */ m) => {
    console.error(`${name}: ${m}\n${usage}`);
    process.exit(2);
  };
  /** @type {Record<string, unknown>} */
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const [k = '', inline] = /** @type {string} */ (argv[i]).split(/=(.*)/s);
    if (k === '--help' || k === '-h') {
      console.log(usage);
      process.exit(0);
    }
    const how = spec[k];
    if (!how) fail(`unknown option ${k}`);
    else if (how === 'flag') out[k.slice(2)] = true;
    else out[k.slice(2)] = how(inline ?? argv[++i] ?? fail(`${k} needs a value`) ?? '');
  }
  return out;
}

/**
 * Timing shared by both commands: warm-up, batches of about batchMs per submit-and-wait, reps within
 * budgetMs per system (bench/page/timing.mjs), at most maxLiveBytes of outputs alive; pipelines and decode loops
 * at least pipelineMinReps reps.
 * @param {boolean} quick @param {number | undefined} budget
 */
export function timingFor(quick, budget) {
  const common = { maxLiveBytes: 256 << 20 };
  return quick
    ? {
        ...common,
        budgetMs: budget ?? 150,
        minReps: 5,
        maxReps: 11,
        batchMs: 8,
        warmupMs: 20,
        warmupIters: 2,
        maxBatch: 200,
        pipelineMinReps: 5,
      }
    : {
        ...common,
        budgetMs: budget ?? 1500,
        minReps: 9,
        maxReps: 41,
        batchMs: 20,
        warmupMs: 150,
        warmupIters: 3,
        maxBatch: 400,
        pipelineMinReps: 21,
      };
}

const tty = process.stdout.isTTY;
let shown = false;

/** A status line, overwritten in place on a terminal; nothing elsewhere. @param {string} line */
export function status(line) {
  if (!tty) return;
  process.stdout.write(`\r\x1b[2K${line.slice(0, (process.stdout.columns || 120) - 1)}`);
  shown = true;
}

/** A line of the log, in place of the status line. @param {string} line */
export function log(line) {
  if (shown) process.stdout.write('\r\x1b[2K');
  shown = false;
  console.log(line);
}
