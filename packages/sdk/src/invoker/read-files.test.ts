import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { rejection, run } from '../test-support/context.js';
import { LocalInvoker } from './local-invoker.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/connectors', import.meta.url));

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-plugins-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const shellFile = (name: string) => `connector:
  kind: shell
  name: ${name}
  namespace: t
  version: 1.0.0
actions:
  - name: where
    command: [node, -e, "console.log(JSON.stringify({cwd: process.cwd(), dir: process.env.WEFT_CONNECTOR_DIR, tmp: process.env.TMPDIR}))"]
`;

describe('connector files', () => {
  it('loads every example connector, and runs the shell one for real', async () => {
    const invoker = new LocalInvoker({ environment: { SUFFIX: '?' } });
    const loaded = await invoker.loadConnectorDir(EXAMPLES);
    expect(loaded.map((c) => c.ref).sort()).toEqual([
      'connector:examples/greeter@1.0.0',
      'connector:examples/notify@1.0.0',
      'connector:examples/placeholder@1.0.0',
      'connector:examples/text-tools@1.0.0',
    ]);
    expect(await run(invoker, 'text-tools.word_count', { text: 'one two  three' })).toEqual({
      words: 3,
    });
    expect(await run(invoker, 'text-tools.shout', { text: 'hey' })).toEqual({ text: 'HEY?' });
    const placeholder = loaded.find((c) => c.name === 'placeholder');
    expect(placeholder?.definition.connector.base_url).toBe('https://jsonplaceholder.typicode.com');
  });

  it('skips hidden files (bookkeeping such as .weft-plugins.json) and sub-folders', async () => {
    const dir = await folder({
      'a.yaml': shellFile('a'),
      '.weft-plugins.json': '{"a": {"version": "1.0.0"}}',
      '.#a.yaml': 'not: [closed',
    });
    const loaded = await new LocalInvoker().loadConnectorDir(dir);
    expect(loaded.map((c) => c.name)).toEqual(['a']);
  });

  it('compiles action schemas of JSON Schema draft 2020-12 when their $schema says so', async () => {
    const invoker = new LocalInvoker();
    invoker.registerConnector({
      connector: { kind: 'function', name: 'p', namespace: 't', version: '1.0.0' },
      actions: [
        {
          name: 'a',
          input_schema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } },
          },
        },
      ],
    });
    invoker.registerHandler('p.a', () => ({}));
    expect(await rejection(run(invoker, 'p.a', { pair: [1] }))).toMatchObject({
      code: 'VALIDATION',
    });
  });

  it('loads only *.yaml, *.yml and *.json files and tells commands the file folder', async () => {
    const dir = await folder({ 'a.yml': shellFile('a'), 'notes.txt': 'not a connector' });
    const invoker = new LocalInvoker();
    expect((await invoker.loadConnectorDir(dir)).map((c) => c.name)).toEqual(['a']);
    const where = (await run(invoker, 'a.where')) as { cwd: string; dir: string; tmp: string };
    // The command runs in a scratch directory of its own, never in the plugins folder.
    expect(where.dir).toBe(dir);
    expect(where.cwd).not.toBe(dir);
    expect(where.tmp).toBe(where.cwd);
  });

  it('checks every file before registering any, and names each bad one', async () => {
    const dir = await folder({
      'good.yaml': shellFile('good'),
      'bad1.yaml': 'connector: {kind: shell}\nactions: []\n',
      'bad2.json': '{"connector": ',
    });
    const invoker = new LocalInvoker();
    const error = await rejection(invoker.loadConnectorDir(dir));
    expect(error['code']).toBe('VALIDATION');
    expect(error['message']).toContain('bad1.yaml:1:12');
    expect(error['message']).toContain('bad2.json');
    expect(invoker.connectors()).toEqual([]);
  });

  it('reports a missing file or folder as VALIDATION naming it, unless missingOk', async () => {
    const invoker = new LocalInvoker();
    const file = await rejection(invoker.loadConnectorFile('/nonexistent/x.yaml'));
    expect(file['details']).toMatchObject({ constraint: 'not_found', file: '/nonexistent/x.yaml' });
    await expect(invoker.loadConnectorDir('/nonexistent/plugins')).rejects.toThrow(
      '/nonexistent/plugins',
    );
    expect(await invoker.loadConnectorDir('/nonexistent/plugins', { missingOk: true })).toEqual([]);
  });

  it('refuses a file over the size limit before parsing it', async () => {
    const dir = await folder({ 'big.yaml': `${shellFile('big')}#${'x'.repeat(5000)}\n` });
    const invoker = new LocalInvoker({ maxFileSize: 1000 });
    const error = await rejection(invoker.loadConnectorFile(join(dir, 'big.yaml')));
    expect(error['details']).toMatchObject({ constraint: 'too_large' });
  });
});
