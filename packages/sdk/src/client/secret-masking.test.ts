import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { StreamEvent } from '@weft/core';
import type { ReadableSpan } from '@weft/telemetry/setup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Weft } from './weft.js';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-sdk-secrets-')), 'flow.yaml');
  writeFileSync(path, text);
  return path;
}

function lines(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) }),
    text: () => text,
  };
}

/** A span exporter keeping what it is given (an OpenTelemetry `SpanExporter`). */
function collecting() {
  const spans: ReadableSpan[] = [];
  return {
    spans,
    export(batch: ReadableSpan[], done: (result: { code: number }) => void) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

const PASSWORD = 's3cr3t-pass-123';
const DBCRED = JSON.stringify({ user: 'svc', password: PASSWORD });

describe('a local run through the SDK', () => {
  it('masks the fields of a JSON secret a handler returns, in results, events and logs', async () => {
    const log = lines();
    const weft = new Weft({
      logDestination: log.stream,
      logLevel: 'debug',
      environment: { DBCRED },
      inheritEnvironment: false,
    });
    weft.registerHandler('db.connect', (input: Record<string, unknown>) => {
      const parsed = JSON.parse(String(input['cred'])) as Record<string, string>;
      return { user: parsed['user'], password: parsed['password'] };
    });
    await weft.loadWorkflows(
      file(`workflows:
  - name: connect
    steps:
      - { name: open, plugin: db, action: connect, input: { cred: '{{ secrets.DBCRED }}' } }
      - { name: show, type: transform, input: { said: 'password is {{ steps.open.output.password }}' } }
    outputs:
      user: { value: '{{ steps.open.output.user }}' }
`),
    );
    const events: StreamEvent[] = [];
    const result = await weft.execute('connect', {}, { onEvent: (e) => events.push(e) });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ user: 'svc' });
    expect(result.steps['open']!.output).toEqual({ user: 'svc', password: '***' });
    expect(JSON.stringify([result, events])).not.toContain(PASSWORD);
    expect(log.text()).toContain('step show');
    expect(log.text()).not.toContain(PASSWORD);
  });
});

describe("an http connector's declared environment", () => {
  const TOKEN = 'tok-connector-credential-42';
  let server: Server;
  let base = '';
  beforeAll(async () => {
    // Echoes the Authorization header: as a JSON answer, or in a 50 KB error body.
    server = createServer((req, res) => {
      const auth = req.headers['authorization'] ?? '';
      if (req.url === '/fail') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`upstream failed for ${auth}\n${'x'.repeat(50_000)}\n${auth}`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ seen: auth }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function weftWith(log: Writable, exporter?: ReturnType<typeof collecting>): Weft {
    const weft = new Weft({
      ...(exporter ? { observability: { enabled: true, exporter } } : {}),
      logDestination: log,
      logLevel: 'debug',
      environment: { SERVICE_TOKEN: TOKEN, SERVICE_URL: base },
      inheritEnvironment: false,
    });
    weft.registerConnector({
      connector: { kind: 'http', name: 'svc', namespace: 'acme', version: '1.0.0', base_url: base },
      environment: [
        { name: 'SERVICE_TOKEN', description: 'API token', required: true },
        { name: 'SERVICE_URL', description: 'where it runs', required: false, secret: false },
      ],
      actions: [
        {
          name: 'echo',
          request: { url: '/echo', headers: { authorization: 'Bearer {{ env.SERVICE_TOKEN }}' } },
        },
        {
          name: 'fail',
          request: { url: '/fail', headers: { authorization: 'Bearer {{ env.SERVICE_TOKEN }}' } },
        },
      ],
    });
    return weft;
  }

  it('masks a credential the service echoes, in outputs, records, events and logs', async () => {
    const log = lines();
    const exporter = collecting();
    const weft = weftWith(log.stream, exporter);
    await weft.loadWorkflows(
      file(`workflows:
  - name: echo
    steps:
      - { name: call, plugin: svc, action: echo }
    outputs:
      seen: { value: '{{ steps.call.output.seen }}' }
      url: { value: '{{ env.SERVICE_URL }}' }
`),
    );
    const events: StreamEvent[] = [];
    const result = await weft.execute('echo', {}, { onEvent: (e) => events.push(e) });
    expect(result.status).toBe('completed');
    // The declared `secret: false` setting is not masked.
    expect(result.outputs).toEqual({ seen: 'Bearer ***', url: base });
    expect(JSON.stringify([result, events]) + log.text()).not.toContain(TOKEN);
    await weft.close();
    const spans = exporter.spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events,
      status: s.status,
    }));
    expect(spans.map((s) => s.name)).toContain('action svc.echo');
    expect(JSON.stringify(spans)).not.toContain(TOKEN);
  });

  it('cuts a 50 KB error body to 1,024 characters, masked', async () => {
    const log = lines();
    const weft = weftWith(log.stream);
    await weft.loadWorkflows(
      file(`workflows:
  - name: fail
    steps:
      - { name: call, plugin: svc, action: fail }
`),
    );
    const events: StreamEvent[] = [];
    const result = await weft.execute('fail', {}, { onEvent: (e) => events.push(e) });
    expect(result.status).toBe('failed');
    const error = result.steps['call']!.error!;
    expect(error.code).toBe('BACKEND_ERROR');
    expect(error.message).toContain('upstream failed for Bearer ***');
    expect(error.message.length).toBeLessThanOrEqual(1024);
    expect(error.message).toMatch(/… \(\d+ more characters\)$/);
    const original = String(error.details['original_error']);
    expect(original.length).toBeLessThanOrEqual(1024);
    expect(result.error!.message.length).toBeLessThanOrEqual(1024);
    const all = JSON.stringify([result, events]) + log.text();
    expect(all).not.toContain(TOKEN);
    expect(all.length).toBeLessThan(20_000);
  });
});
