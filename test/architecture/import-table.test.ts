import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The import table is written down three times: docs/design.md's package table (for readers),
 * eslint/packages.js (what `weft/package-boundaries` enforces) and each package's `dependencies`
 * (what npm installs). This test keeps them equal, and docs/contributing.md's repository table complete, with
 * the packages read from disk so a new package is checked from its first commit.
 */

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** What eslint/packages.js says a package may import: names (`sdk/client`) or `'*'` for all. */
type ImportTable = Record<string, { may: string[] | '*' }>;

/** Folders held to their own `may` (a zone may allow more than its package, as the SDK's service kit). */
type Zones = { files: string[]; may: string[] }[];

/** Loaded by a computed URL: the module is plain JavaScript with no declaration file. */
const boundaries = new URL('eslint/packages.js', root).href;
const { PACKAGES, ZONES } = (await import(boundaries)) as { PACKAGES: ImportTable; ZONES: Zones };

/** What any file of a package may import: its own `may` and that of the zones inside it. */
function mayOf(folder: string): string[] | '*' | undefined {
  const may = PACKAGES[folder]?.may;
  if (may === undefined || may === '*') return may;
  const zones = ZONES.filter((zone) => zone.files.some((f) => f.startsWith(`packages/${folder}/`)));
  return [...new Set([...may, ...zones.flatMap((zone) => zone.may)])];
}

/** The workspace packages on disk: folder name and the `@weft/*` packages it depends on. */
const onDisk = readdirSync(new URL('packages/', root))
  .filter((name) => existsSync(new URL(`packages/${name}/package.json`, root)))
  .map((folder) => {
    const manifest = JSON.parse(read(`packages/${folder}/package.json`)) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    const dependencies = Object.keys(manifest.dependencies ?? {})
      .filter((name) => name.startsWith('@weft/'))
      .map((name) => name.slice('@weft/'.length));
    return { folder, name: manifest.name, dependencies };
  });

/** The rows of the first Markdown table after `heading`, as arrays of trimmed cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.slice(markdown.indexOf(`\n${heading}\n`)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** docs/design.md's package table in its order: package folder name and its `imports` cell. */
const designRows = tableAfter(read('docs/design.md'), '## Packages').map(([name, , imports]) => ({
  folder: /^`@weft\/(.+)`$/.exec(name!)?.[1] ?? name!,
  imports: imports!,
}));
const designOrder = designRows.map((row) => row.folder);

/** An `imports` cell as `may` reads: `nothing of weft` none, `everything above` all. */
function parseImports(cell: string): string[] | '*' {
  if (cell === 'nothing of weft') return [];
  if (cell === 'everything above') return '*';
  // A note in brackets (`http (service kit)`, `(browser code only)`) says where, not what.
  return cell.split(',').map((entry) => entry.replace(/\s*\(.*\)$/, '').trim());
}

/** The package a `may` entry names: `sdk/client` is `sdk`. */
const packageOf = (entry: string) => entry.split('/')[0]!;

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('the import table', () => {
  it('lists every package on disk, once, in docs/design.md, eslint/packages.js and docs/contributing.md', () => {
    const folders = sorted(onDisk.map((p) => p.folder));
    expect(designOrder.slice().sort()).toEqual(folders);
    expect(sorted(Object.keys(PACKAGES))).toEqual(folders);
    const repositoryRows = tableAfter(read('docs/contributing.md'), '## Repository');
    const repositoryFolders = repositoryRows.map(
      ([cell]) => /^`packages\/(.+)`$/.exec(cell!)?.[1] ?? cell,
    );
    expect(repositoryFolders.slice().sort()).toEqual(folders);
  });

  it('names each package by its folder', () => {
    for (const { folder, name } of onDisk) expect(name).toBe(`@weft/${folder}`);
  });

  describe.each(onDisk)('@weft/$folder', ({ folder, dependencies }) => {
    const row = designRows.find((r) => r.folder === folder);
    const may = mayOf(folder);

    it("has the same imports in docs/design.md as in eslint/packages.js's `may`", () => {
      expect(row, `a row for @weft/${folder} in docs/design.md`).toBeDefined();
      const documented = parseImports(row!.imports);
      expect(documented === '*' ? '*' : sorted(documented)).toEqual(
        may === '*' ? '*' : sorted(may ?? []),
      );
    });

    it('depends on the weft packages it may import', () => {
      const above = designOrder.slice(0, designOrder.indexOf(folder));
      if (may === '*') {
        // `everything above`: whatever it uses, nothing below it in the table.
        for (const dependency of dependencies) expect(above).toContain(dependency);
      } else {
        expect(sorted(dependencies)).toEqual(sorted((may ?? []).map(packageOf)));
      }
    });

    it('imports only packages above it in docs/design.md (arrows point down the table)', () => {
      const above = designOrder.slice(0, designOrder.indexOf(folder));
      for (const entry of may === '*' ? [] : (may ?? [])) expect(above).toContain(packageOf(entry));
    });
  });
});
