import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const work = mkdtempSync(join(tmpdir(), 'weft-cli-publish-'));
let server: RunningServer;
let key: string;
const registry = () => ['--registry', server.url, '--api-key', key];

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: join(work, 'data'), logLevel: 'silent' });
  const created = await run(
    'auth',
    'create-key',
    '--name',
    'Acme Corp',
    '--owner',
    'acme',
    '--data-dir',
    join(work, 'data'),
    '--output',
    'json',
  );
  key = JSON.parse(created.out).key;
});
afterAll(async () => server.close());

/** A plugin definition file of `tools` at `version` with `actions` (JSON). */
function writeTools(version: string, actions: object[]): string {
  const file = join(work, `tools-${version}-${actions.length}.json`);
  const definition = {
    slug: 'tools',
    version,
    name: 'Tools',
    description: 'Tools for tests.',
    author: 'Acme Corp',
    homepage: 'https://example.com/tools',
    repository: 'https://github.com/acme/tools',
    license: 'MIT',
    tags: ['test'],
    icon: 'https://example.com/tools.svg',
    actions,
  };
  writeFileSync(file, JSON.stringify(definition));
  return file;
}

const get = (properties: object, required: string[] = []) => ({
  name: 'get',
  description: 'Gets one',
  input_schema: { type: 'object', properties, required },
  output_schema: { type: 'object', properties: { total: { type: 'integer' } } },
});

describe('weft plugin publish --update --dry-run', () => {
  it('prints the changes against the published version, breaking or not', async () => {
    const first = writeTools('1.3.0', [get({ id: { type: 'string' } })]);
    expect((await run('plugin', 'publish', first, ...registry())).code).toBe(0);

    const compatible = writeTools('1.4.0', [
      get({ id: { type: 'string' }, team: { type: 'string' } }),
      { name: 'list', description: 'Lists' },
    ]);
    const dry = await run('plugin', 'publish', compatible, '--update', '--dry-run', ...registry());
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('tools@1.4.0 would be updated (previous 1.3.0)');
    expect(dry.out).toContain(
      [
        '  changes against 1.3.0 (none breaking):',
        '    + get: input.properties.team added',
        '    + action list added',
      ].join('\n'),
    );

    const breaking = writeTools('1.4.0', [
      { ...get({ id: { type: 'string' }, team: { type: 'string' } }, ['team']), name: 'fetch' },
    ]);
    const refused = await run(
      'plugin',
      'publish',
      breaking,
      '--update',
      '--dry-run',
      ...registry(),
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('[CONFLICT]');
    expect(refused.err).toContain(
      [
        '  changes against 1.3.0 (1 breaking, needs 2.0.0 or above):',
        '    ! action get removed (renamed? new: fetch)',
        '    + action fetch added',
      ].join('\n'),
    );
    const detail = await fetch(`${server.url}/plugins/tools`);
    expect(((await detail.json()) as { versions: string[] }).versions).toEqual(['1.3.0']);
  });

  it('lists the breaks when a real update is refused', async () => {
    const first = writeTools('1.0.0', [get({ id: { type: 'string' } })]);
    const file = join(work, 'other.json');
    writeFileSync(file, JSON.stringify({ ...readJson(first), slug: 'other' }));
    expect((await run('plugin', 'publish', file, ...registry())).code).toBe(0);
    writeFileSync(
      file,
      JSON.stringify({ ...readJson(first), slug: 'other', version: '1.1.0', actions: [get({})] }),
    );
    const refused = await run('plugin', 'publish', file, '--update', ...registry());
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('    ! get: input.properties.id removed');
  });
});

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}
