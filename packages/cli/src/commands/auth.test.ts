import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const work = mkdtempSync(join(tmpdir(), 'weft-cli-auth-'));
const dataDir = join(work, 'data');
let server: RunningServer;
let admin: string;

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir, logLevel: 'silent' });
  const created = await run(
    'auth',
    'create-key',
    '--name',
    'ops',
    '--admin',
    '--data-dir',
    dataDir,
    '-o',
    'json',
  );
  admin = JSON.parse(created.out).key;
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/** What the server sees for a key (`GET /auth/whoami`). */
async function whoami(key: string) {
  const response = await fetch(`${server.url}/auth/whoami`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return (await response.json()) as { roles: string[]; permissions: string[]; owner: string };
}

describe('weft auth create-key --role --permission', () => {
  it('creates a key with repeated roles and permissions in the local store', async () => {
    const result = await run(
      'auth',
      'create-key',
      '--name',
      'svc',
      '--role',
      'ops',
      '--role',
      'finance',
      '--permission',
      'payments:write',
      '--permission',
      'reports:read',
      '--data-dir',
      dataDir,
      '-o',
      'json',
    );
    expect(result.code, result.err).toBe(0);
    const created = JSON.parse(result.out);
    expect(created).toMatchObject({
      roles: ['finance', 'ops'],
      permissions: ['payments:write', 'reports:read'],
    });
    expect(await whoami(created.key)).toMatchObject({
      owner: 'svc',
      roles: ['finance', 'ops'],
      permissions: ['payments:write', 'reports:read'],
    });
  });

  it('creates one on a server with an admin key, and says what it grants', async () => {
    const result = await run(
      'auth',
      'create-key',
      '--name',
      'bot',
      '--role',
      'deployer',
      '--registry',
      server.url,
      '--api-key',
      admin,
    );
    expect(result.code, result.err).toBe(0);
    expect(result.err).toContain('created key "bot" for owner bot with roles deployer;');
    expect((await whoami(result.out.trim())).roles).toEqual(['deployer']);
  });

  it('refuses a permission not of <resource>:<verb> form with exit 2, locally and over HTTP', async () => {
    const local = await run(
      'auth',
      'create-key',
      '--name',
      'x',
      '--permission',
      'payments',
      '--data-dir',
      dataDir,
    );
    expect(local.code).toBe(2);
    expect(local.err).toContain('permissions[0] "payments" is not a permission');
    const remote = await run(
      'auth',
      'create-key',
      '--name',
      'x',
      '--role',
      'has space',
      '--registry',
      server.url,
      '--api-key',
      admin,
    );
    expect(remote.code).toBe(2);
    expect(remote.err).toContain('VALIDATION');
  });

  it('revokes a key on a server (given the key or its id); the server refuses it at once', async () => {
    const created = await run(
      'auth',
      'create-key',
      '--name',
      'temp',
      '--registry',
      server.url,
      '--api-key',
      admin,
    );
    const key = created.out.trim();
    expect((await whoami(key)).owner).toBe('temp');
    const revoked = await run(
      'auth',
      'revoke-key',
      key,
      '--registry',
      server.url,
      '--api-key',
      admin,
    );
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.out).toMatch(
      new RegExp(`^revoked key ${key.slice(5, 17)} \\("temp", owner temp\\) at \\S+Z\\n$`),
    );
    const refused = await fetch(`${server.url}/auth/whoami`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ details: { reason: 'revoked' } });
    const unknown = await run(
      'auth',
      'revoke-key',
      '000000000000',
      '--registry',
      server.url,
      '--api-key',
      admin,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no API key has the id 000000000000');
  });

  it('revokes a key in the local store', async () => {
    const created = await run(
      'auth',
      'create-key',
      '--name',
      'local-temp',
      '--data-dir',
      dataDir,
      '-o',
      'json',
    );
    const key = JSON.parse(created.out).key as string;
    const id = key.slice(5, 17);
    const revoked = await run('auth', 'revoke-key', id, '--data-dir', dataDir, '-o', 'json');
    expect(revoked.code, revoked.err).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({
      id,
      name: 'local-temp',
      revoked_at: expect.any(String),
    });
    const bad = await run('auth', 'revoke-key', 'not-an-id', '--data-dir', dataDir);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('VALIDATION');
  });

  it('refuses an empty or blank name (an unset $USER) locally, and over HTTP without storing a key', async () => {
    for (const name of ['', '   ']) {
      const local = await run('auth', 'create-key', '--name', name, '--data-dir', dataDir);
      expect(local.code).toBe(2);
      expect(local.err).toContain('--name is empty or blank');
    }
    for (const name of ['   ', '!!']) {
      const response = await fetch(`${server.url}/auth/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { code: string; details: { field: string } };
      expect(body).toMatchObject({ code: 'VALIDATION' });
      expect(['name', 'owner']).toContain(body.details.field);
    }
  });
});
