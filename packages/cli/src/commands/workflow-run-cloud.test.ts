import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { main } from '../main.js';
import { run } from '../test-support.js';

const examples = fileURLToPath(new URL('../../../../examples/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'weft-run-cloud-'));
const flow = join(dir, 'flow.yaml');
writeFileSync(
  flow,
  `workflows:
  - name: sum
    inputs: { a: { type: number, required: true } }
    steps:
      - { name: add, type: transform, input: { v: '{{ inputs.a + 1 }}' } }
    outputs: { v: { value: '{{ steps.add.output.v }}' } }
`,
);

let server: RunningServer;
let key: string;

beforeAll(async () => {
  const dataDir = join(dir, 'data');
  server = await startServer({ port: 0, host: '127.0.0.1', dataDir, logLevel: 'error' });
  key = (await createLocalKey({ dataDir }, { name: 'cli' })).key;
  for (const name of ['WORKFLOW_CLOUD_URL', 'WORKFLOW_REGISTRY_URL', 'WORKFLOW_REGISTRY_API_KEY'])
    vi.stubEnv(name, undefined);
}, 30_000);

afterAll(async () => {
  await server?.close();
});

const cloud = (...args: string[]) =>
  run('workflow', 'run', flow, '-i', 'a=2', '--server', server.url, '--api-key', key, ...args);

describe('weft workflow run --cloud', () => {
  it('runs the workflow on the server and prints the local summary', async () => {
    const result = await cloud('--cloud');
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^sum completed in \d+ ms/);
    expect(result.out).toContain('v: 3');
  });

  it('draws the live step list on a terminal, then the summary without repeating the steps', async () => {
    let out = '';
    let err = '';
    const argv = ['workflow', 'run', flow, '-i', 'a=2', '--server', server.url, '--api-key', key];
    const code = await main(['node', 'weft', ...argv, '--cloud'], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      color: false,
      live: true,
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    // Drawn as events came (the spinner while the step ran), redrawn in place, then the end.
    expect(out).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] add {3}\d+ms\n/);
    expect(out).toContain('\x1b[1F\x1b[J');
    const [list, summary] = out.split(/(?=^sum completed)/m) as [string, string];
    expect(list.split('\x1b[J').at(-1)).toMatch(/^✓ add {3}\d+ms\ncompleted in [\d.]+m?s\n$/);
    expect(summary).toMatch(/^sum completed in \d+ ms \(execution \S+\)\noutputs:\n {2}v: 3\n$/);
  });

  it('prints the JSON document with -o json, like a local run', async () => {
    const result = await cloud('--mode', 'cloud', '-o', 'json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      workflow: 'sum',
      status: 'completed',
      outputs: { v: 3 },
      steps: { add: { status: 'success', output: { v: 3 } } },
    });
  });

  it('streams the events live with --stream', async () => {
    const result = await cloud('--cloud', '--stream', '-o', 'json');
    expect(result.code).toBe(0);
    const lines = result.out.split('\n').filter((l) => l.startsWith('{"type"'));
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'step.started',
      'step.completed',
      'workflow.completed',
    ]);
  });

  it('prints the pending record with --async and exits 0', async () => {
    const result = await cloud('--cloud', '--async');
    expect(result.code).toBe(0);
    const record = JSON.parse(result.out) as { status: string; execution_id: string };
    expect(record.status).toBe('pending');
    const polled = await fetch(`${server.url}/workflows/executions/${record.execution_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(polled.status).toBe(200);
  });

  it('takes the server and key from WORKFLOW_CLOUD_URL and WORKFLOW_REGISTRY_API_KEY', async () => {
    process.env['WORKFLOW_CLOUD_URL'] = server.url;
    process.env['WORKFLOW_REGISTRY_API_KEY'] = key;
    try {
      const result = await run('workflow', 'run', flow, '-i', 'a=5', '--cloud');
      expect(result.code).toBe(0);
      expect(result.out).toContain('v: 6');
    } finally {
      delete process.env['WORKFLOW_CLOUD_URL'];
      delete process.env['WORKFLOW_REGISTRY_API_KEY'];
    }
  });

  it('refuses to start without an API key (exit 2), naming the flag and variable', async () => {
    const result = await run(
      'workflow',
      'run',
      flow,
      '-i',
      'a=1',
      '--cloud',
      '--server',
      server.url,
    );
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      '--cloud needs an API key: set WORKFLOW_REGISTRY_API_KEY or give --api-key',
    );
    expect(result.err).not.toContain('apiKey');
  });

  it('reports a refused key as a failure (exit 1)', async () => {
    const result = await run(
      'workflow',
      'run',
      flow,
      '-i',
      'a=1',
      '--cloud',
      '--server',
      server.url,
      '--api-key',
      'wk_wrong',
    );
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^weft: /);
  });

  it.each([
    [['--cloud', '--mode', 'hybrid'], '--cloud and --mode hybrid exclude each other'],
    [['--cloud', '--router', 'http://127.0.0.1:1'], '--router and --cloud exclude each other'],
    [
      ['--mode', 'local', '--router', 'http://127.0.0.1:1'],
      '--router is for --mode self_hosted or hybrid, not local',
    ],
    [['--cloud', '--plugins', 'x'], '--plugins and --require do not apply'],
    [['--cloud', '--dry-run'], '--dry-run runs locally'],
    [['--async'], '--async runs on the server: add --cloud'],
    [['--execution', 'cloud'], '--execution places steps in --mode hybrid only'],
    [['--mode', 'self_hosted'], '--mode self_hosted needs --router URL'],
  ])('refuses %j with a usage error', async (args, message) => {
    const result = await cloud(...args);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
  });

  it('refuses a bad --execution value', async () => {
    const result = await cloud('--mode', 'hybrid', '--execution', 'calc=moon');
    expect(result.code).toBe(2);
    expect(result.err).toContain('expected local, cloud or self_hosted, got "moon"');
  });
});

describe('weft workflow run --mode hybrid', () => {
  const hello = (...args: string[]) =>
    run(
      'workflow',
      'run',
      join(examples, 'hello.json'),
      '--plugins',
      join(examples, 'connectors'),
      '--mode',
      'hybrid',
      '--server',
      server.url,
      '--api-key',
      key,
      ...args,
    );

  it('runs steps without execution locally (the shell connector of ./plugins)', async () => {
    const result = await hello('-i', 'who=ada');
    expect(result.code).toBe(0);
    expect(result.out).toContain('words: 2');
  });

  it('sends the steps of a plugin placed in the cloud to the server', async () => {
    const result = await hello('--execution', 'text-tools=cloud', '-o', 'json');
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out) as {
      steps: Record<string, { error?: { message: string } }>;
    };
    // The server knows no text-tools plugin: its refusal proves the call went there.
    expect(doc.steps['count']!.error!.message).toContain('neither published nor registered');
  });
});
