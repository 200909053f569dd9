import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** A path from the repository root, whichever directory Vitest runs from (`npm test -w ...`). */
const fromRoot = (path: string) => new URL(path, import.meta.url);

/** The workspace packages, read from disk so a new package gets its aliases without an edit here. */
const packages = readdirSync(fromRoot('packages/')).filter((name) =>
  existsSync(fromRoot(`packages/${name}/package.json`)),
);

/**
 * Every export of a workspace package mapped to its TypeScript source (its `source` condition), so
 * tests never run a stale dist/. An alias and not `resolve.conditions: ['source']`: that condition
 * applied to every dependency, and some (the AI SDK's eventsource-parser) export TypeScript under
 * it too, which Vite then had to compile with everything that imports it.
 */
const sources = packages.flatMap((name) => {
  const manifest = JSON.parse(readFileSync(fromRoot(`packages/${name}/package.json`), 'utf8'));
  return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const source = (target as { source?: string }).source;
    if (!source) return [];
    const specifier = `${manifest.name}${subpath === '.' ? '' : subpath.slice(1)}`;
    return [
      {
        find: new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
        replacement: fromRoot(`packages/${name}/${source}`).pathname,
      },
    ];
  });
});

export default defineConfig({
  resolve: { alias: sources },
  test: {
    // One project for everything: Vitest shares a worker (and the modules it imported) only
    // between files of the same project, so a project per package started ~60 workers that
    // each imported the common packages again (650 s of the workers' CPU time on 2 cores). One
    // package's tests: `npm test -w @weft/engine` (`vitest run packages/engine/`); one folder of
    // `test/`: `npx vitest run test/integration/`.
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/*/**/*.test.ts'],
    // Real servers and processes: 5 s is too tight on a loaded 2-core machine (CLI start-up alone
    // took seconds there). A hung test still fails.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Test files in a worker share its modules instead of importing everything again: import
    // took 626 s of the workers' time against 1,163 s of tests, and the suite 666 s; shared, 163
    // s and 435 s. `test/vitest-setup.ts` puts back what a file may leave behind (see
    // docs/contributing.md).
    isolate: false,
    setupFiles: [fromRoot('test/vitest-setup.ts').pathname],
    // Many tests wait on sockets and child processes: one and a half workers per core (three on
    // a 2-core machine) took the suite from ~14 to ~8 minutes there, where one worker per core
    // is Vitest's default. With three, both cores stay 95-99 % busy for the whole run (vmstat):
    // from here only less work makes the suite faster.
    maxWorkers: Math.max(2, Math.round(availableParallelism() * 1.5)),
  },
});
