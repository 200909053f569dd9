import { Help, type Command } from 'commander';
import type { Io } from './io.js';

/** Adds one or more subcommands (options, help and action) to their parent. */
export type SubRegistrar = (parent: Command, io: Io, setExit: (code: number) => void) => void;

/**
 * A subcommand as its parent's help lists it, and how to load it when it runs. Subcommands that
 * share a `load` are registered together by it, in the order of the table.
 */
export interface LazySubcommand {
  name: string;
  /** The parent's help column: `validate [options] <files...>` (what commander prints). */
  term: string;
  description: string;
  load: () => Promise<SubRegistrar>;
}

/**
 * Adds `table` to `parent`, loading only the module of the subcommand `argv` runs (none for the
 * parent's help, or a word that is no subcommand): the others get a placeholder with their name,
 * help term and description, which is all the parent's help and commander's suggestions need.
 * Without `argv` every subcommand is loaded.
 */
export async function registerLazy(
  parent: Command,
  table: readonly LazySubcommand[],
  io: Io,
  setExit: (code: number) => void,
  argv?: readonly string[],
): Promise<void> {
  const selected = argv === undefined ? undefined : selectedSubcommand(argv, parent.name());
  const wanted = (entry: LazySubcommand) =>
    argv === undefined || table.some((e) => e.name === selected && e.load === entry.load);
  const terms = new Map<Command, string>();
  const loaded = new Set<LazySubcommand['load']>();
  for (const entry of table) {
    if (wanted(entry)) {
      if (loaded.has(entry.load)) continue;
      loaded.add(entry.load);
      (await entry.load())(parent, io, setExit);
      continue;
    }
    const placeholder = parent
      .command(entry.name)
      .description(entry.description)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        // Only reached if the selection above missed the subcommand that runs: a bug, said so.
        throw new Error(`the command "${entry.name}" ran without its module loaded`);
      });
    terms.set(placeholder, entry.term);
  }
  if (terms.size > 0) {
    parent.configureHelp({
      subcommandTerm(this: Help, command: Command): string {
        return terms.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
      },
    });
  }
}

/**
 * The subcommand of the top-level command `parent` that `argv` (as in `process.argv`) runs: the
 * word after `parent` that is not an option, or the one after `help` (`weft help workflow run`,
 * `weft workflow help run`). Top-level commands take no options, so no option value comes first.
 */
export function selectedSubcommand(argv: readonly string[], parent: string): string | undefined {
  const words = argv.slice(2).filter((word) => !word.startsWith('-'));
  if (words[0] === 'help') words.shift();
  if (words[0] !== parent) return undefined;
  const next = words[1];
  return next === 'help' ? words[2] : next;
}
