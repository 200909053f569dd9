import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionContext } from '@weft/core';
import { CloudInvoker, HttpApi } from '@weft/sdk';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { startServer, type RunningServer } from '../start.js';
import { createLocalKey } from '../local-keys.js';

/**
 * A step's runtime crosses `POST /actions/execute` (the cloud steps of hybrid runs), the router
 * and the connector service: the service applies its `resources.timeout` instead of the
 * connector's 120 s.
 */
describe('runtime of a cloud action call', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'weft-runtime-forwarding-'));
  let server: RunningServer;
  let holder: ConnectorService;
  let cloud: CloudInvoker;

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir, logLevel: 'error' }, { logger: false });
    holder = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'holder', namespace: 't', version: '1.0.0' },
        actions: [{ name: 'hold' }],
      },
      handlers: {
        hold: (_input: object, context: { signal: AbortSignal }) =>
          new Promise((_resolve, reject) =>
            context.signal.addEventListener('abort', () => reject(new Error('aborted'))),
          ),
      },
      routerUrl: server.url,
      instanceId: 'holder-1',
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });
    const { key } = await createLocalKey({ dataDir }, { name: 't' });
    cloud = new CloudInvoker(new HttpApi({ baseUrl: server.url, apiKey: key }));
  }, 20_000);

  afterAll(async () => {
    await holder?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let calls = 0;
  const context = (): ExecutionContext => {
    const id = `exec-${++calls}`;
    return {
      aborted: false,
      workflowId: id,
      stepName: 'hold',
      inputs: {},
      executionMode: 'hybrid',
      environment: {},
      secrets: {},
      previousSteps: {},
      signal: new AbortController().signal,
      idempotencyKey: `${id}/hold`,
      progress: () => undefined,
    };
  };
  const hold = (runtime: object) =>
    cloud.invoke({
      target: { kind: 'plugin', slug: 'holder' },
      action: 'hold',
      input: {},
      context: context(),
      runtime,
    });

  it("ends the action at the step's runtime timeout, applied by the connector service", async () => {
    await expect(hold({ resources: { timeout: 1 } })).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/holder\.hold did not finish within 1000 ms/),
    });
  });

  it('refuses a runtime over the limits with VALIDATION naming the field', async () => {
    await expect(hold({ resources: { cpu: '8' } })).rejects.toMatchObject({
      code: 'VALIDATION',
      details: { field: 'runtime.resources.cpu', constraint: 'limit' },
    });
  });
});
