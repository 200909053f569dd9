import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerAuth } from './auth.js';
import { registerPluginInstall } from './plugin-install.js';
import { registerPluginList } from './plugin-list.js';
import { registerPluginManage } from './plugin-manage.js';
import { registerPluginPublish } from './plugin-publish.js';
import { registerPluginValidate } from './plugin-validate.js';
import { registerPluginVerify } from './plugin-verify.js';
import { registerServer } from './server.js';

/**
 * Registers `weft server`, `weft auth ...` and `weft plugin ...`; returns every command added,
 * so that the caller configures their output and exit handling like the others.
 */
export function registerRegistryCommands(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): Command[] {
  registerServer(program, io, setExit);
  const auth = program.command('auth');
  registerAuth(auth, io, setExit);
  const plugin = program.command('plugin');
  registerPluginValidate(plugin, io, setExit);
  registerPluginPublish(plugin, io, setExit);
  registerPluginManage(plugin, io, setExit);
  registerPluginInstall(plugin, io, setExit);
  registerPluginList(plugin, io, setExit);
  registerPluginVerify(plugin, io, setExit);
  return [auth, plugin, ...auth.commands, ...plugin.commands];
}
