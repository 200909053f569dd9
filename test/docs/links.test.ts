import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link of README.md, docs/*.md and packages/*/*.md must reach a file of the repository, and every
// `#anchor` a heading (or an explicit `<a id>`) of the Markdown file it points into, as GitHub
// renders them. External links (http, mailto) are not followed: no test needs the internet.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** GitHub's anchor of a heading: markup dropped, lower case, punctuation out, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The text of `markdown` outside fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** The anchors a Markdown file defines: its headings' slugs (repeats get -1, -2...) and `<a id>`. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** The broken relative links of the Markdown file at `file` (a path from the repository root). */
function brokenLinks(file: string, markdown: string, readFile = readRepoFile): string[] {
  const broken: string[] = [];
  const targets = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    ([, target]) => target!,
  );
  for (const [, target] of prose(markdown).matchAll(/^\[[^\]]+\]:\s*(\S+)/gm))
    targets.push(target!);
  for (const target of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    const text = readFile(resolved);
    if (text === undefined) {
      broken.push(`${file}: ${target}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) continue;
    if (!anchorsOf(text).has(anchor)) broken.push(`${file}: ${target}: no heading #${anchor}`);
  }
  return broken;
}

/** A file of the repository ('' for a directory), or undefined when there is none. */
function readRepoFile(path: string): string | undefined {
  const full = join(root, path);
  if (relative(root, full).startsWith('..') || !existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

const markdownIn = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `${folder}/${name}`);

const documents = [
  'README.md',
  ...markdownIn('docs'),
  ...readdirSync(join(root, 'packages')).flatMap((name) =>
    existsSync(join(root, 'packages', name, 'package.json')) ? markdownIn(`packages/${name}`) : [],
  ),
];

describe("links of README.md, docs/*.md and the packages' Markdown files", () => {
  it.each(documents)('%s: every relative link and anchor resolves', (file) => {
    expect(brokenLinks(file, readRepoFile(file)!)).toEqual([]);
  });
});

describe('brokenLinks', () => {
  const files: Record<string, string> = {
    'docs/a.md': '# Title\n\n## The `weft server` command\n\n## Title\n',
    'docs/b.md': '<a id="custom"></a>\ntext',
  };
  const read = (path: string) => files[path];

  it('accepts links to files, headings, repeated headings and explicit anchors', () => {
    const text =
      '[a](a.md) [b](./b.md#custom) [c](a.md#the-weft-server-command) [d](#title-1) [e](https://x.dev/y#z)';
    expect(brokenLinks('docs/a.md', text, read)).toEqual([]);
  });

  it('names a missing file and a missing heading, and skips links inside code', () => {
    const text =
      '[gone](gone.md) and [typo](a.md#the-weft-sever-command)\n\n```md\n[x](nope.md)\n```\n`[y](nope.md)`';
    expect(brokenLinks('docs/b.md', text, read)).toEqual([
      'docs/b.md: gone.md: no file docs/gone.md',
      'docs/b.md: a.md#the-weft-sever-command: no heading #the-weft-sever-command',
    ]);
  });
});
