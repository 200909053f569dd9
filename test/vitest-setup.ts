import { afterAll, vi } from 'vitest';

// Test files share a worker's module graph (`isolate: false` in vitest.config.ts), so a file
// must not leave process-wide state behind for the next one: fake timers, stubbed environment
// variables and globals are put back when each file ends, even when its own hooks forgot.
afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
