import { env as processEnv } from 'node:process';
import { afterAll, vi } from 'vitest';

// Test files share a worker's module graph (`isolate: false` in vitest.config.ts), so a file
// must not leave process-wide state behind for the next one: fake timers, stubbed environment
// variables and globals are put back when each file ends, even when its own hooks forgot.
afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  // `process.env = { ...copy }` breaks `vi.stubEnv` for every later file of the worker: Vitest
  // sets stubs on the current `process.env` but deletes them from the original object, so a
  // stubbed variable outlives its `vi.unstubAllEnvs()`. Put the original back and fail the file.
  if (process.env !== processEnv) {
    process.env = processEnv;
    throw new Error(
      'this test file replaced process.env: change single variables with vi.stubEnv instead',
    );
  }
});

// PostgreSQL tests of a file reuse the schemas its earlier tests gave back, emptied, and the file
// drops them when it ends (takeTestSchema in @weft/store, which shares this object through
// globalThis: importing the package here would evaluate it again for every test file).
const reuse = ((globalThis as { [key: symbol]: { dropReleased?: () => Promise<void> } })[
  Symbol.for('weft.test-schema-reuse')
] ??= {});
afterAll(() => reuse.dropReleased?.());
