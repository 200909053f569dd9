import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerLazy, type LazySubcommand } from '../lazy-commands.js';

const manage = async () => (await import('./plugin-manage.js')).registerPluginManage;

/** The subcommands of `weft plugin`, in the order its help lists them. */
export const PLUGIN_SUBCOMMANDS: readonly LazySubcommand[] = [
  {
    name: 'validate',
    term: 'validate <file>',
    description:
      'check a plugin or agent definition (YAML or JSON) with the rules the registry applies',
    load: async () => (await import('./plugin-validate.js')).registerPluginValidate,
  },
  {
    name: 'publish',
    term: 'publish [options] <file>',
    description:
      'publish a plugin or agent definition (POST), or a new version of it with --update (PUT)',
    load: async () => (await import('./plugin-publish.js')).registerPluginPublish,
  },
  {
    name: 'search',
    term: 'search [options] [query]',
    description: 'search the registry (name, tags, description; words match as prefixes)',
    load: manage,
  },
  {
    name: 'deprecate',
    term: 'deprecate [options] <plugin>',
    description: 'deprecate a version, with a reason and an optional replacement version',
    load: manage,
  },
  {
    name: 'unpublish',
    term: 'unpublish [options] <plugin>',
    description:
      'remove a deprecated version within 72 hours of its publication (it never comes back)',
    load: manage,
  },
  {
    name: 'install',
    term: 'install [options] <plugin>',
    description:
      'download a plugin definition, verify its SHA-256, and with --save write ./plugins/<slug>.yaml (an agent: ./agents/<slug>.yaml)',
    load: async () => (await import('./plugin-install.js')).registerPluginInstall,
  },
  {
    name: 'list',
    term: 'list [options]',
    description:
      'list the plugins in ./plugins: slug, version, and the registry they came from or local',
    load: async () => (await import('./plugin-list.js')).registerPluginList,
  },
  {
    name: 'verify',
    term: 'verify [options] <plugin>',
    description:
      'download a version, check its SHA-256 against the registry checksum, and optionally its GPG signature',
    load: async () => (await import('./plugin-verify.js')).registerPluginVerify,
  },
];

/**
 * `weft plugin ...`: validate, publish, search, install, list and verify plugins. Only the
 * subcommand `argv` runs is loaded (all of them without `argv`).
 */
export async function registerPlugin(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
  argv?: readonly string[],
): Promise<void> {
  await registerLazy(program.command('plugin'), PLUGIN_SUBCOMMANDS, io, setExit, argv);
}
