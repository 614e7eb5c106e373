// Helpers for the package tier: child processes that fail loudly with their output, npm in a clean
// environment, fresh consumer projects in the OS temp dir, the ```ts blocks of the README and the guides
// (docs/*.md), and the links of the shipped Markdown.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript6';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

// `npm test` exports npm_package_* / npm_lifecycle_* / local-prefix for the repo; a child npm
// run in a consumer project must not see them, or it may act on the repo instead.
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_(package_|lifecycle_|config_local_prefix$|command$)/i.test(k)),
);

/** Runs a command to the end; never throws (see `must`). `env` adds to (or, with undefined, removes from) this one. */
export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((done) => {
    // A variable given as undefined is removed (e.g. VK_ICD_FILENAMES, for a run without an adapter).
    const merged = Object.fromEntries(Object.entries({ ...childEnv, ...env }).filter(([, v]) => v !== undefined));
    execFile(cmd, args, { cwd, env: merged, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr: stderr || (err && !stdout ? String(err) : '') });
    });
  });
}

/** Runs a command and returns its stdout, or throws with everything it printed. */
export async function must(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await run(cmd, args, cwd, env);
  if (r.code !== 0)
    throw new Error(`\`${[cmd, ...args].join(' ')}\` in ${cwd} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Newest published version in a range, asked of the registry itself (not a cached packument). */
export async function newest(pkg: string, range: string, cwd: string): Promise<string> {
  const out = JSON.parse(
    await must('npm', ['view', `${pkg}@${range}`, 'version', '--json', '--prefer-online'], cwd),
  ) as string | string[];
  const last = [out].flat().at(-1);
  if (!last) throw new Error(`npm view ${pkg}@${range}: no version`);
  return last;
}

/** A fresh ESM project in `dir` with these dependencies, installed once from the npm cache where it can. */
export async function consumerProject(dir: string, dependencies: Record<string, string>): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const pkg = { name: 'cleave-consumer', private: true, type: 'module', dependencies };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  await must('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], dir);
  return dir;
}

export interface Snippet {
  line: number;
  code: string;
}

/** The Markdown a user reads, relative to the repository root: the README, then the guides. */
export function docFiles(root: string): string[] {
  const guides = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  return ['README.md', ...guides.sort().map((f) => `docs/${f}`)];
}

/** A ```ts block of one of `docFiles`, named for its file and line (`docs-setup-line-12`): a module of its own. */
export interface DocSnippet extends Snippet {
  name: string;
}

/** Every ```ts block of the README and the guides. */
export function docBlocks(root: string): DocSnippet[] {
  return docFiles(root).flatMap((file) =>
    tsBlocks(join(root, file)).map((b) => ({
      ...b,
      name: `${file.replace(/\.md$/, '').replace('/', '-')}-line-${b.line}`,
    })),
  );
}

/** Every ```ts (or ```typescript) block of a Markdown file, with the line its code starts on. */
export function tsBlocks(markdownFile: string): Snippet[] {
  const lines = readFileSync(markdownFile, 'utf8').split('\n');
  const blocks: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${markdownFile}:${i + 1}: unclosed code block`);
    blocks.push({ line: i + 2, code: lines.slice(i + 1, end).join('\n') + '\n' });
    i = end;
  }
  return blocks;
}

/**
 * The links of a shipped Markdown file that point inside the package, as paths from the package root with the
 * anchor each names ('' for none). Absolute URLs are left out; a bare `#anchor` points into the file itself.
 */
export function packageLinks(root: string, file: string): { path: string; anchor: string }[] {
  return [...prose(root, file).matchAll(/\]\(([^)\s]+)[^)]*\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/i.test(l))
    .map((l) => {
      const [target = '', anchor = ''] = l.split('#');
      return { path: target ? posix.normalize(posix.join(posix.dirname(file), target)) : file, anchor };
    });
}

/**
 * The anchors of a Markdown file: those GitHub gives its headings (lower case, punctuation dropped, spaces as
 * hyphens, a repeated one numbered -1, -2, ...), and its HTML anchors (`<a id="...">`, as the API reference has).
 */
export function anchors(root: string, file: string): string[] {
  const text = prose(root, file);
  const seen = new Map<string, number>();
  const headings = text
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) =>
      l
        .replace(/^#+ /, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    )
    .map((slug) => {
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      return n === 0 ? slug : `${slug}-${n}`;
    });
  return [...headings, ...[...text.matchAll(/<a (?:id|name)="([^"]+)"/g)].map((m) => m[1]!)];
}

/**
 * The names of files and folders a shipped Markdown file gives anywhere in its text, code blocks included (HTML
 * comments and addresses left out), as written: paths that end in a file extension or a slash (`dist/cleave.js`,
 * `examples/minimal/`, the path in `node examples/kv-cache-decode/serve.mjs`) and bare names with an extension
 * (`ARCHITECTURE.md`). Absolute paths (a system's files) and package names (`cleave-gpu/core`) are not file names.
 */
export function fileNames(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/\b[a-z][\w+.-]*:\/\/[^\s)>`'"]*/gi, ' ');
  const names = text.match(FILE_NAME) ?? [];
  return [...new Set(names)].filter((n) => !PRODUCT_NAMES.includes(n));
}
const FILE_NAME =
  /(?<![\w@/.:~$-])(?:\.{1,2}\/)*(?:[\w.-]+\/)*(?:[\w-][\w.-]*\.(?:md|mjs|cjs|js|ts|html|json|wgsl|onnx|txt)|[\w.-]+\/)(?![\w/-])/g;
/** Names that look like files but are products. */
const PRODUCT_NAMES = ['TensorFlow.js', 'TF.js', 'Node.js', 'Chart.js'];

/**
 * Where a name a Markdown file gives resolves among the package's files: from the file's folder, else from the
 * package's root (a name under `node_modules/cleave-gpu/` from the root); a folder resolves when a file lies in it.
 * Undefined when it resolves nowhere.
 */
export function resolveName(files: readonly string[], from: string, name: string): string | undefined {
  const installed = name.replace(/^node_modules\/cleave-gpu\//, '');
  const candidates =
    installed === name ? [posix.join(posix.dirname(from), name), name] : [installed === '' ? './' : installed];
  return candidates
    .map((c) => posix.normalize(c))
    .find((c) => (c.endsWith('/') ? c === './' || files.some((f) => f.startsWith(c)) : files.includes(c)));
}

/** The package's pages that a Markdown file's addresses on localhost open (`http://localhost:8000/a/`: a/index.html). */
export function localPages(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [
    ...text.matchAll(/\bhttps?:\/\/(?:localhost|127\.0\.0\.1):\d+\/([^\s)>`'"]*?)(?=[.,;:]?(?:[\s)>`'"]|$))/g),
  ].map((m) => (m[1]!.endsWith('/') || m[1] === '' ? `${m[1]}index.html` : m[1]!));
}

/** A row of the README's error table: the code, and the fix its last column quotes from the message. */
export interface ErrorRow {
  code: string;
  fixes: string[];
}

/** The rows of the README's error table (the table whose first column is "mistake"). */
export function errorTable(readme: string): ErrorRow[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => /^\| mistake\s+\|/.test(l));
  if (start < 0) return [];
  const rows = lines.slice(start + 2);
  const end = rows.findIndex((l) => !l.startsWith('|'));
  return rows.slice(0, end < 0 ? rows.length : end).map((row) => {
    const cells = row.split(/(?<!\\)\|/).map((c) => c.trim());
    return { code: codeSpans(cells[2] ?? '')[0] ?? '', fixes: codeSpans(cells[3] ?? '') };
  });
}

/** The code spans of a line of Markdown, single or double backticks, with a table's `\|` read as `|`. */
const codeSpans = (line: string): string[] =>
  [...line.matchAll(/(`+)(?!`)(.+?)(?<!`)\1(?!`)/g)].map((m) => m[2]!.trim().replace(/\\\|/g, '|'));

/** A Markdown file without its fenced code blocks (whose lines are neither links nor headings). */
function prose(root: string, file: string): string {
  return readFileSync(join(root, file), 'utf8').replace(/^```.*\n[\s\S]*?^```\s*$/gm, '');
}

/** Whether a README block imports nothing but Cleave and the `also` packages (so a project with those runs it). */
export function runnable(code: string, also: readonly string[] = []): boolean {
  return [...code.matchAll(/from '([^']+)'/g)].every((m) =>
    ['cleave-gpu', 'cleave-gpu/core', 'cleave-gpu/ort', ...also].includes(m[1]!),
  );
}

/** A README block as JavaScript for Node: types and `declare`s stripped, nothing else changed. */
export function toJs(code: string): string {
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ESNext },
  }).outputText;
}

/**
 * What a README block says it prints: its full-line comments that start with a value, and the
 * values that open a `console.log(...)` line's trailing comment ("// [2, 2] [0, 1, 10, 11]").
 * Spaces removed, as `printed` compares them.
 */
export function expectedPrints(code: string): string[] {
  const value = /^(?:\[[-\d, [\]]*\]|-?\d+)(?:\s+(?:\[[-\d, [\]]*\]|-?\d+))*/;
  return code
    .split('\n')
    .map((l) => /^\s*\/\/ (.*)$/.exec(l)?.[1] ?? (l.includes('console.log(') ? /\/\/ (.*)$/.exec(l)?.[1] : undefined))
    .map((c) => (c === undefined ? undefined : value.exec(c)?.[0]))
    .filter((v): v is string => v !== undefined)
    .map((v) => v.replace(/\s/g, ''));
}

/** Node's console output with spaces removed, for `expectedPrints`. */
export const printed = (stdout: string): string => stdout.replace(/\s/g, '');
