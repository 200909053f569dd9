import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInline, stop, waitUntil, type Child } from '../faults/support.js';
import { startOtlpCollector, type OtlpCollector, type ReceivedSpan } from './otlp-collector.js';
import { bearer, kill, startServerProcess, type ServerProcess } from './runtime-support.js';

/**
 * One trace across processes (issue: traces end to end): a request carrying `traceparent` starts
 * a run on a `weft server` process (OTLP http/json); its action goes through the router to a
 * connector service process (OTLP http/protobuf) whose handler makes a span of its own; with
 * WEFT_TEST_NATS_URL a second step goes as a broker task over NATS to a broker-served plugin.
 * A collector on loopback receives both exports; every span must be in the caller's trace, each
 * under the right parent.
 */
const NATS_URL = process.env['WEFT_TEST_NATS_URL'];
const SECRET = 'tr4ce-secret-never-exported';

const SERVICE = `
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { connectBroker } from '@weft/broker';
import { createConnectorService } from '@weft/sdk/service';
import { startTelemetry } from '@weft/telemetry/setup';

// The plugin author's process: its own OpenTelemetry SDK, exporting protobuf.
startTelemetry({
  serviceName: 'plugin-service',
  traces: { url: process.env.COLLECTOR + '/v1/traces', protocol: 'http/protobuf', simple: true },
});
const ownSpan = (name) => trace.getTracer('plugin-code').startActiveSpan(name, (span) => {
  span.setAttribute('plugin.note', 'mine');
  span.end();
});
const quiet = { handleSignals: false, logger: pino({ level: 'silent' }), routerUrl: process.env.ROUTER };
await createConnectorService({
  ...quiet,
  connector: {
    connector: { kind: 'function', name: 'lookup', namespace: 't', version: '1.0.0' },
    actions: [{ name: 'find' }],
  },
  handlers: { find: async (input) => (ownSpan('lookup.query'), { found: String(input.q).length }) },
});
if (process.env.BROKER) {
  await createConnectorService({
    ...quiet,
    connector: {
      connector: { kind: 'function', name: 'ledger', namespace: 't', version: '1.0.0' },
      actions: [{ name: 'write' }],
    },
    handlers: { write: async (input) => (ownSpan('ledger.append'), { v: input.v + 1 }) },
    broker: await connectBroker(process.env.BROKER),
  });
}
console.log('listening on services');
`;

const flow = (broker: boolean) => `workflows:
  - name: traced
    version: 2.1.0
    inputs: { token: { type: string } }
    steps:
      - { name: look, plugin: lookup, action: find, input: { q: '{{ inputs.token }}' } }
${broker ? "      - { name: book, plugin: ledger, action: write, input: { v: '{{ steps.look.output.found }}' } }\n" : ''}`;

describe('one trace across weft server, router, connector service and broker', () => {
  let collector: OtlpCollector;
  let server: ServerProcess;
  let service: Child | undefined;
  let dataDir: string;
  const namespace = `trace${Date.now().toString(36)}`;
  const broker = NATS_URL ? `${NATS_URL}?namespace=${namespace}` : undefined;

  beforeAll(async () => {
    collector = await startOtlpCollector();
    dataDir = mkdtempSync(join(tmpdir(), 'weft-tracing-'));
    server = await startServerProcess(dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'weft-server-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // The completion callback goes to the collector's address (loopback).
      WEFT_EGRESS_ALLOWLIST: '127.0.0.0/8',
      ...(broker ? { WEFT_BROKER: broker } : {}),
    });
    service = await startInline('connector services', SERVICE, {
      COLLECTOR: collector.url,
      ROUTER: server.url,
      ...(broker ? { BROKER: broker } : {}),
    });
  }, 60_000);

  afterAll(async () => {
    if (service) await stop(service.child);
    if (server) await kill(server);
    await collector?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts the run, its steps, the action calls and the services’ spans in the caller’s trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const response = await fetch(`${server.url}/workflows/executions`, {
      method: 'POST',
      headers: {
        authorization: await bearer(dataDir),
        'content-type': 'application/json',
        prefer: 'wait=20',
        traceparent: `00-${traceId}-${callerSpan}-01`,
      },
      body: JSON.stringify({
        workflow: flow(broker !== undefined),
        inputs: { token: SECRET },
        callback_url: `${collector.url}/callback`,
      }),
    });
    const record = (await response.json()) as { status: string; execution_id: string };
    expect(record.status).toBe('completed');

    const expected = [
      'workflow traced',
      'step look',
      'action lookup.find',
      'execute lookup.find',
      'lookup.query',
    ];
    if (broker)
      expected.push('step book', 'action ledger.write', 'execute ledger.write', 'ledger.append');
    const named = (name: string) => collector.spans.find((s) => s.name === name);
    await waitUntil(
      () => expected.every((name) => named(name)),
      15_000,
      `spans ${expected.join(', ')}`,
    );

    const spans = expected.map((name) => named(name)!);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
    const parentOf = (span: ReceivedSpan) =>
      collector.spans.find((s) => s.spanId === span.parentSpanId)?.name ?? span.parentSpanId;

    const run = named('workflow traced')!;
    expect(run.parentSpanId).toBe(callerSpan);
    expect(run.service).toBe('weft-server-under-test');
    expect(run.encoding).toBe('application/json');
    expect(run.attributes).toMatchObject({
      'weft.execution_id': record.execution_id,
      'weft.workflow': 'traced',
      'weft.workflow.version': '2.1.0',
      'weft.execution_mode': 'cloud',
    });
    expect(parentOf(named('step look')!)).toBe('workflow traced');
    const action = named('action lookup.find')!;
    expect(parentOf(action)).toBe('step look');
    expect(action.kind).toBe(3); // CLIENT
    expect(action.attributes).toMatchObject({ 'weft.plugin': 'lookup', 'weft.action': 'find' });
    // The connector service, another process exporting protobuf, continues the action's span.
    const served = named('execute lookup.find')!;
    expect(served).toMatchObject({
      service: 'plugin-service',
      kind: 2,
      encoding: 'application/x-protobuf',
    });
    expect(served.parentSpanId).toBe(action.spanId);
    expect(parentOf(named('lookup.query')!)).toBe('execute lookup.find');

    if (broker) {
      expect(parentOf(named('step book')!)).toBe('workflow traced');
      const task = named('action ledger.write')!;
      expect(parentOf(task)).toBe('step book');
      const consumed = named('execute ledger.write')!;
      expect(consumed).toMatchObject({ service: 'plugin-service', kind: 5 }); // CONSUMER
      expect(consumed.parentSpanId).toBe(task.spanId);
      expect(parentOf(named('ledger.append')!)).toBe('execute ledger.write');
    }
    // The completion callback carries the run's trace context.
    await waitUntil(() => collector.others.some((r) => r.path === '/callback'), 15_000, 'callback');
    const callback = collector.others.find((r) => r.path === '/callback')!;
    expect(callback.headers['traceparent']).toBe(`00-${traceId}-${run.spanId}-01`);
    // Inputs are never exported: the secret input is nowhere in any span.
    expect(JSON.stringify(collector.spans)).not.toContain(SECRET);
  }, 60_000);
});
