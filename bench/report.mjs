// `npm run bench:report -- <results.json> [--out file.html]`: renders the HTML report of an earlier run of either
// bench command from its JSON (bench/results/<timestamp>.json or node-<timestamp>.json), by default beside it with
// .html for .json. A file that is missing, not JSON, not a results file or of another format: one line naming the
// file and what is wrong, exit code 1, and no page written.

import { resolve } from 'node:path';
import { parseOptions } from './lib/cli.mjs';
import { writeHtml } from './lib/report/html.mjs';
import { ResultsFileError, firstLine, readResults } from './lib/results-file.mjs';

const USAGE = `usage: npm run bench:report -- <results.json> [--out file.html]
  <results.json>   a results file of npm run bench or npm run bench:node (bench/results/)
  --out FILE       where the page goes (default: beside the JSON, .html for .json)`;

/** @param {readonly string[]} argv */
function parseArgs(argv) {
  const files = argv.filter((a, i) => !a.startsWith('-') && argv[i - 1] !== '--out');
  const o = parseOptions(
    argv.filter((a) => !files.includes(a)),
    { '--out': resolve },
    USAGE,
    'bench:report',
  );
  if (files.length !== 1) {
    console.error(`bench:report: ${files.length ? 'one results file at a time' : 'which results file?'}\n${USAGE}`);
    process.exit(2);
  }
  const file = /** @type {string} */ (files[0]);
  return { file, out: /** @type {string | undefined} */ (o['out']) ?? resolve(file.replace(/(\.json)?$/i, '.html')) };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  try {
    const results = await readResults(args.file);
    try {
      await writeHtml(results, args.out);
    } catch (e) {
      throw new ResultsFileError(`${args.file}: cannot render it: ${firstLine(e)}`);
    }
  } catch (e) {
    if (!(e instanceof ResultsFileError)) throw e;
    console.error(`bench:report: ${e.message}`);
    process.exit(1);
  }
  console.log(`wrote ${args.out}`);
}

await main();
