import type { Command } from 'commander';
import type { WeftError } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { describeError } from '../registry-client.js';
import { diffOfRefusal, formatDiff, type VersionDiff } from './plugin-publish-diff.js';
import { loadDefinitionFile, printProblems } from '../plugin-file.js';
import {
  apiKeyOption,
  RegistryClient,
  registryOption,
  type RegistryFlags,
} from '../registry-client.js';

interface PublishFlags extends RegistryFlags {
  dryRun?: boolean;
  update?: boolean;
}

/** `weft plugin publish FILE [--registry URL] [--dry-run] [--update]`. */
export function registerPluginPublish(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('publish')
    .description(
      'publish a plugin or agent definition (POST), or a new version of it with --update (PUT)',
    )
    .argument(
      '<file>',
      'plugin or agent definition file (YAML, or JSON by its .json extension); an agent (top-level agent) is published as <namespace>-<name>, kind agent',
    )
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .option(
      '--dry-run',
      'let the registry check everything, store nothing; with --update, print the changes against the published version',
    )
    .option('--update', 'publish a new version of an existing plugin or agent')
    .action(async (file: string, flags: PublishFlags) =>
      guard(io, setExit, async () => {
        const loaded = await loadDefinitionFile(file);
        if (!loaded.ok) {
          printProblems(io, file, loaded.problems);
          return EXIT.invalid;
        }
        const client = new RegistryClient(flags);
        if (!client.hasKey) {
          io.err(
            'error: publishing needs an API key: set WORKFLOW_REGISTRY_API_KEY (weft auth create-key makes one)\n',
          );
          return EXIT.invalid;
        }
        const { slug } = loaded.definition;
        const query = flags.dryRun ? '?dry_run=true' : '';
        let answer;
        try {
          answer = await client.expectOk(
            flags.update ? 'PUT' : 'POST',
            flags.update ? `/plugins/${slug}${query}` : `/plugins${query}`,
            {
              body: loaded.bytes,
              contentType: loaded.format === 'json' ? 'application/json' : 'application/yaml',
            },
          );
        } catch (error) {
          // A breaking change without a major version: say what breaks, not only that it does.
          const refused = diffOfRefusal(error);
          if (!refused) throw error;
          io.err(describeError(error as WeftError) + formatDiff(refused));
          return EXIT.invalid;
        }
        const result = answer.json as {
          status: string;
          slug: string;
          version: string;
          previous_version?: string;
          url: string;
          checksum: string;
          diff?: VersionDiff;
        };
        const previous = result.previous_version ? ` (previous ${result.previous_version})` : '';
        const verb = flags.dryRun ? `would be ${result.status}` : result.status;
        io.out(
          `${result.slug}@${result.version} ${verb}${previous}\n  url: ${result.url}\n  checksum: ${result.checksum}\n`,
        );
        if (result.diff) io.out(formatDiff(result.diff));
        return EXIT.ok;
      }),
    );
}
