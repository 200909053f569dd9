/**
 * One `weft server` for `telemetry`'s server rows, in a process of its own so that what one case
 * turns on process-wide (the `AsyncLocalStorage` promise hooks, once the context manager's first
 * `context.with` runs) does not weigh on another. Argument: `absent` (no telemetry interceptor),
 * `disabled` (`OTEL_SDK_DISABLED=true`, an endpoint set and ignored) or `traced` (100%, spans to
 * a no-op exporter through the batch processor, telemetry started by the server as `weft server`
 * starts it). Started with `fork`: sends `{ url, key }`, then
 * answers `cpu` with this process's CPU time (µs) and `close` by closing and exiting.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionInvoker } from '@weft/core';
import { buildServer, createLocalKey } from '@weft/server';
import { startTelemetry, telemetryOptionsFromEnv, type Telemetry } from '@weft/telemetry/setup';

const mode = process.argv[2];
const invoker: ActionInvoker = { invoke: async (call) => ({ output: { v: call.input['v'] } }) };
const noopExporter = {
  export: (_spans: unknown[], done: (result: { code: number }) => void) => done({ code: 0 }),
  shutdown: async () => {},
};

let telemetry: Telemetry | undefined;
if (mode === 'disabled') {
  telemetry = startTelemetry(
    telemetryOptionsFromEnv(
      { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      'bench',
    ),
  );
  if (telemetry.tracing) throw new Error('OTEL_SDK_DISABLED=true started a tracer');
} else if (mode !== 'traced' && mode !== 'absent') throw new Error(`unknown mode ${mode}`);
// Traced: the server starts telemetry itself, as `weft server` does (build/telemetry.ts).
const traced = { telemetry: { serviceName: 'bench', traces: { exporter: noopExporter } } };

const dataDir = mkdtempSync(join(tmpdir(), 'weft-bench-telemetry-'));
const server = await buildServer(
  { dataDir, port: 0, logLevel: 'error', ...(mode === 'traced' ? traced : {}) },
  {
    logger: false,
    runtime: {
      actions: { invoker: () => invoker, unavailable: async () => [] },
      ...(mode === 'absent' ? { metrics: undefined as never, tracing: undefined as never } : {}),
    },
    ...(telemetry !== undefined ? { telemetry } : {}),
  },
);
await server.app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
const key = `Bearer ${(await createLocalKey({ dataDir }, { name: 'bench' })).key}`;

process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuUs: user + system });
  } else if (message === 'close') {
    void (async () => {
      await server.close();
      await telemetry?.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    })();
  }
});
process.send!({ url, key });
