import type { Command } from 'commander';
import type { DeprecateResponse, RemoveResponse, SearchResponse } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { outputOption } from '../options.js';
import {
  apiKeyOption,
  parseSpecifier,
  RegistryClient,
  registryOption,
  type RegistryFlags,
} from '../registry-client.js';
import { formatTable } from '../table.js';

/** `weft plugin search`, `deprecate` and `unpublish`: the rest of the registry protocol. */
export function registerPluginManage(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('search')
    .description('search the registry (name, tags, description; words match as prefixes)')
    .argument('[query]', 'words to look for', '')
    .option('--tag <tag>', 'only plugins with this tag')
    .option('--kind <kind>', 'only entries of this kind: plugin, or agent')
    .option('--limit <n>', 'results per page (1 to 100)', '20')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .addOption(outputOption())
    .action(
      async (
        query: string,
        flags: RegistryFlags & { tag?: string; kind?: string; limit: string; output: string },
      ) =>
        guard(io, setExit, async () => {
          const params = new URLSearchParams({
            q: query,
            limit: flags.limit,
            ...(flags.tag ? { tag: flags.tag } : {}),
            ...(flags.kind ? { kind: flags.kind } : {}),
          });
          const answer = (
            await new RegistryClient(flags).expectOk('GET', `/plugins/search?${params}`)
          ).json as SearchResponse;
          if (flags.output === 'json') io.out(`${JSON.stringify(answer, null, 2)}\n`);
          else {
            const rows = answer.results.map((r) => [
              r.slug,
              r.version,
              String(r.downloads),
              r.description,
            ]);
            io.out(formatTable(['SLUG', 'VERSION', 'DOWNLOADS', 'DESCRIPTION'], rows));
            io.err(`${answer.results.length} of ${answer.total} shown\n`);
          }
          return EXIT.ok;
        }),
    );

  parent
    .command('deprecate')
    .description('deprecate a version, with a reason and an optional replacement version')
    .argument('<plugin>', 'slug@version')
    .requiredOption('--reason <text>', 'why it is deprecated')
    .option('--replacement <version>', 'version to use instead')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .action(
      async (specifier: string, flags: RegistryFlags & { reason: string; replacement?: string }) =>
        guard(io, setExit, async () => {
          const { slug, version } = requireVersion(specifier);
          const body = {
            reason: flags.reason,
            ...(flags.replacement ? { replacement_version: flags.replacement } : {}),
          };
          const answer = await new RegistryClient(flags).expectOk(
            'POST',
            `/plugins/${slug}/${encodeURIComponent(version)}/deprecate`,
            { body },
          );
          const result = answer.json as DeprecateResponse;
          const replacement = result.replacement_version
            ? ` (use ${result.replacement_version})`
            : '';
          io.out(`${result.slug}@${result.version} deprecated: ${result.reason}${replacement}\n`);
          return EXIT.ok;
        }),
    );

  parent
    .command('unpublish')
    .description(
      'remove a deprecated version within 72 hours of its publication (it never comes back)',
    )
    .argument('<plugin>', 'slug@version')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .action(async (specifier: string, flags: RegistryFlags) =>
      guard(io, setExit, async () => {
        const { slug, version } = requireVersion(specifier);
        const answer = await new RegistryClient(flags).expectOk(
          'DELETE',
          `/plugins/${slug}/${encodeURIComponent(version)}`,
        );
        const result = answer.json as RemoveResponse;
        io.out(`${result.slug}@${result.version} removed\n`);
        return EXIT.ok;
      }),
    );
}

function requireVersion(specifier: string): { slug: string; version: string } {
  const { slug, version } = parseSpecifier(specifier);
  if (version === undefined || version === '')
    throw new Error(`name the version: ${slug}@<version>`);
  return { slug, version };
}
