/**
 * Runs every `bench/*.bench.ts` module's exported `run()` in turn (`npm run bench`), or only the
 * suites whose file names contain one of the command-line arguments.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BenchModule {
  run?: () => unknown;
}

const directory = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (files.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}`);
  process.exitCode = 1;
}
for (const file of files) {
  const module = (await import(pathToFileURL(join(directory, file)).href)) as BenchModule;
  if (typeof module.run !== 'function') throw new Error(`${file} does not export run()`);
  await module.run();
}
