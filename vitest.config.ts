import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  // Tests run in Vite's SSR environment: without this, @weft/* resolve to dist/ (stale builds).
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // Real servers and processes: 5 s is too tight on a loaded 2-core machine (CLI start-up alone
    // took seconds there). A hung test still fails.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Most tests wait on sockets and child processes, not the CPU: three workers on a 2-core
    // machine take the suite from ~14 to ~8 minutes (one worker is Vitest's default there).
    maxWorkers: 3,
    // The AI SDK's eventsource-parser exports TypeScript under `source` too: Vite compiles it
    // (and the AI SDK packages that import it) instead of handing it to Node.
    server: { deps: { inline: ['eventsource-parser', /@ai-sdk\//, /node_modules\/ai\//] } },
  },
});
