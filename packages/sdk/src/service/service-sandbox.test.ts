import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { LIMIT_NAMES } from '../sandbox/index.js';
import { createConnectorService, type ConnectorService } from './service.js';

const scratchRoot = mkdtempSync(join(tmpdir(), 'weft-service-sandbox-'));
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

const services: ConnectorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

/** Starts a service of a connector of `kind`, returning the JSON lines its logger wrote. */
async function start(kind: 'shell' | 'function'): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const service = await createConnectorService({
    connector: {
      connector: { kind, name: 'box', namespace: 'demo', version: '1.0.0' },
      actions: [{ name: 'echo', ...(kind === 'shell' ? { command: ['cat'] } : {}) }],
    },
    ...(kind === 'function' ? { handlers: { echo: (input: unknown) => input } } : {}),
    routerUrl: '',
    handleSignals: false,
    logger,
    sandbox: { scratchRoot, cgroupParent: `weft-service-test-${process.pid}` },
  });
  services.push(service);
  return lines;
}

describe('a connector service with a sandbox', () => {
  it('logs at start which limits this host enforces, for a shell connector', async () => {
    const lines = await start('shell');
    const line = lines.find((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('sandbox'));
    expect(line).toBeDefined();
    expect(line!['msg']).toMatch(/^sandbox \(strict\) enforces .*storage/);
    const limits = line!['sandbox'] as Record<string, string>;
    expect(Object.keys(limits).sort()).toEqual([...LIMIT_NAMES].sort());
    expect(limits['storage']).toContain(scratchRoot);
    expect(limits['bandwidth']).toMatch(/^not enforced: /);
  });

  it('opens no sandbox and logs none for a function connector', async () => {
    const lines = await start('function');
    expect(lines.some((l) => String(l['msg']).startsWith('sandbox'))).toBe(false);
  });
});
