// The HTML report of either bench command (html/: its parts): rendered whole, then written, so that a run or a file
// that cannot be rendered never leaves an empty or partial page behind.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { chartLibrary, renderDocument } from './html/document.mjs';
import { nodeRun } from './html/node-run.mjs';
import { pageRun } from './html/page-run.mjs';

/** @import { Results } from '../results-file.mjs' */

/**
 * The page for a results file's contents.
 * @param {Results} results @param {Awaited<ReturnType<typeof chartLibrary>>} lib @returns {string}
 */
export function renderHtml(results, lib) {
  return renderDocument(results.kind === 'page' ? pageRun(results.report) : nodeRun(results.report), lib);
}

/**
 * Renders the report and writes it to `file` (its folder made if need be).
 * @param {Results} results @param {string} file
 * @throws {Error} Chart.js is not installed, or the results cannot be rendered (nothing is written then)
 */
export async function writeHtml(results, file) {
  const html = renderHtml(results, await chartLibrary());
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, html);
}
