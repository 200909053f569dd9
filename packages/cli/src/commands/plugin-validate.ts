import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { loadDefinitionFile, printProblems } from '../plugin-file.js';

/** `weft plugin validate FILE`: checks a plugin definition with the registry's rules, offline. */
export function registerPluginValidate(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('validate')
    .description(
      'check a plugin or agent definition (YAML or JSON) with the rules the registry applies',
    )
    .argument('<file>', 'plugin or agent definition file')
    .action(async (file: string) => {
      const loaded = await loadDefinitionFile(file);
      if (!loaded.ok) {
        printProblems(io, file, loaded.problems);
        io.err(
          `${file}: ${loaded.problems.length} error${loaded.problems.length === 1 ? '' : 's'}\n`,
        );
        setExit(EXIT.invalid);
        return;
      }
      if (loaded.kind === 'agent') {
        const { slug, version, name } = loaded.definition;
        io.out(`ok ${file}: agent agent:${name}@${version}, published as ${slug}\n`);
        setExit(EXIT.ok);
        return;
      }
      const { slug, version, actions, signature } = loaded.definition;
      const signed = signature ? `, signed by ${signature.key_id}` : '';
      io.out(
        `ok ${file}: ${slug}@${version}, ${actions.length} action${actions.length === 1 ? '' : 's'}${signed}\n`,
      );
      setExit(EXIT.ok);
    });
}
