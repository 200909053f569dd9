/**
 * Child process of the webhook benchmark: the real platform server (`buildServer`: registry,
 * runtime, triggers) on an SQLite store, with one deployed workflow whose signed webhook
 * (hmac-sha256, timestamp and delivery-id replay protection) starts a one-step execution, and a
 * bare route returning a constant on the same Fastify instance (the limit). Each accepted request
 * is answered once its execution's record is durable; the execution then runs in this process,
 * as on a real server. Reports its URL over IPC, and its CPU time (µs) when sent `cpu`.
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer } from '@weft/server';

export const BENCH_SECRET = 'bench-secret';

const server = await buildServer(
  {
    dataDir: mkdtempSync(join(tmpdir(), 'weft-webhook-bench-')),
    port: 0,
    logLevel: 'error',
    runtimeSecrets: { HOOK_SECRET: BENCH_SECRET },
  },
  { logger: false, routes: (app) => app.get('/bare', async () => ({ ok: true })) },
);
await server.triggers!.service.deploy(
  {
    name: 'bench-hook',
    triggers: [
      {
        type: 'webhook',
        path: '/bench',
        auth: { type: 'hmac-sha256', secret_name: 'HOOK_SECRET', header: 'X-Hub-Signature-256' },
        security: { timestampHeader: 'X-Timestamp', replayWindow: 300, maxPayloadSize: 65536 },
      },
    ],
    steps: [{ name: 'noop', type: 'transform', input: { ref: '{{ trigger.payload.ref }}' } }],
  },
  'api',
  null,
);
await server.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = server.app.server.address() as AddressInfo;
process.send?.({ url: `http://127.0.0.1:${port}` });
process.on('message', async (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system });
    return;
  }
  if (message !== 'stop') return;
  await server.close();
  process.exit(0);
});
