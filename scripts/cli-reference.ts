/**
 * Writes docs/cli.md, the command-line reference, from the command definitions of packages/cli
 * (every command, its description, arguments and options with their defaults). Run with
 * `npm run cli-docs` after changing a command; a test fails while docs/cli.md differs.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { cliReference } from '@weft/cli';

const target = fileURLToPath(new URL('../docs/cli.md', import.meta.url));
const text = await format(await cliReference(), {
  ...(await resolveConfig(target)),
  parser: 'markdown',
});
writeFileSync(target, text);
console.log(`wrote ${target}`);
