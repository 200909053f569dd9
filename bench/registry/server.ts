/**
 * Child process of the registry benchmark: opens the store, seeds it once, serves the registry
 * (plus a bare constant route, the limit) and reports its URL to the parent.
 */
import { createHash } from 'node:crypto';
import { buildServer, SERVER_SQLITE_READERS } from '@weft/server';
import { openStore } from '@weft/store';
import { createApiKey } from '@weft/identity';
import { seededDefinition } from './seed.js';

interface Config {
  kind: 'sqlite' | 'postgres';
  dataDir: string;
  url?: string;
  schema?: string;
  seed: number;
  /** Absent: the server's default. */
  cacheTtlMs?: number;
  /** SQLite reader threads; absent: the server's default. */
  readers?: number;
}

const config = JSON.parse(process.argv[2]!) as Config;
const storeOptions =
  config.kind === 'sqlite'
    ? {
        kind: 'sqlite' as const,
        dataDir: config.dataDir,
        checkpoints: 'background' as const,
        readers: config.readers ?? SERVER_SQLITE_READERS,
      }
    : { kind: 'postgres' as const, url: config.url!, schema: config.schema!, poolSize: 16 };
const opened = await openStore(storeOptions);
const store = opened.registry;
const at = new Date().toISOString();
if (config.seed > 0 && !(await store.getPlugin(seededDefinition(0).slug))) {
  for (let i = 0; i < config.seed; i++) {
    const definition = seededDefinition(i);
    const body = new TextEncoder().encode(JSON.stringify(definition));
    const version = {
      version: '1.0.0',
      kind: 'plugin' as const,
      published_at: at,
      checksum: `sha256:${createHash('sha256').update(body).digest('hex')}`,
      content_type: 'application/json',
      body,
      definition,
      signature_key_id: null,
    };
    const key = definition.slug.replace(/[-_.]/g, '');
    await store.modifyPlugin(definition.slug, key, () => ({
      change: { kind: 'create', owner: 'bench', slug_key: key, at, version },
      result: undefined,
    }));
  }
}
const apiKey = (await createApiKey(store, { name: 'bench' }, at)).key;
const server = await buildServer(
  {
    ...(config.cacheTtlMs !== undefined ? { cacheTtlMs: config.cacheTtlMs } : {}),
    logLevel: 'error',
  },
  { store, logger: false, routes: (app) => app.get('/bare', async () => ({ ok: true })) },
);
await server.app.listen({ host: '127.0.0.1', port: 0 });
const address = server.app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.send?.({ url: `http://127.0.0.1:${port}`, apiKey });
process.on('message', async () => {
  await server.close();
  await store.close();
  process.exit(0);
});
