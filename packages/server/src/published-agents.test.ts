import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '@weft/agents/testing';
import { createApiKey } from '@weft/identity';
import { dropTestSchema, type OpenedStore, openStore, testSchemaName } from '@weft/store';
import { buildServer, type BuiltServer } from './build.js';
import { bearer } from './test-support/harness.js';

const url = process.env['WEFT_TEST_DATABASE_URL'];

describe.skipIf(!url)(
  'published agents across replicas sharing PostgreSQL (set WEFT_TEST_DATABASE_URL to run)',
  () => {
    const schema = testSchemaName();
    const opened: OpenedStore[] = [];
    const servers: BuiltServer[] = [];
    let model: ScriptedModelServer;

    beforeAll(async () => {
      model = await new ScriptedModelServer(() => ({
        text: 'hello from a published agent',
        usage: { prompt_tokens: 5, completion_tokens: 4 },
      })).start();
    });

    afterAll(async () => {
      for (const server of servers.splice(0)) await server.close();
      for (const store of opened.splice(0)) {
        await store.executions.close();
        await store.registry.close();
      }
      await model.close();
      await dropTestSchema(url!, schema);
    });

    /** A replica with its own connections, runtime and agent catalog. */
    const replica = async () => {
      const store = await openStore({ kind: 'postgres', url: url!, schema, poolSize: 2 });
      opened.push(store);
      const server = await buildServer(
        {
          logLevel: 'silent',
          egressAllowlist: ['127.0.0.0/8'],
          agentsDir: mkdtempSync(join(tmpdir(), 'weft-no-agents-')),
          runtimeSecrets: { MODEL_KEY: 'sk-replica' },
          publishedAgentSecrets: ['MODEL_KEY'],
        },
        { store: store.registry, executionsStore: store.executions, logger: false },
      );
      servers.push(server);
      return { store: store.registry, app: server.app };
    };

    it('runs an agent another replica published, once its announcement arrives', async () => {
      const a = await replica();
      const b = await replica();
      const key = (await createApiKey(a.store, { name: 'acme' }, new Date().toISOString())).key;
      const agent = `agent:\n  namespace: acme\n  name: greeter\n  version: 1.0.0\n  model: openai-compatible:scripted\n  base_url: ${model.url}\n  api_key_secret: MODEL_KEY\n`;
      const published = await a.app.inject({
        method: 'POST',
        url: '/plugins',
        headers: { ...bearer(key), 'content-type': 'application/yaml' },
        payload: agent,
      });
      expect(published.statusCode, published.body).toBe(201);
      const workflow = {
        name: 'greet',
        steps: [
          { name: 'g', type: 'agent', agent: 'agent:acme/greeter@^1', input: { prompt: 'Hi' } },
        ],
      };
      const run = () =>
        b.app.inject({
          method: 'POST',
          url: '/workflows/executions',
          headers: { ...bearer(key), 'content-type': 'application/json', prefer: 'wait=20' },
          payload: JSON.stringify({ workflow }),
        });
      // The announcement is asynchronous: before it, B refuses the unknown agent (a 400, or a
      // run failed with VALIDATION before any step, depending on where it is checked first).
      const unknown = (body: string) => body.includes('unknown agent');
      const deadline = Date.now() + 10_000;
      let answer = await run();
      while (unknown(answer.body) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await run();
      }
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json(), answer.body).toMatchObject({
        status: 'completed',
        result: { steps: { g: { output: { text: 'hello from a published agent' } } } },
      });
    }, 60_000);
  },
);
