import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import Fastify, { type FastifyInstance } from 'fastify';
import { AJV_OPTIONS } from '@weft/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentSecretsProvider, UnauthorizedError, keyPrincipal } from '@weft/core';
import { MemoryDeploymentStore, MemoryTriggerStore } from '@weft/store/memory';
import { RecordingStarter } from '../triggers/test-support.js';
import { createTriggers, type Triggers } from './create-triggers.js';

const KEY = 'Bearer weft_test_key';
const billing = {
  name: 'billing',
  version: '1.2.0',
  steps: [{ name: 't', type: 'transform', input: { ok: true } }],
};
const orders = {
  name: 'orders',
  version: '1.0.0',
  steps: [{ name: 'bill', type: 'workflow', workflow: 'billing', version: '^1.0.0' }],
};
const checksumOf = (definition: object) =>
  `sha256:${createHash('sha256').update(canonicalize(definition)!).digest('hex')}`;

let app: FastifyInstance;
let triggers: Triggers;

beforeEach(async () => {
  triggers = createTriggers({
    start: new RecordingStarter().start,
    authenticate: async (header) => {
      if (header !== KEY) throw new UnauthorizedError('bad key', { reason: 'invalid' });
      return keyPrincipal({ keyId: 'k1', owner: 'acme' });
    },
    triggerStore: new MemoryTriggerStore(),
    deploymentStore: new MemoryDeploymentStore(),
    secrets: new EnvironmentSecretsProvider({}),
  });
  app = Fastify({ ajv: { customOptions: AJV_OPTIONS } });
  await app.register(triggers.plugin);
  await triggers.start();
});
afterEach(async () => {
  await triggers.close();
  await app.close();
});

const put = (body: object, query = '') =>
  app.inject({
    method: 'PUT',
    url: `/workflows/${(body as { name: string }).name}${query}`,
    headers: { authorization: KEY, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const get = (name: string) =>
  app.inject({ method: 'GET', url: `/workflows/${name}`, headers: { authorization: KEY } });

describe('a deployment lock of a subworkflow', () => {
  it('is kept and shown when the deployed subworkflow has the locked version and definition', async () => {
    expect((await put(billing)).statusCode).toBe(201);
    const lock = {
      version: '1.0.0',
      workflows: { 'billing@^1.0.0': { version: '1.2.0', checksum: checksumOf(billing) } },
    };
    expect((await put({ ...orders, lock })).statusCode).toBe(201);
    const detail = (await get('orders')).json();
    expect(detail.lock).toEqual(lock);
    expect(detail.definition).not.toHaveProperty('lock');
    // The text shown as deployed is the definition's, without the lock.
    expect(JSON.parse(detail.source_text)).toEqual(orders);
    // The same definition with the same lock adds no revision; another lock does.
    expect((await put({ ...orders, lock })).json().revision).toBe(1);
    expect((await put(orders)).json().revision).toBe(2);
    expect((await get('orders')).json().lock).toBeNull();
  });

  it('is refused (409, nothing deployed, a dry run too) when the deployed subworkflow changed', async () => {
    const lock = {
      version: '1.0.0',
      workflows: { 'billing@^1.0.0': { version: '1.2.0', checksum: checksumOf(billing) } },
    };
    const changed = { ...billing, steps: [{ name: 't', type: 'transform', input: { ok: false } }] };
    expect((await put(changed)).statusCode).toBe(201);
    for (const query of ['?dry_run=true', '']) {
      const refused = await put({ ...orders, lock }, query);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'CONFLICT',
        details: {
          constraint: 'lock_mismatch',
          mismatches: [
            {
              kind: 'workflow',
              reference: 'billing@^1.0.0',
              locked_version: '1.2.0',
              locked_checksum: checksumOf(billing),
              found_version: '1.2.0',
              found_checksum: checksumOf(changed),
              reason: 'mismatch',
            },
          ],
        },
      });
    }
    expect((await get('orders')).statusCode).toBe(404);
  });

  it('refuses a locked plugin when the server has no registry to check it against', async () => {
    const lock = {
      version: '1.0.0',
      plugins: { slack: { version: '1.0.0', checksum: `sha256:${'0'.repeat(64)}` } },
    };
    const refused = await put({ ...orders, lock });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().details.mismatches[0]).toMatchObject({ reason: 'not_in_registry' });
  });
});
