import type { Command } from 'commander';
import { checksumOf, slugProblem } from '@weft/registry/definitions';
import { ValidationError } from '@weft/core';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { guard } from '../command-errors.js';
import { pluginsDir, saveInstalled } from '../plugins-dir.js';
import {
  apiKeyOption,
  parseSpecifier,
  RegistryClient,
  registryOption,
  type RegistryFlags,
} from '../registry-client.js';
import { fetchVerified } from '../fetch-definition.js';
import { checkInstalledIdentity } from '../installed-identity.js';
import { agentLoadProblems, localLoadProblems, printProblems } from '../plugin-file.js';

/** `weft plugin install <slug>[@<version>] [--registry URL] [--save]`. */
export function registerPluginInstall(
  parent: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  parent
    .command('install')
    .description(
      'download a plugin definition, verify its SHA-256, and with --save write ./plugins/<slug>.yaml (an agent: ./agents/<slug>.yaml)',
    )
    .argument('<plugin>', 'slug, or slug@version (default: the latest version)')
    .addOption(registryOption())
    .addOption(apiKeyOption())
    .option('--save', 'write ./plugins/<slug>.yaml (otherwise the definition is printed)')
    .option('--plugins-dir <dir>', 'where --save writes a plugin', './plugins')
    .option('--agents-dir <dir>', 'where --save writes an agent (kind agent)', './agents')
    .action(
      async (
        specifier: string,
        flags: RegistryFlags & { save?: boolean; pluginsDir: string; agentsDir: string },
      ) =>
        guard(io, setExit, async () => {
          const { slug, version } = parseSpecifier(specifier);
          // Before anything is asked: the slug names the file written (plugins/<slug>.yaml).
          const problem = slugProblem(slug);
          if (problem)
            throw new ValidationError(problem.message, {
              field: 'slug',
              constraint: problem.constraint,
            });
          const client = new RegistryClient(flags);
          const fetched = await fetchVerified(client, slug, version);
          if (!fetched.ok) {
            io.err(`error: ${fetched.message}\n`);
            return EXIT.failure;
          }
          const { detail, bytes } = fetched;
          if (detail.slug !== slug)
            throw new ValidationError(`registry answered for ${detail.slug}, not ${slug}`, {
              field: 'slug',
              constraint: 'matches',
            });
          // The bytes are what gets installed: their own slug and version must be the ones asked
          // (the version recorded, when none was).
          checkInstalledIdentity(bytes, fetched.contentType, slug, version ?? detail.version);
          const agent = detail.kind === 'agent';
          const dir = agent ? flags.agentsDir : flags.pluginsDir;
          if (!flags.save) {
            io.out(new TextDecoder().decode(bytes));
            io.err(
              `verified ${slug}@${detail.version} (${detail.checksum}); add --save to write ${dir}/${slug}.yaml\n`,
            );
            return EXIT.ok;
          }
          const where = `${dir}/${slug}.yaml`;
          const problems = agent ? agentLoadProblems(bytes) : localLoadProblems(bytes, where);
          if (problems.length > 0) {
            printProblems(io, `${slug}@${detail.version}`, problems);
            io.err(
              `error: ${slug}@${detail.version} would not load in local runs (${agent ? '--agents' : '--plugins'}), so it was not saved; report it to its author\n`,
            );
            return EXIT.invalid;
          }
          const target = await saveInstalled(pluginsDir(dir), slug, bytes, {
            version: detail.version,
            registry: client.baseUrl,
            checksum: checksumOf(bytes),
            installed_at: new Date().toISOString(),
          });
          io.out(`installed ${slug}@${detail.version} (${detail.checksum}) -> ${target}\n`);
          if (detail.status === 'deprecated')
            io.err(`warning: ${slug}@${detail.version} is deprecated\n`);
          return EXIT.ok;
        }),
    );
}
