import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The real weft server (cloud) and its router (self_hosted), over loopback; test-only import.
import { createLocalKey, startServer, type RunningServer } from '@weft/server';
import { createConnectorService, type ConnectorService } from '../service/service.js';
import { createMock } from '../testing/index.js';
import { loadWorkflow } from './load.js';
import { Weft } from './weft.js';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-sdk-')), 'flow.yaml');
  writeFileSync(path, text);
  return path;
}

const flow = file(`workflows:
  - name: greet
    inputs: { who: { required: true } }
    steps:
      - { name: hello, plugin: greeter, action: hello, input: { name: '{{ inputs.who }}', key: '{{ secrets.GREETER_KEY }}' } }
    outputs: { message: { value: '{{ steps.hello.output.message }}' } }
  - name: other
    steps: [{ name: t, type: transform, input: { x: 1 } }]
`);

function lines(): { stream: Writable; text: () => string } {
  let text = '';
  return {
    stream: new Writable({ write: (chunk, _e, done) => ((text += String(chunk)), done()) }),
    text: () => text,
  };
}

describe('the Weft client', () => {
  it('loads a file, registers a handler and executes a workflow by name', async () => {
    const weft = new Weft({
      logLevel: 'silent',
      environment: { GREETER_KEY: 'k-123456' },
      inheritEnvironment: false,
    });
    weft.registerHandler('greeter.hello', (input: Record<string, unknown>, context) => ({
      message: `hello ${String(input['name'])} from ${context.stepName}`,
    }));
    await weft.loadWorkflows(flow);
    expect([...weft.workflows()].map((w) => w.name)).toEqual(['greet', 'other']);
    const result = await weft.execute('greet', { who: 'ann' });
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ message: 'hello ann from hello' });
  });

  it('executes every workflow with executeAll', async () => {
    const weft = createMock({ environment: { GREETER_KEY: 'x' } }).mockAction('greeter.hello', {
      message: 'hi',
    });
    await weft.loadWorkflows(flow);
    const results = await weft.executeAll({ who: 'bo' });
    expect(results.map((r) => [r.workflow, r.status])).toEqual([
      ['greet', 'completed'],
      ['other', 'failed'],
    ]);
    expect(results[1]!.error?.details).toMatchObject({
      field: 'inputs.who',
      constraint: 'unknown',
    });
  });

  it('logs one structured line per step end with timing, never a secret value', async () => {
    const log = lines();
    const weft = new Weft({
      logDestination: log.stream,
      environment: { GREETER_KEY: 'k-123456' },
      inheritEnvironment: false,
    });
    weft.registerHandler('greeter.hello', (input: Record<string, unknown>) => ({
      message: `key ${String(input['key'])}`,
    }));
    await weft.loadWorkflows(flow);
    await weft.execute('greet', { who: 'ann' });
    const records = log
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r['msg'])).toEqual(['step hello success', 'workflow greet failed']);
    expect(records[0]).toMatchObject({ workflow: 'greet', step: 'hello', status: 'success' });
    expect(typeof records[0]!['duration_ms']).toBe('number');
    expect(log.text()).not.toContain('k-123456');
  });

  it('refuses an unknown workflow name with a did-you-mean', async () => {
    const weft = new Weft({ logLevel: 'silent' });
    await weft.loadWorkflows(flow);
    await expect(weft.execute('gret')).rejects.toThrow(
      'no workflow named "gret" is loaded (did you mean "greet"?)',
    );
  });

  it('refuses a broken file with every error in the message', async () => {
    const weft = new Weft({ logLevel: 'silent' });
    const broken = file('workflows:\n  - name: x\n    stepz: []\n');
    await expect(weft.loadWorkflows(broken)).rejects.toThrow(
      /flow\.yaml:3:5: error: workflows\[0\]\.stepz: unknown key "stepz" \(did you mean "steps"\?\)/,
    );
  });

  it('refuses unknown execution modes, cloud without a key and out-of-range options', () => {
    expect(() => new Weft({ executionMode: 'moon' as 'cloud' })).toThrow(
      'executionMode must be one of "local", "self_hosted", "cloud", "hybrid", got "moon"',
    );
    expect(
      () =>
        new Weft({
          executionMode: 'cloud',
          cloudUrl: 'http://127.0.0.1:1',
          inheritEnvironment: false,
        }),
    ).toThrow('execution mode "cloud" needs an API key');
    expect(
      () => new Weft({ executionMode: 'hybrid', apiKey: 'k', inheritEnvironment: false }),
    ).toThrow(
      'execution mode "hybrid" needs the server\'s URL: pass cloudUrl or set WORKFLOW_CLOUD_URL',
    );
    expect(() => new Weft({ executionMode: 'cloud', apiKey: 'k', cloudUrl: 'ftp://x' })).toThrow(
      "cloudUrl must be the server's absolute http(s) URL",
    );
    expect(() => new Weft({ timeout: 601 })).toThrow(
      'timeout must be an integer from 1 to 600 seconds',
    );
  });

  it('refuses bad hybrid placements when the client is made', () => {
    const hybrid = {
      executionMode: 'hybrid',
      apiKey: 'k',
      cloudUrl: 'http://127.0.0.1:1',
    } as const;
    expect(() => new Weft({ ...hybrid, hybridDefault: 'edge' as 'local' })).toThrow(
      expect.objectContaining({
        message: 'hybridDefault must be one of "local", "cloud", "self_hosted", got "edge"',
        details: { field: 'hybridDefault', constraint: 'enum' },
      }),
    );
    // @ts-expect-error placing steps on the router needs its URL: a JavaScript caller learns it at run time
    expect(() => new Weft({ ...hybrid, hybridDefault: 'self_hosted' })).toThrow(
      expect.objectContaining({ details: { field: 'routerUrl', constraint: 'required' } }),
    );
    expect(() => new Weft({ ...hybrid, routerUrl: 'ftp://router' })).toThrow(
      expect.objectContaining({ details: { field: 'routerUrl', constraint: 'url' } }),
    );
  });

  it('loads a single workflow with loadWorkflow', async () => {
    expect((await loadWorkflow(flow, 'other')).name).toBe('other');
    await expect(loadWorkflow(flow)).rejects.toThrow('holds 2 workflows');
  });
});

describe('the testing kit', () => {
  it('answers actions with mocked responses and records the calls', async () => {
    const mock = createMock({ environment: { GREETER_KEY: 'x' } });
    mock.mockAction('greeter.hello', (input) => ({ message: `mocked ${String(input['name'])}` }));
    await mock.loadWorkflows(flow);
    const result = await mock.execute('greet', { who: 'cy' });
    expect(result.steps['hello']!.output).toEqual({ message: 'mocked cy' });
    expect(mock.callsOf('greeter.hello')).toEqual([{ name: 'cy', key: 'x' }]);
  });

  it('refuses an unmocked action before anything runs, naming it', async () => {
    const mock = createMock({ environment: { GREETER_KEY: 'x' } }).mockAction('greeter.helo', {});
    await mock.loadWorkflows(flow);
    const result = await mock.execute('greet', { who: 'cy' });
    expect(result.error?.message).toContain(
      'no mocked response for greeter.hello (did you mean "greeter.helo"?)',
    );
    expect(mock.calls).toHaveLength(0);
  });
});

const mixed = file(`workflows:
  - name: mixed
    steps:
      - { name: hello, plugin: greeter, action: hello, input: { name: ann } }
      - { name: bump, plugin: counter, action: bump, execution: cloud, input: { n: 1 } }
      - { name: shout, plugin: shouter, action: shout, execution: local, input: { text: '{{ steps.hello.output.message }}' } }
    outputs:
      n: { value: '{{ steps.bump.output.n }}' }
      text: { value: '{{ steps.shout.output.text }}' }
`);

describe('hybrid mode with a weft server and a self-hosted router, over loopback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-sdk-hybrid-'));
  const seen: string[] = [];
  let cloud: RunningServer;
  let router: RunningServer;
  let services: ConnectorService[] = [];
  let apiKey: string;
  /** A key of the router's server (its POST /execute takes the keys of its own API). */
  let routerKey: string;

  /** A connector service of one function action, registered with `server`'s router. */
  const serve = (
    server: RunningServer,
    name: string,
    action: string,
    fn: (input: never) => unknown,
  ) =>
    createConnectorService({
      connector: {
        connector: { kind: 'function', name, namespace: 't', version: '1.0.0' },
        actions: [{ name: action }],
      },
      handlers: {
        [action]: (input: never, context: { idempotencyKey: string }) => {
          seen.push(`${name} ${context.idempotencyKey}`);
          return fn(input);
        },
      },
      routerUrl: server.url,
      instanceId: `${name}-1`,
      handleSignals: false,
      logger: pino({ level: 'silent' }),
    });

  beforeAll(async () => {
    // Two servers, so that a step sent to the wrong place fails: the cloud one knows only
    // `counter`, the router only `shouter`.
    cloud = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dir, 'cloud'),
      logLevel: 'error',
    });
    router = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: join(dir, 'router'),
      logLevel: 'error',
    });
    apiKey = (await createLocalKey({ dataDir: join(dir, 'cloud') }, { name: 'sdk' })).key;
    routerKey = (await createLocalKey({ dataDir: join(dir, 'router') }, { name: 'sdk' })).key;
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

  /** A hybrid client on the cloud server, with local handlers for every action of `mixed`. */
  async function client(routerUrl?: string): Promise<Weft> {
    const weft = new Weft({
      executionMode: 'hybrid',
      apiKey,
      cloudUrl: cloud.url,
      ...(routerUrl !== undefined ? { routerUrl, routerCredential: routerKey } : {}),
      logLevel: 'silent',
      inheritEnvironment: false,
    });
    weft.registerHandler('greeter.hello', (input: { name: string }) => ({
      message: `hello ${input.name}`,
    }));
    // Never used below: these steps are placed in the cloud or on the router.
    weft.registerHandler('counter.bump', () => ({ n: -1 }));
    weft.registerHandler('shouter.shout', () => ({ text: 'local' }));
    await weft.loadWorkflows(mixed);
    return weft;
  }

  it('runs one step here, one on the server and one through the router', async () => {
    seen.length = 0;
    const weft = await client(router.url);
    const result = await weft.execute(
      'mixed',
      {},
      {
        execution: { shouter: 'self_hosted' },
        executionId: 'mixed-1',
      },
    );
    await weft.close();
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.outputs).toEqual({ n: 2, text: 'HELLO ANN' });
    expect(result.steps['hello']!.output).toEqual({ message: 'hello ann' });
    // Each remote step reached its service once, with the run's idempotency key.
    expect(seen.sort()).toEqual(['counter mixed-1/bump', 'shouter mixed-1/shout']);
  });

  it('places every step through the router with execution "self_hosted"', async () => {
    const weft = await client(router.url);
    const result = await weft.execute('mixed', {}, { execution: 'self_hosted' });
    await weft.close();
    // The router serves no greeter: the first step fails there, not here.
    expect(result.status).toBe('failed');
    expect(result.steps['hello']!.error).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'greeter.hello: no instance of plugin "greeter" is registered',
    });
  });

  it('fails a run with a self_hosted step and no routerUrl before any step or request', async () => {
    seen.length = 0;
    const weft = await client();
    const result = await weft.execute('mixed', {}, { execution: { shouter: 'self_hosted' } });
    await weft.close();
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'VALIDATION',
      message: expect.stringContaining('plugin "shouter" is placed self_hosted'),
      details: { field: 'routerUrl', constraint: 'required' },
    });
    expect(result.steps).toEqual({});
    expect(seen).toEqual([]);
  });

  it('refuses an execution override that is not a place, before the run', async () => {
    const weft = await client(router.url);
    await expect(weft.execute('mixed', {}, { execution: 'router' as 'local' })).rejects.toThrow(
      expect.objectContaining({ details: { field: 'execution', constraint: 'enum' } }),
    );
    await expect(
      weft.execute('mixed', {}, { execution: { shouter: 'selfhosted' as 'local' } }),
    ).rejects.toThrow(
      expect.objectContaining({ details: { field: 'execution.shouter', constraint: 'enum' } }),
    );
    await weft.close();
    const local = new Weft({ logLevel: 'silent' });
    await local.loadWorkflows(mixed);
    await expect(local.execute('mixed', {}, { execution: 'self_hosted' })).rejects.toThrow(
      'execution (per-run placement) needs executionMode "hybrid"',
    );
  });
});
