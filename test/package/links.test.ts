// Package tier, no dead ends: the Markdown of the packed tarball (`npm pack`, unpacked in the OS temp dir) sends its
// reader only to what the tarball holds. Every link of every shipped Markdown file resolves inside it, anchors
// included; every file or folder name and every page address on localhost that the shipped Markdown gives is in it:
// no contributor guide or example of the source is named. (The messages the README's error table quotes are checked
// against the messages themselves in newcomer.test.ts.)
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { anchors, fileNames, localPages, must, packageLinks, resolveName } from './consumer.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** Names the docs give that are no file of Cleave's: the reader's own, or another package's in a quoted notice. */
const NOT_CLEAVES = ['tsconfig.json', 'build/postinstall.js'];

let work: string;
let pkg: string;
let files: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cleave-links-'));
  const [packed] = JSON.parse(
    await must('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], ROOT),
  ) as { filename: string }[];
  await must('tar', ['-xzf', join(work, packed!.filename), '-C', work], ROOT);
  pkg = join(work, 'package');
  files = readdirSync(pkg, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(pkg, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What a reader of the package reads to use it: the README, the guides and the API reference, the examples' READMEs. */
const userDocs = () => files.filter((f) => /^(README\.md|docs\/.+\.md|examples\/[^/]+\/README\.md)$/.test(f));

test("every link of the shipped Markdown opens a file of the tarball, at a heading or anchor that's there", () => {
  const markdown = files.filter((f) => f.endsWith('.md'));
  expect(markdown).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'CHANGELOG.md']));
  const broken = markdown
    .flatMap((f) => packageLinks(pkg, f).map((l) => ({ from: f, ...l })))
    .filter((l) => !files.includes(l.path) || (l.anchor !== '' && !anchors(pkg, l.path).includes(l.anchor)));
  expect(broken).toEqual([]);
});

test('every file the README, docs/ and the examples name is in the tarball', () => {
  const docs = userDocs();
  expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/gpu-outputs.md']));
  const named = docs.flatMap((from) => fileNames(pkg, from).map((name) => ({ from, name })));
  const deadEnds = named.filter(
    ({ from, name }) => resolveName(files, from, name) === undefined && !NOT_CLEAVES.includes(name),
  );
  expect(deadEnds).toEqual([]);
  // The check sees the names it must: a control of each kind.
  expect(named).toEqual(
    expect.arrayContaining([
      { from: 'README.md', name: 'ARCHITECTURE.md' },
      { from: 'README.md', name: 'node_modules/cleave-gpu/' },
    ]),
  );
});

test('every page address on localhost that the docs give opens a page of the tarball', () => {
  const pages = userDocs().flatMap((from) => localPages(pkg, from).map((page) => ({ from, page })));
  expect(pages).toContainEqual({ from: 'README.md', page: 'examples/minimal/index.html' });
  expect(pages.filter((p) => !files.includes(p.page))).toEqual([]);
});

test('no Markdown of the package names the contributor guide, which the package lacks', () => {
  const markdown = files.filter((f) => f.endsWith('.md'));
  const naming = markdown.filter((from) => readFileSync(join(pkg, from), 'utf8').includes('CONTRIBUTING'));
  expect(naming).toEqual([]);
  expect(files).not.toContain('CONTRIBUTING.md');
});
