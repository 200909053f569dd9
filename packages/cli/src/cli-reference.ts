import type { Argument, Command, Option } from 'commander';
import { buildProgram } from './main.js';

/** The first lines of docs/cli.md; the rest comes from the command definitions. */
const PREAMBLE = [
  '# Command-line reference',
  '',
  '<!-- Generated from the command definitions of packages/cli by `npm run cli-docs`; do not edit. -->',
  '',
  'Every command answers `--help` with what this page shows. Exit status: `0` success, `2` usage',
  'error or invalid input, `1` unexpected failure (some commands add their own; see',
  '[the CLI guide](commands.md)). Options that name a server or a key fall back to',
  '`WORKFLOW_CLOUD_URL`, `WORKFLOW_REGISTRY_URL` and `WORKFLOW_REGISTRY_API_KEY`.',
];

/**
 * docs/cli.md: every command of `weft` with its description, arguments and options (their
 * descriptions, choices and defaults), read from the commander tree that `weft` itself runs.
 * Not yet formatted: the writer and the test pass it through prettier.
 */
export async function cliReference(): Promise<string> {
  const quiet = { out: () => undefined, err: () => undefined } as unknown as Parameters<
    typeof buildProgram
  >[0];
  const program = await buildProgram(quiet, () => undefined);
  return renderReference(program);
}

/** The reference of `program` (see {@link cliReference}). */
export function renderReference(program: Command): string {
  const lines = [...PREAMBLE, '', '## Commands', ''];
  for (const top of program.commands) {
    lines.push(
      `- [\`weft ${top.name()}\`](#${anchor(`weft ${top.name()}`)}): ${prose(top.description())}`,
    );
  }
  for (const top of program.commands) {
    lines.push('', `## \`weft ${top.name()}\``, '', sentence(top.description()));
    if (top.commands.length > 0) lines.push('');
    for (const sub of top.commands) {
      lines.push(`- [\`${usage(sub)}\`](#${anchor(`weft ${top.name()} ${sub.name()}`)})`);
    }
    if (top.commands.length === 0) lines.push(...details(top, 'weft'));
    for (const sub of top.commands) {
      lines.push('', `### \`weft ${top.name()} ${sub.name()}\``, '', sentence(sub.description()));
      lines.push(...details(sub, `weft ${top.name()}`));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Usage line, arguments table and options table of a command that runs. */
function details(command: Command, parent: string): string[] {
  const lines = ['', '```text', `${parent} ${usage(command)}`, '```'];
  const args = command.registeredArguments;
  if (args.length > 0) {
    lines.push('', '| argument | meaning |', '| --- | --- |');
    for (const arg of args) lines.push(`| \`${argumentTerm(arg)}\` | ${argumentMeaning(arg)} |`);
  }
  const options = command.options.filter((option) => !option.hidden);
  if (options.length > 0) {
    lines.push('', '| option | meaning | default |', '| --- | --- | --- |');
    for (const option of options) {
      lines.push(`| \`${cell(option.flags)}\` | ${optionMeaning(option)} | ${defaultOf(option)} |`);
    }
  }
  return lines;
}

function usage(command: Command): string {
  const args = command.registeredArguments.map(argumentTerm);
  const options = command.options.some((option) => !option.hidden) ? ['[options]'] : [];
  return [command.name(), ...options, ...args].join(' ');
}

function argumentTerm(arg: Argument): string {
  const name = `${arg.name()}${arg.variadic ? '...' : ''}`;
  return arg.required ? `<${name}>` : `[${name}]`;
}

function argumentMeaning(arg: Argument): string {
  const optional = arg.required ? '' : ' (optional)';
  return `${prose(arg.description)}${optional}`;
}

function optionMeaning(option: Option): string {
  const choices = option.argChoices ? `; one of ${option.argChoices.map(code).join(', ')}` : '';
  return `${prose(option.description)}${choices}`;
}

/** The default commander prints (its description if given), or none; an empty list: none. */
function defaultOf(option: Option): string {
  if (option.defaultValueDescription !== undefined) return code(option.defaultValueDescription);
  const value: unknown = option.defaultValue;
  if (value === undefined || value === false) return '';
  if (Array.isArray(value) && value.length === 0) return '';
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return '';
  return code(typeof value === 'string' ? value : JSON.stringify(value));
}

/** A description as a sentence: capital first letter, final full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const first = prose(trimmed[0]!.toUpperCase() + trimmed.slice(1));
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}

/** GitHub's anchor of a heading `` `text` ``: lower case, spaces to dashes, punctuation dropped. */
export function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function code(text: string): string {
  return `\`${cell(text)}\``;
}

/** Text for a table cell: pipes escaped, one line. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Prose for a table cell or a paragraph: also `<` escaped, so `oidc:<sub>` is no HTML tag. */
function prose(text: string): string {
  return cell(text).replace(/</g, '\\<');
}
