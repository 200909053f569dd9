import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnectorService, type ConnectorService } from '@weft/sdk/service';
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { run } from '../test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'weft-run-hybrid-'));
const flow = join(dir, 'flow.yaml');
writeFileSync(
  flow,
  `workflows:
  - name: mixed
    steps:
      - { name: hello, plugin: greeter, action: hello, input: { name: ann } }
      - { name: bump, plugin: counter, action: bump, execution: cloud, input: { n: 1 } }
      - { name: shout, plugin: shouter, action: shout, input: { text: '{{ steps.hello.output.message }}' } }
    outputs:
      n: { value: '{{ steps.bump.output.n }}' }
      text: { value: '{{ steps.shout.output.text }}' }
`,
);
const handlers = join(dir, 'handlers.mjs');
writeFileSync(
  handlers,
  `export default (weft) => {
  weft.registerHandler('greeter.hello', (input) => ({ message: 'hello ' + input.name }));
  weft.registerHandler('shouter.shout', () => ({ text: 'local' }));
};
`,
);

// Two servers, so that a step sent to the wrong place fails: the cloud one serves only
// `counter`, the router only `shouter`.
let cloud: RunningServer;
let router: RunningServer;
let services: ConnectorService[] = [];
let key: string;
/** A key of the router's server: its POST /execute takes the keys of its own public API. */
let routerKey: string;

/** A connector service of one function action, registered with `server`'s router. */
function serve(server: RunningServer, name: string, action: string, fn: (input: never) => unknown) {
  return createConnectorService({
    connector: {
      connector: { kind: 'function', name, namespace: 't', version: '1.0.0' },
      actions: [{ name: action }],
    },
    handlers: { [action]: fn },
    routerUrl: server.url,
    instanceId: `${name}-1`,
    handleSignals: false,
    logger: pino({ level: 'silent' }),
  });
}

beforeAll(async () => {
  for (const name of ['WORKFLOW_CLOUD_URL', 'WORKFLOW_REGISTRY_URL', 'WORKFLOW_REGISTRY_API_KEY'])
    vi.stubEnv(name, undefined);
  const server = (name: string) =>
    startServer({ port: 0, host: '127.0.0.1', dataDir: join(dir, name), logLevel: 'error' });
  [cloud, router] = await Promise.all([server('cloud'), server('router')]);
  key = (await createLocalKey({ dataDir: join(dir, 'cloud') }, { name: 'cli' })).key;
  routerKey = (await createLocalKey({ dataDir: join(dir, 'router') }, { name: 'cli' })).key;
  services = [
    await serve(cloud, 'counter', 'bump', (input: { n: number }) => ({ n: input.n + 1 })),
    await serve(router, 'shouter', 'shout', (input: { text: string }) => ({
      text: input.text.toUpperCase(),
    })),
  ];
}, 30_000);

afterAll(async () => {
  for (const service of services) await service.close();
  await cloud?.close();
  await router?.close();
});

const hybrid = (...args: string[]) =>
  run(
    'workflow',
    'run',
    flow,
    '--mode',
    'hybrid',
    '--server',
    cloud.url,
    '--api-key',
    key,
    '--require',
    handlers,
    '-o',
    'json',
    ...args,
  );

describe('weft workflow run --mode hybrid --router', () => {
  it('runs a plugin placed self_hosted through the router, the rest here and on the server', async () => {
    const result = await hybrid(
      '--router',
      router.url,
      '--router-token',
      routerKey,
      '--execution',
      'shouter=self_hosted',
    );
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({
      status: 'completed',
      outputs: { n: 2, text: 'HELLO ANN' },
      steps: { hello: { output: { message: 'hello ann' } } },
    });
  });

  it('refuses a self_hosted step whose router does not accept the credential', async () => {
    // --api-key is the cloud server's key: the router's server does not know it.
    const result = await hybrid('--router', router.url, '--execution', 'shouter=self_hosted');
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out) as {
      steps: Record<string, { error?: { code: string } }>;
    };
    expect(doc.steps['shout']!.error!.code).toBe('UNAUTHORIZED');
  });

  it('sends every step to the router with --execution self_hosted', async () => {
    const result = await hybrid(
      '--router',
      router.url,
      '--router-token',
      routerKey,
      '--execution',
      'self_hosted',
    );
    // The router serves no greeter: the first step fails there, not here.
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.out) as {
      steps: Record<string, { error?: { message: string } }>;
    };
    expect(doc.steps['hello']!.error!.message).toContain(
      'no instance of plugin "greeter" is registered',
    );
  });

  it.each([
    [
      ['--execution', 'shouter=self_hosted'],
      '--execution self_hosted runs steps through the router: add --router URL',
    ],
    [['--execution', 'self_hosted'], 'add --router URL'],
    [
      ['--router', 'http://127.0.0.1:1', '--execution', 'shouter=router'],
      'expected local, cloud or self_hosted, got "router"',
    ],
    [['--router', 'ftp://router'], "routerUrl must be the router's absolute http(s) URL"],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await hybrid(...args);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
    expect(result.out).toBe('');
  });
});
