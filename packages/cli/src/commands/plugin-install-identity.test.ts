import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../test-support.js';

const postgres = readFileSync(
  fileURLToPath(new URL('../../../../examples/plugins/postgres.yaml', import.meta.url)),
);
const checksum = `sha256:${createHash('sha256').update(postgres).digest('hex')}`;

/**
 * A registry that answers for any slug and version with the example postgres definition (its
 * own slug `postgres`, version 0.4.0), with a matching checksum: a mirror or proxy serving the
 * wrong file, which only the definition's own slug and version give away.
 */
let registry: Server;
let url = '';
beforeAll(async () => {
  registry = createServer((request, response) => {
    const [, , slug, version, schema] = (request.url ?? '').split('?')[0]!.split('/');
    const asked = new URL(request.url ?? '', 'http://x').searchParams.get('version');
    if (schema === 'schema') {
      response.writeHead(200, { 'content-type': 'application/yaml' }).end(postgres);
      return;
    }
    const detail = {
      slug,
      version: asked ?? version ?? '0.4.0',
      kind: 'plugin',
      status: 'active',
      owner: 'acme',
      checksum,
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(detail));
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => registry.close(() => resolve())));

const install = (specifier: string, dir: string) =>
  run('plugin', 'install', specifier, '--save', '--plugins-dir', dir, '--registry', url);

describe('weft plugin install checks what it downloaded is what it asked for', () => {
  it('installs the definition whose own slug and version are the ones asked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-install-'));
    const result = await install('postgres@0.4.0', dir);
    expect(result.code, result.err).toBe(0);
    expect(existsSync(join(dir, 'postgres.yaml'))).toBe(true);
  });

  it('refuses a definition whose own slug is another, writing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-install-'));
    const result = await install('mysql', dir);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'the definition downloaded for mysql is postgres: refusing to install it under another name',
    );
    expect(existsSync(join(dir, 'mysql.yaml'))).toBe(false);
    expect(existsSync(join(dir, '.weft'))).toBe(false);
  });

  it('refuses a definition whose own version is not the one asked, writing nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-install-'));
    const result = await install('postgres@9.9.9', dir);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'the definition downloaded for postgres@9.9.9 has version 0.4.0: refusing to install it',
    );
    expect(existsSync(join(dir, 'postgres.yaml'))).toBe(false);
  });

  it.each(['nul', 'con', 'aux', 'prn', 'com1', 'lpt9'])(
    'refuses the Windows device name %s as a slug before asking the registry',
    async (slug) => {
      const dir = mkdtempSync(join(tmpdir(), 'weft-install-'));
      const result = await run(
        'plugin',
        'install',
        slug,
        '--save',
        '--plugins-dir',
        dir,
        '--registry',
        'http://127.0.0.1:9',
      );
      expect(result.code).toBe(2);
      expect(result.err).toContain(`slug "${slug}" is a Windows device name`);
      expect(existsSync(join(dir, `${slug}.yaml`))).toBe(false);
    },
  );
});
