import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Weft } from '@weft/sdk';
import { call, root, startInventory, startServer } from './router-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-mtls-'));
const file = (name: string) => join(dir, name);

/** A CA, a server certificate for 127.0.0.1 and client certificates, made with openssl now. */
function makeCertificates(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) =>
    openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    );
  const ca = (name: string) =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    );
  const sign = (name: string, by: string, extensions: string) => {
    writeFileSync(file(`${name}.ext`), extensions);
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${by}.pem`,
      '-CAkey',
      `${by}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    );
  };
  ca('ca');
  ca('rogue-ca');
  key('server');
  sign('server', 'ca', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  key('client');
  sign('client', 'ca', 'extendedKeyUsage=clientAuth\n');
  key('rogue');
  sign('rogue', 'rogue-ca', 'extendedKeyUsage=clientAuth\n');
}

let server: Awaited<ReturnType<typeof startServer>>;
let service: Awaited<ReturnType<typeof startInventory>> | undefined;
const agents: Agent[] = [];
const agent = (client?: 'client' | 'rogue') => {
  const made = new Agent({
    connect: {
      ca: readFileSync(file('ca.pem')),
      ...(client
        ? { cert: readFileSync(file(`${client}.pem`)), key: readFileSync(file(`${client}.key`)) }
        : {}),
    },
  });
  agents.push(made);
  return made;
};
const record = {
  plugin_slug: 'inventory',
  version: '1.0.0',
  url: 'http://127.0.0.1:9',
  actions: ['reserve'],
};

beforeAll(async () => {
  makeCertificates();
  server = await startServer(
    [
      '--data-dir',
      file('data'),
      '--tls-cert',
      file('server.pem'),
      '--tls-key',
      file('server.key'),
      '--tls-client-ca',
      file('ca.pem'),
    ],
    { WEFT_HEALTH_INTERVAL_MS: '500' },
  );
}, 60_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await server?.stop('SIGKILL');
  for (const a of agents) await a.close();
});

describe('router behind mutual TLS', () => {
  it('serves HTTPS and keeps health readable without a client certificate', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(
      (await call('GET', `${server.url}/healthz`, undefined, { dispatcher: agent() })).status,
    ).toBe(200);
  });

  it('refuses registration without a client certificate, or with one from another CA', async () => {
    const none = await call('POST', `${server.url}/register`, record, { dispatcher: agent() });
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({
      status: 'error',
      code: 'UNAUTHORIZED',
      details: { scheme: 'mtls' },
    });
    const rogue = await call('POST', `${server.url}/register`, record, {
      dispatcher: agent('rogue'),
    });
    expect(rogue.status).toBe(401);
    const call1 = await call(
      'POST',
      `${server.url}/execute`,
      { action: 'inventory.reserve', input: {} },
      { dispatcher: agent() },
    );
    expect(call1.status).toBe(401);
    const table = await call('GET', `${server.url}/routes`, undefined, {
      dispatcher: agent('client'),
    });
    expect(table).toMatchObject({ status: 200, json: { instances: [] } });
  });

  it('accepts a connector service that presents its client certificate, and routes calls from an SDK that does', async () => {
    service = await startInventory(server.url, 'inv-tls', {
      WEFT_CLIENT_CERT: file('client.pem'),
      WEFT_CLIENT_KEY: file('client.key'),
      WEFT_ROUTER_CA: file('ca.pem'),
    });
    const table = await call('GET', `${server.url}/routes`, undefined, {
      dispatcher: agent('client'),
    });
    expect(
      (table.json['instances'] as { instance_id: string }[]).map((i) => i.instance_id),
    ).toEqual(['inv-tls']);
    const weft = new Weft({
      executionMode: 'self_hosted',
      routerUrl: server.url,
      routerTls: {
        cert: readFileSync(file('client.pem')),
        key: readFileSync(file('client.key')),
        ca: readFileSync(file('ca.pem')),
      },
      logLevel: 'silent',
    });
    await weft.loadWorkflows(join(root, 'examples/connector-service/workflow.yaml'));
    const result = await weft.execute('reserve-order', {
      order_id: 'T-1',
      sku: 'WIDGET-1',
      quantity: 1,
    });
    expect(result.status, JSON.stringify(result.steps)).toBe('completed');
    await weft.close();
  }, 30_000);
});
