import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { RouterInvoker } from '@weft/sdk';
import { WeftClient, type ExecutionEvent } from '@weft/sdk/client';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import type { ExecutionContext } from '@weft/core';
import { buildServer } from './build.js';

/**
 * A handler's `context.progress` in a connector service reached through the router becomes the
 * run's `step.progress` events, as they happen, over real HTTP on loopback: runtime → router →
 * connector service.
 */
const workflow = (action: string) => ({
  name: 'reports',
  steps: [{ name: 'work', plugin: 'reporter', action, input: {} }],
});

describe('progress of a connector service reached through the router', () => {
  let dataDir: string;
  let server: Awaited<ReturnType<typeof buildServer>>;
  let service: ConnectorService;
  let client: WeftClient;
  let routerUrl: string;
  let apiKey: string;
  let release: () => void = () => {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'weft-server-progress-'));
    server = await buildServer({ dataDir, logLevel: 'silent', port: 0 }, { logger: false });
    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const key = await createApiKey(server.store, { name: 'acme' }, new Date().toISOString());
    client = new WeftClient({ baseUrl: url, apiKey: key.key });
    routerUrl = url;
    apiKey = key.key;
    service = await createConnectorService({
      connector: {
        connector: { kind: 'function', name: 'reporter', namespace: 'test', version: '1.0.0' },
        actions: [{ name: 'steps' }, { name: 'fails' }, { name: 'quick' }],
      },
      handlers: {
        steps: async (_input: unknown, context: ExecutionContext) => {
          context.progress(25, 'a quarter');
          await new Promise<void>((resolve) => (release = resolve));
          context.progress(100, 'done');
          return { ok: true };
        },
        quick: (_input: unknown, context: ExecutionContext) => {
          context.progress(10, 'begun');
          context.progress(90, 'nearly');
          return { ok: true };
        },
        fails: (_input: unknown, context: ExecutionContext) => {
          context.progress(50, 'half way');
          throw new Error('fails after its progress');
        },
      },
      routerUrl: url,
      handleSignals: false,
      reregisterMs: 0,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    release();
    await service?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const progressOf = (events: ExecutionEvent[]) =>
    events.filter((e) => e.type === 'step.progress').map((e) => [e.step_name, e.data]);

  it('records step.progress events while the step runs, then its output', async () => {
    const started = await client.startExecution({ workflow: workflow('steps'), inputs: {} });
    const seen: ExecutionEvent[] = [];
    for await (const event of client.streamEvents(started.execution_id)) {
      seen.push(event);
      if (event.type === 'step.progress' && event.data['percent'] === 25) {
        // Live: the first report arrives while the handler still runs.
        expect((await client.getExecution(started.execution_id)).status).toBe('running');
        release();
      }
    }
    expect(progressOf(seen)).toEqual([
      ['work', { percent: 25, message: 'a quarter' }],
      ['work', { percent: 100, message: 'done' }],
    ]);
    const ended = await client.getExecution(started.execution_id);
    expect(ended.status).toBe('completed');
    expect(ended.result?.steps['work']).toMatchObject({ status: 'success', output: { ok: true } });
  });

  it('keeps the error of a handler that fails after reporting progress', async () => {
    const started = await client.startExecution({ workflow: workflow('fails'), inputs: {} });
    const seen: ExecutionEvent[] = [];
    for await (const event of client.streamEvents(started.execution_id)) seen.push(event);
    expect(progressOf(seen)).toEqual([['work', { percent: 50, message: 'half way' }]]);
    const ended = await client.getExecution(started.execution_id);
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatchObject({ code: 'BACKEND_ERROR' });
    expect(JSON.stringify(ended.error)).toContain('fails after its progress');
  });

  it("gives a self_hosted run's RouterInvoker (the router over HTTP) the progress too", async () => {
    const reports: [number, string | undefined][] = [];
    const invoker = new RouterInvoker({ routerUrl, credential: apiKey });
    const signal = new AbortController().signal;
    const context: ExecutionContext = {
      workflowId: 'run-1',
      stepName: 'work',
      inputs: {},
      executionMode: 'self_hosted',
      environment: {},
      secrets: {},
      previousSteps: {},
      signal,
      aborted: false,
      idempotencyKey: 'run-1/work',
      progress: (percent, message) => reports.push([percent, message]),
    };
    const call = (action: string, key: string) =>
      invoker.invoke({
        target: { kind: 'plugin', slug: 'reporter' },
        action,
        input: {},
        context: { ...context, idempotencyKey: key },
      });
    try {
      expect((await call('quick', 'run-1/quick')).output).toEqual({ ok: true });
      expect(reports).toEqual([
        [10, 'begun'],
        [90, 'nearly'],
      ]);
      await expect(call('fails', 'run-1/fails')).rejects.toMatchObject({ code: 'BACKEND_ERROR' });
      expect(reports.at(-1)).toEqual([50, 'half way']);
    } finally {
      await invoker.close();
    }
  });
});
