import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from './main.js';
import { selectedSubcommand } from './lazy-commands.js';
import { run } from './test-support.js';

/** Every command's help (with the text added after it) with every module loaded, by path. */
async function loadedHelp(): Promise<Map<string, string>> {
  let printed = '';
  const io = { out: (text: string) => void (printed += text), err: () => {}, color: false };
  const program = await buildProgram(io, () => {});
  const help = new Map<string, string>();
  const walk = (command: Command, path: string[]) => {
    printed = '';
    command.outputHelp();
    help.set(path.join(' '), printed);
    for (const child of command.commands) walk(child, [...path, child.name()]);
  };
  walk(program, []);
  return help;
}

describe('commands loaded on demand', () => {
  it('print the same help as when every command module is loaded', async () => {
    const loaded = await loadedHelp();
    expect(loaded.size).toBeGreaterThan(30);
    // `weft --help` lists the top-level commands by name only, as it always has.
    loaded.delete('');
    for (const [path, help] of loaded) {
      const args = [...path.split(' '), '--help'];
      const result = await run(...args);
      expect(result.code, path).toBe(0);
      expect(result.out, `weft ${args.join(' ')}`).toBe(help);
    }
  });

  it('print the help of the subcommand named after help', async () => {
    const loaded = await loadedHelp();
    const result = await run('workflow', 'help', 'run');
    expect(result.out).toBe(loaded.get('workflow run'));
  });

  it('pick the subcommand after the top-level command, whatever options follow', () => {
    const argv = (...words: string[]) => ['node', 'weft', ...words];
    expect(
      selectedSubcommand(argv('workflow', 'validate', '-o', 'json', 'a.yaml'), 'workflow'),
    ).toBe('validate');
    expect(selectedSubcommand(argv('workflow', '--help'), 'workflow')).toBeUndefined();
    expect(selectedSubcommand(argv('plugin', 'list'), 'workflow')).toBeUndefined();
    expect(selectedSubcommand(argv('help', 'plugin', 'verify'), 'plugin')).toBe('verify');
  });

  it('suggest a subcommand for a misspelt one without loading it', async () => {
    const result = await run('workflow', 'valdate', 'x.yaml');
    expect(result.code).toBe(2);
    expect(result.err).toContain("unknown command 'valdate'");
    expect(result.err).toContain('validate');
  });
});
