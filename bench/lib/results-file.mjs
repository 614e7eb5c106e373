// A results file of either bench command: the format version both write, and reading one back for the report,
// with what is wrong with a file that is not one (missing, not JSON, not a results file, another format) said in
// one line.

import { readFile } from 'node:fs/promises';

/** @import { NodeReport, Report, ResultsFormat } from '../types.js' */

/** The version of what both commands write: a change the report cannot read bumps it. @type {ResultsFormat} */
export const RESULTS_FORMAT = 2;

/** What is wrong with a results file: `message` is one line that names the file. */
export class ResultsFileError extends Error {
  name = 'ResultsFileError';
}

/** @typedef {{ kind: 'page', report: Report } | { kind: 'node', report: NodeReport }} Results */

/**
 * Reads a results file written by `npm run bench` (kind 'page') or `npm run bench:node` (kind 'node').
 * @param {string} file @returns {Promise<Results>}
 * @throws {ResultsFileError} the file is missing or unreadable, not JSON, not a results file, or of another format
 */
export async function readResults(file) {
  const fail = (/** @type {string} */ why) => new ResultsFileError(`${file}: ${why}`);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = /** @type {NodeJS.ErrnoException} */ (e).code;
    throw fail(
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : `unreadable (${code})`,
    );
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw fail(`not JSON (${firstLine(e)})`);
  }
  const kind = kindOf(data);
  if (!kind) throw fail('not a bench results file (neither a page run\'s "results" nor a node run\'s "cases")');
  const format = data.format;
  if (format === undefined)
    throw fail(`an older results format (no "format" field); this report reads format ${RESULTS_FORMAT}: run it again`);
  if (format !== RESULTS_FORMAT)
    throw fail(`results format ${JSON.stringify(format)}; this report reads format ${RESULTS_FORMAT}`);
  return /** @type {Results} */ ({ kind, report: data });
}

/** 'page' or 'node' by the fields each command writes, else undefined. @param {unknown} data */
function kindOf(data) {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const o = /** @type {Record<string, unknown>} */ (data);
  if (Array.isArray(o['results']) && typeof o['env'] === 'object' && o['env'] !== null) return 'page';
  if (Array.isArray(o['cases']) && typeof o['adapter'] === 'object' && o['adapter'] !== null) return 'node';
  return undefined;
}

/** An error's message, its first line. @param {unknown} e */
export const firstLine = (e) => (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
