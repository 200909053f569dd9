/**
 * Child process of the webhook benchmark: a Fastify server with the trigger routes on an SQLite
 * store, one deployed workflow with a signed webhook (hmac-sha256, timestamp and delivery-id
 * replay protection), and a bare route returning a constant (the limit). Reports its URL over IPC.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { EnvironmentSecretsProvider } from '@weft/core';
import { openStore } from '@weft/store';
import { createTriggers } from '../../packages/runtime/src/deployments/index.js';
import { durableStart } from './durable-start.js';

export const BENCH_SECRET = 'bench-secret';

const dataDir = mkdtempSync(join(tmpdir(), 'weft-webhook-bench-'));
const opened = await openStore({ kind: 'sqlite', dataDir });
const durable = durableStart(dataDir);
const triggers = createTriggers({
  start: durable.start,
  authenticate: async () => ({ keyId: 'bench', owner: 'bench' }),
  triggerStore: opened.triggers,
  deploymentStore: opened.deployments,
  secrets: new EnvironmentSecretsProvider({ HOOK_SECRET: BENCH_SECRET }),
});
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ ok: true }));
await app.register(triggers.plugin);
await triggers.start();
await triggers.service.deploy(
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
    steps: [{ name: 'noop', type: 'transform', input: { ok: true } }],
  },
  'api',
  null,
);
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
process.send?.({ url: `http://127.0.0.1:${port}` });
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await triggers.close();
  await app.close();
  durable.close();
  await opened.registry.close();
  process.exit(0);
});
