/**
 * Child process of the identity benchmark: the real platform server (`buildServer`) on an SQLite
 * store, accepting tokens of the test identity provider whose address comes in
 * `WEFT_BENCH_ISSUER`, with a bare route (no authentication) on the same Fastify instance. Reports
 * its URL and an API key of its store over IPC.
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '@weft/identity';
import { buildServer } from '@weft/server';

const server = await buildServer(
  {
    dataDir: mkdtempSync(join(tmpdir(), 'weft-identity-bench-')),
    port: 0,
    logLevel: 'error',
    identity: { oidc: { issuer: process.env['WEFT_BENCH_ISSUER']!, audience: 'weft' } },
  },
  { logger: false, routes: (app) => app.get('/bare', async () => ({ ok: true })) },
);
await server.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = server.app.server.address() as AddressInfo;
const { key } = await createApiKey(server.store, { name: 'bench' }, new Date().toISOString());
process.send?.({ url: `http://127.0.0.1:${port}`, key });
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await server.close();
  process.exit(0);
});
