import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey } from '@weft/identity';
import { InMemorySpanExporter } from '@weft/telemetry/setup';
import { buildServer, type BuiltServer } from './build.js';
import { bearer } from './test-support/harness.js';

let server: BuiltServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server on a fresh data directory whose JSON log lines land in `lines`. */
async function loggingServer(lines: Record<string, unknown>[], traced: boolean) {
  server = await buildServer(
    {
      dataDir: mkdtempSync(join(tmpdir(), 'weft-run-log-')),
      logLevel: 'info',
      logFormat: 'json',
      telemetry: {
        serviceName: 'weft-test',
        ...(traced ? { traces: { exporter: new InMemorySpanExporter(), simple: true } } : {}),
      },
    },
    { logStream: { write: (line) => void lines.push(JSON.parse(line)) } },
  );
  const key = (await createApiKey(server.store, { name: 'acme' }, new Date().toISOString())).key;
  const run = async (steps: object[]) => {
    const answer = await server!.app.inject({
      method: 'POST',
      url: '/workflows/executions',
      headers: { ...bearer(key), prefer: 'wait=10' },
      payload: { workflow: { name: 'greet', steps } },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json<{ execution_id: string }>().execution_id;
  };
  return { run };
}

const of = (lines: Record<string, unknown>[], id: string) =>
  lines.filter((line) => line['execution_id'] === id);

describe('the log lines of executions', () => {
  it('writes one line at the start and one at the end of every execution', async () => {
    const lines: Record<string, unknown>[] = [];
    const { run } = await loggingServer(lines, false);
    const id = await run([{ name: 't', type: 'transform', input: { ok: true } }]);
    const [started, ended, ...more] = of(lines, id);
    expect(more).toEqual([]);
    expect(started).toMatchObject({ level: 30, workflow: 'greet', status: 'running' });
    expect(ended).toMatchObject({ level: 30, workflow: 'greet', status: 'completed' });
    expect(ended!['duration_ms']).toEqual(expect.any(Number));
    expect(started).not.toHaveProperty('trace_id');
  });

  it('carries the trace and span ids of a traced run', async () => {
    const lines: Record<string, unknown>[] = [];
    const { run } = await loggingServer(lines, true);
    const id = await run([{ name: 't', type: 'transform', input: { ok: true } }]);
    const [started, ended] = of(lines, id);
    expect(started!['trace_id']).toMatch(/^[0-9a-f]{32}$/);
    expect(started!['span_id']).toMatch(/^[0-9a-f]{16}$/);
    expect(ended!['trace_id']).toBe(started!['trace_id']);
  });
});
