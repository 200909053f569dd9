import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { VERSION } from '../main.js';
import { projectFiles } from './init-template.js';

interface InitFlags {
  force?: boolean;
  name?: string;
}

/** What an npm package name may be (lower case, no scope here): the project's name. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,213}$/;

/** `weft init [dir]`: writes a runnable project (see init-template.ts) into `dir`. */
export function registerInit(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('init')
    .description(
      'write a runnable weft project: a workflow with a transform, a shell action and a TypeScript handler',
    )
    .argument('[dir]', 'directory of the project (created if missing)', '.')
    .option('--name <name>', 'package name (default: the directory name)')
    .option('--force', 'write into a directory that is not empty (overwrites the files it writes)')
    .addHelpText(
      'after',
      '\nThen: cd <dir> && npm install && npm test && npm run dev' +
        '\n\nExit status: 0 written, 1 a file could not be written, 2 a bad name or a directory' +
        '\nthat is not empty (without --force).',
    )
    .action(async (dir: string, flags: InitFlags) => setExit(await init(io, dir, flags)));
}

async function init(io: Io, dir: string, flags: InitFlags): Promise<number> {
  const target = resolve(dir);
  const name = flags.name ?? basename(target);
  if (!PACKAGE_NAME.test(name)) {
    io.err(
      `weft: ${JSON.stringify(name)} cannot name the project's package: use lower-case letters, digits, '-', '.' and '_', starting with a letter or digit` +
        `${flags.name === undefined ? ' (or give --name)' : ''}\n`,
    );
    return EXIT.invalid;
  }
  let entries: string[];
  try {
    entries = await readdir(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') {
      io.err(`weft: ${dir} is a file, not a directory\n`);
      return EXIT.invalid;
    }
    if (code !== 'ENOENT') throw error;
    entries = [];
  }
  const present = entries.filter((entry) => entry !== '.git');
  if (present.length > 0 && !flags.force) {
    io.err(
      `weft: ${dir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', ...' : ''}); choose an empty directory, or add --force to write into it\n`,
    );
    return EXIT.invalid;
  }
  const files = projectFiles(name, VERSION);
  try {
    for (const [path, content] of Object.entries(files)) {
      const file = join(target, ...path.split('/'));
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
  } catch (error) {
    io.err(`weft: cannot write the project: ${(error as Error).message}\n`);
    return EXIT.failure;
  }
  const shown = relative(process.cwd(), target) || '.';
  io.out(`created a weft project in ${shown}:\n`);
  for (const path of Object.keys(files)) io.out(`  ${path}\n`);
  io.out(
    `\nnext:\n${shown === '.' ? '' : `  cd ${shown}\n`}  npm install\n  npm test       # runs the workflow's fixture\n  npm run dev    # runs workflows/hello.yaml\n`,
  );
  return EXIT.ok;
}
