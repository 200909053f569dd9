import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { cliReference, renderReference } from './cli-reference.js';

const docPath = new URL('../../../docs/cli.md', import.meta.url);

describe('docs/cli.md', { timeout: 60_000 }, () => {
  it('is what the command definitions generate (run `npm run cli-docs` when this fails)', async () => {
    const generated = await format(await cliReference(), {
      ...(await resolveConfig(docPath.pathname)),
      parser: 'markdown',
    });
    expect(readFileSync(docPath, 'utf8')).toBe(generated);
  });

  it('has a section for every command and subcommand `weft` runs', async () => {
    const doc = readFileSync(docPath, 'utf8');
    for (const heading of [
      '## `weft workflow`',
      '### `weft workflow run`',
      '### `weft execution rerun`',
      '## `weft server`',
      '### `weft plugin install`',
    ])
      expect(doc).toContain(`\n${heading}\n`);
  });
});

describe('renderReference', () => {
  const program = new Command('weft');
  const top = program.command('thing').description('things of weft');
  top
    .command('make')
    .description('make a thing')
    .argument('<name>', 'the <thing> name')
    .argument('[more...]', 'more names')
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--size <n>', 'its size', '3')
    .option('--tag <tag>', 'a tag; repeatable', (v: string, all: string[]) => [...all, v], [])
    .addOption(new Option('--secret', 'not shown').hideHelp());
  const text = renderReference(program);

  it('lists each subcommand with its usage, arguments, options, choices and defaults', () => {
    expect(text).toContain('- [`weft thing`](#weft-thing): things of weft');
    expect(text).toContain('### `weft thing make`\n\nMake a thing.');
    expect(text).toContain('weft thing make [options] <name> [more...]');
    expect(text).toContain('| `<name>` | the \\<thing> name |');
    expect(text).toContain('| `[more...]` | more names (optional) |');
    expect(text).toContain(
      '| `-o, --output <format>` | output format; one of `text`, `json` | `text` |',
    );
    expect(text).toContain('| `--size <n>` | its size | `3` |');
    expect(text).toContain('| `--tag <tag>` | a tag; repeatable |  |');
    expect(text).not.toContain('--secret');
  });
});
